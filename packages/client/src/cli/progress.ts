import { SingleBar } from 'cli-progress';

/** Progress shown on stderr, so stdout keeps only results. */

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * The "server unreachable, reconnecting" line of `moneta listen`: a spinner with the countdown to
 * the next attempt on a terminal, one line per attempt otherwise.
 */
export function createReconnectIndicator(stream: NodeJS.WriteStream = process.stderr) {
  const tty = stream.isTTY === true;
  let active = false;
  let frame = 0;
  const line = (text: string) => {
    if (tty) stream.write(`\r\x1b[2K${text}`);
    else stream.write(`${text}\n`);
  };
  return {
    get active() {
      return active;
    },
    /** Waits `ms` before attempt `attempt`, showing why. */
    async wait(attempt: number, ms: number, reason: string, signal?: AbortSignal): Promise<void> {
      active = true;
      const until = Date.now() + ms;
      if (!tty) {
        line(`server unreachable (${reason}); reconnecting, attempt ${attempt} in ${(ms / 1000).toFixed(1)} s`);
        return sleep(ms, signal);
      }
      while (!signal?.aborted && Date.now() < until) {
        line(`${FRAMES[frame++ % FRAMES.length]} server unreachable (${reason}); reconnecting, attempt ${attempt} in ${Math.ceil((until - Date.now()) / 1000)} s`);
        await sleep(Math.min(100, until - Date.now()), signal);
      }
    },
    done(message = 'reconnected'): void {
      if (!active) return;
      active = false;
      if (tty) stream.write('\r\x1b[2K');
      stream.write(`${message}\n`);
    },
  };
}

/** A cli-progress bar on stderr (drawn only on a terminal). */
export function createBar(total: number, label: string): SingleBar {
  const bar = new SingleBar({
    format: `${label} [{bar}] {value}/{total} | {status}`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: false,
    barsize: 30,
  });
  bar.start(total, 0, { status: '' });
  return bar;
}

/** Backoff before reconnect attempt `attempt` (1, 2, …): doubling from `baseMs`, at most `maxMs`. */
export function reconnectDelayMs(attempt: number, baseMs = 500, maxMs = 15_000): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 20));
}
