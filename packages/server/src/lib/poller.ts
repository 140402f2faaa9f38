import type { FastifyBaseLogger } from 'fastify';
import type { WakeChannel, Wakeups } from '../db/wake.js';

export interface PollerWake {
  wakeups: Wakeups;
  channel: WakeChannel;
  /**
   * How often to poll anyway while wake-ups arrive (work that becomes due by time alone: retries,
   * jobs scheduled for later). Defaults to the interval itself; while wake-ups are down (a dropped
   * LISTEN connection) the poller always polls at the interval.
   */
  fallbackMs?: number;
}

/**
 * Runs a drain function on an interval and whenever a commit wakes it, one drain at a time per
 * process. Wake-ups coalesce: a wake during a drain makes one more drain start right after it (the
 * drain may have read before that commit), however many wakes came. Callers of `runDue` during a
 * drain share it. `stop` waits for the current drain. Jobs and webhook delivery both run this way.
 */
export function createPoller(what: string, drain: () => Promise<number>) {
  let timer: NodeJS.Timeout | undefined;
  let unsubscribe: (() => void) | undefined;
  let running: Promise<number> | undefined;
  let again = false;
  let active = false;
  let lastDrainAt = 0;
  const state: { log: FastifyBaseLogger | undefined } = { log: undefined };

  function runDue(): Promise<number> {
    if (running) return running;
    lastDrainAt = Date.now();
    running = drain().finally(() => {
      running = undefined;
      if (again && active) {
        again = false;
        background();
      }
    });
    return running;
  }

  function background(): void {
    runDue().catch((error: unknown) => state.log?.error({ err: error }, `${what} failed`));
  }

  function wake(): void {
    if (!active) return;
    if (running) again = true;
    else background();
  }

  return {
    state,
    useLogger: (logger: FastifyBaseLogger): void => {
      state.log = logger;
    },
    /** Runs everything due now (tests call this after moving the clock); returns how much ran. */
    runDue,
    /** Drains now, or right after the drain in progress. Ignored unless started. */
    wake,
    start: (intervalMs: number, wakeOn?: PollerWake): void => {
      if (timer) return;
      active = true;
      const fallbackMs = wakeOn?.fallbackMs ?? intervalMs;
      unsubscribe = wakeOn?.wakeups.subscribe(wakeOn.channel, wake);
      timer = setInterval(() => {
        // While wake-ups arrive, the poll only catches what time alone made due.
        if (wakeOn?.wakeups.listening() && Date.now() - lastDrainAt < fallbackMs - intervalMs / 2) return;
        background();
      }, intervalMs);
      timer.unref();
      // What is already due (written before this start, or by a process that is gone) goes now.
      if (wakeOn) wake();
    },
    stop: async (): Promise<void> => {
      active = false;
      again = false;
      unsubscribe?.();
      unsubscribe = undefined;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
