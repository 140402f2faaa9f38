import type { FastifyBaseLogger } from 'fastify';

/**
 * Runs a drain function on an interval, one drain at a time per process (callers of `runDue`
 * during a drain share it), and waits for the current drain on stop. Jobs and webhook delivery
 * both run this way.
 */
export function createPoller(what: string, drain: () => Promise<number>) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  const state: { log: FastifyBaseLogger | undefined } = { log: undefined };

  function runDue(): Promise<number> {
    running ??= drain().finally(() => (running = undefined));
    return running;
  }

  return {
    state,
    useLogger: (logger: FastifyBaseLogger): void => {
      state.log = logger;
    },
    /** Runs everything due now (tests call this after moving the clock); returns how much ran. */
    runDue,
    start: (intervalMs: number): void => {
      if (timer) return;
      timer = setInterval(() => {
        runDue().catch((error: unknown) => state.log?.error({ err: error }, `${what} failed`));
      }, intervalMs);
      timer.unref();
    },
    stop: async (): Promise<void> => {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
