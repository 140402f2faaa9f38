/**
 * Interruption: every server is started in its own process group and killed with it
 * (tools/processes.ts), whatever way the bench ends; undo steps (temporary directories, the
 * throw-away database) registered here run on success, failure and Ctrl-C alike.
 */
import { killChildren } from '../../tools/processes.js';
import { elapsed } from './settings.js';

/** Undo steps (temporary directories, the throw-away database) still due if the bench is interrupted. */
export const pendingCleanups = new Set<() => Promise<void>>();
/** Set on SIGINT/SIGTERM/SIGHUP: the raw-SQL loops stop at once and nothing new starts. */
export let stopping = false;

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
  }
}

/** Called before each step that starts something (a server, a database, a measurement). */
export function checkInterrupted(): void {
  if (stopping) throw new Interrupted();
}

/** Kills every server at once, runs the cleanups still due (for at most 10 s), and exits with `code`. */
export function abandonAll(code: number): void {
  killChildren();
  const cleanups = [...pendingCleanups].map((cleanup) => cleanup().catch(() => undefined));
  const deadline = new Promise((done) => setTimeout(done, 10_000).unref());
  void Promise.race([Promise.all(cleanups), deadline]).then(() => process.exit(code));
}

/** Servers die with the bench, however it ends; a signal stops the loops and cleans up first. */
export function handleSignals(): void {
  process.on('exit', killChildren);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (stopping) return; // a wrapper (npx, tsx) may relay the signal the process group already got
      process.stderr.write(`\nbench ${elapsed()}s  ${signal}: stopping servers and cleaning up\n`);
      stopping = true;
      abandonAll(130);
    });
  }
}

/** Runs `work`, then `cleanup` whether it succeeded, failed, or the bench was interrupted. */
export async function withCleanup<T>(cleanup: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  // Once only, even when a signal's handler and this function's own `finally` both ask for it.
  let done: Promise<void> | undefined;
  const once = () => (done ??= cleanup());
  pendingCleanups.add(once);
  try {
    return await work();
  } finally {
    await once();
    pendingCleanups.delete(once);
  }
}
