import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPoller } from './poller.js';
import { createLocalWakeups, type Wakeups } from '../db/wake.js';

/** Wake-ups whose `listening()` the test sets (a PostgreSQL LISTEN connection up or cut). */
function switchableWakeups(): Wakeups & { up: boolean } {
  const local = createLocalWakeups();
  const w = { ...local, up: true, listening: () => w.up };
  return w;
}

afterEach(() => vi.useRealTimers());

describe('poller wake-ups', () => {
  it('a wake during a drain makes exactly one more drain right after it, however many wakes came', async () => {
    const wakeups = createLocalWakeups();
    let release!: () => void;
    let drains = 0;
    const poller = createPoller('test', async () => {
      drains++;
      if (drains === 1) await new Promise<void>((r) => (release = r));
      return 0;
    });
    poller.start(3_600_000, { wakeups, channel: 'events' });
    // start() drains once at once; three commits land while it runs.
    expect(drains).toBe(1);
    wakeups.committed(['events']);
    wakeups.committed(['events']);
    wakeups.committed(['events', 'jobs']);
    release();
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    await poller.stop();
    expect(drains).toBe(2);
  });

  it('ignores other channels, and every wake once stopped', async () => {
    const wakeups = createLocalWakeups();
    let drains = 0;
    const poller = createPoller('test', async () => ++drains);
    poller.start(3_600_000, { wakeups, channel: 'events' });
    await poller.runDue();
    const before = drains;
    wakeups.committed(['jobs', 'request_logs']);
    await new Promise((r) => setImmediate(r));
    expect(drains).toBe(before);
    await poller.stop();
    wakeups.committed(['events']);
    await new Promise((r) => setImmediate(r));
    expect(drains).toBe(before);
  });

  it('polls at the fallback period while wake-ups arrive, and at the short interval while they are cut', async () => {
    vi.useFakeTimers();
    const wakeups = switchableWakeups();
    let drains = 0;
    const poller = createPoller('test', async () => ++drains);
    poller.start(100, { wakeups, channel: 'events', fallbackMs: 60_000 });
    await vi.advanceTimersByTimeAsync(10_000);
    // Listening: only the drain of start() ran in ten seconds of 100 ms ticks.
    expect(drains).toBe(1);
    wakeups.up = false;
    await vi.advanceTimersByTimeAsync(1_000);
    // Cut: every tick drains.
    expect(drains).toBeGreaterThanOrEqual(9);
    await poller.stop();
  });
});
