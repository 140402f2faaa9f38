import type { PlatformId } from '../core/ids.js';
import { MAX_RETRY_GAP_MS, retryAfterMs, retryDelayMs } from './retry.js';

/** Consecutive failed attempts to one platform's endpoint after which its deliveries pause. */
export const PAUSE_AFTER_FAILURES = 10;

/**
 * Each platform's endpoint health, as one deliverer has seen it: a circuit breaker. After
 * PAUSE_AFTER_FAILURES failed attempts in a row (no answer, or not 2xx/409) the platform's
 * deliveries pause ("open"); when the pause ends ONE event is sent as a probe ("probing") while the
 * others wait; the probe's success ends the pause (as does any success, or the endpoint changing),
 * its failure starts a longer one: 10 s doubling to 30 min as an event's own retries, or the
 * endpoint's Retry-After. Times are the platform's clock (the one `next_attempt_at` is written in).
 *
 * Meanwhile the platform's events are parked: due at `parkedUntil`, two probe windows past the
 * pause's end, so that no claim sees them while the pause lasts nor while its probe runs (the
 * deliverer sends the probe without waiting for them to come due). Were this process to die, they
 * would be due then, as its probe would have gone. A pause that grows moves them again (one
 * statement per pause, however many they are).
 *
 * Pure state: what the deliverer does about a pause (parking the waiting events, in one statement)
 * or its end (making them due again) is in delivery.ts.
 */
interface Entry {
  url: string;
  failures: number;
  /** How many pauses in a row (the probe failed each time): the pause grows with it. */
  pauses: number;
  state: 'closed' | 'open' | 'probing';
  /** open: when the pause ends and a probe may go; probing: when the probe is given up for lost and another may go. */
  until: number;
  /** When the events held by the pause are due if nothing else happens. */
  parkedUntil: number;
}

/** Whether an event may go now, and whether as the probe (if its events had to be parked further: until when). */
export type Admission = { send: true; probe: boolean; parkedUntil?: Date } | { send: false };

/** What an attempt's outcome changed: a pause began or grew (its events parked until a time), or a pause ended (the events parked up to `heldUntil` are due again). */
export type Transition = { paused: Date } | { resumed: true; heldUntil: Date } | undefined;

export interface BreakerOptions {
  /** How long a probe may take before another is sent (the request timeout, with room). */
  probeWindowMs: number;
  random?: () => number;
}

export function createBreakers(options: BreakerOptions) {
  const entries = new Map<PlatformId, Entry>();
  const random = options.random ?? Math.random;

  /** The entry's events wait until a probe sent at `from` has had its window, and one more. */
  function park(entry: Entry, from: number): void {
    entry.parkedUntil = from + 2 * options.probeWindowMs;
  }

  function pause(entry: Entry, at: number, retryAfter: string | null): Transition {
    entry.state = 'open';
    entry.pauses++;
    entry.until = at + Math.min(MAX_RETRY_GAP_MS, retryAfterMs(retryAfter, at) ?? retryDelayMs(entry.pauses, random));
    park(entry, entry.until);
    return { paused: new Date(entry.parkedUntil) };
  }

  return {
    /** Whether an event of `platformId` may be sent to `url` now (`now`: the platform's time, read only when it matters). */
    async admit(platformId: PlatformId, url: string, now: () => Promise<Date>): Promise<Admission> {
      const entry = entries.get(platformId);
      if (!entry) return { send: true, probe: false };
      if (entry.url !== url) {
        // A new endpoint starts with a clean record.
        entries.delete(platformId);
        return { send: true, probe: false };
      }
      if (entry.state === 'closed') return { send: true, probe: false };
      const at = (await now()).getTime();
      // The record may have changed while the time was read: a success ended the pause.
      if (entries.get(platformId) !== entry) return { send: true, probe: false };
      if (at < entry.until) return { send: false };
      entry.state = 'probing';
      entry.until = at + options.probeWindowMs;
      // A probe so late that the events would come due while it runs: they wait for it.
      if (entry.parkedUntil >= entry.until) return { send: true, probe: true };
      park(entry, at);
      return { send: true, probe: true, parkedUntil: new Date(entry.parkedUntil) };
    },

    /** An attempt to `url` ended (`ok` when 2xx or 409), with its answer's Retry-After. */
    async settle(platformId: PlatformId, url: string, ok: boolean, now: () => Promise<Date>, attempt: { probe: boolean; retryAfter: string | null }): Promise<Transition> {
      // Read first: what follows changes the record without a pause in between.
      const at = ok ? 0 : (await now()).getTime();
      let entry = entries.get(platformId);
      if (entry && entry.url !== url) {
        entries.delete(platformId);
        entry = undefined;
      }
      if (ok) {
        if (!entry) return undefined;
        entries.delete(platformId);
        return entry.state === 'closed' ? undefined : { resumed: true, heldUntil: new Date(entry.parkedUntil) };
      }
      if (!entry) entries.set(platformId, (entry = { url, failures: 0, pauses: 0, state: 'closed', until: 0, parkedUntil: 0 }));
      entry.failures++;
      if (entry.state === 'closed' && entry.failures >= PAUSE_AFTER_FAILURES) return pause(entry, at, attempt.retryAfter);
      if (entry.state === 'probing' && attempt.probe) return pause(entry, at, attempt.retryAfter);
      return undefined;
    },

    /**
     * The probe found no event of `platformId` waiting: the pause goes on a probe window more (no
     * need to look again before), its events written meanwhile parked past it.
     */
    async nothingToProbe(platformId: PlatformId, now: () => Promise<Date>): Promise<void> {
      const at = (await now()).getTime();
      const entry = entries.get(platformId);
      if (!entry || entry.state === 'closed') return;
      entry.until = at + options.probeWindowMs;
      park(entry, entry.until);
    },

    /** Until when `platformId`'s events wait (parked), while its deliveries are paused or probed. */
    waitsUntil(platformId: PlatformId): Date | undefined {
      const entry = entries.get(platformId);
      return entry && entry.state !== 'closed' ? new Date(entry.parkedUntil) : undefined;
    },

    /** The platforms paused or probing: the endpoint that failed, and whether a probe may go at `now(platformId)`. */
    async paused(now: (platformId: PlatformId) => Promise<Date>): Promise<{ platformId: PlatformId; url: string; probeDue: boolean }[]> {
      const paused = [...entries].filter(([, e]) => e.state !== 'closed');
      return Promise.all(paused.map(async ([platformId, e]) => ({ platformId, url: e.url, probeDue: (await now(platformId)).getTime() >= e.until })));
    },

    /** Forgets `platformId`'s record (its endpoint changed or was removed); the pause it ends, if any. */
    reset(platformId: PlatformId): Transition {
      const entry = entries.get(platformId);
      entries.delete(platformId);
      return entry && entry.state !== 'closed' ? { resumed: true, heldUntil: new Date(entry.parkedUntil) } : undefined;
    },
  };
}

export type Breakers = ReturnType<typeof createBreakers>;
