/**
 * Child processes for the tests, the bench and the chaos run: a free loopback port to start one on,
 * its exit, and its process group (a child spawned with `detached: true` leads a group of its own,
 * so the wrappers and helpers it starts go down with it).
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Resolves with the exit code once the process has exited (at once if it already has; null when killed by a signal). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Signals the child's process group, or the child alone when it has none; quiet when it is already gone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // npx, tsx and node: the whole group, even when npx (the leader) has already exited.
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * The detached children of a run (bench, chaos) that must die with it however it ends; the run
 * adds each one it starts, and removes it when it is stopped or has exited.
 */
export const children = new Set<ChildProcess>();

/** kill -9 of every tracked child's group at once. */
export function killChildren(): void {
  for (const child of children) killGroup(child, 'SIGKILL');
}

/** SIGTERM to the group (a graceful drain), SIGKILL after `graceMs`; afterwards no longer tracked. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const done = exited(child);
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  }
  // npx may exit before its own children; make sure nothing of the group survives.
  killGroup(child, 'SIGKILL');
  children.delete(child);
}
