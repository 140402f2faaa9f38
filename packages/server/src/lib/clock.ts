import type { Db } from '../db/schema.js';
import type { PlatformId } from '../core/ids.js';

/**
 * The one source of "now". In sandbox each platform may move its own clock forward, so expiry and
 * scheduled work can be tested without sleeping; in production the offset is always zero.
 */
export interface Clock {
  /** The time as the given platform sees it (real time plus its sandbox offset). */
  now(platformId: PlatformId): Promise<Date>;
  /** Real wall-clock time; for process-level concerns such as caches and logs. */
  realNow(): Date;
  /** Forget a cached offset after it changed (the change itself is written by the sandbox module). */
  invalidate(platformId: PlatformId): void;
}

interface CachedOffset {
  offsetMs: number;
  readAt: number;
}

export function createClock(options: { db: Db; sandbox: boolean; cacheMs?: number; realNow?: () => number }): Clock {
  const realNowMs = options.realNow ?? Date.now;
  const cacheMs = options.cacheMs ?? 1000;
  const offsets = new Map<string, CachedOffset>();

  async function offsetOf(platformId: PlatformId): Promise<number> {
    const cached = offsets.get(platformId);
    const at = realNowMs();
    if (cached && at - cached.readAt < cacheMs) return cached.offsetMs;
    const row = await options.db
      .selectFrom('platforms')
      .select('clock_offset_ms')
      .where('id', '=', platformId)
      .executeTakeFirst();
    const offsetMs = row ? Number(row.clock_offset_ms) : 0;
    offsets.set(platformId, { offsetMs, readAt: at });
    return offsetMs;
  }

  return {
    async now(platformId) {
      if (!options.sandbox) return new Date(realNowMs());
      return new Date(realNowMs() + (await offsetOf(platformId)));
    },
    realNow: () => new Date(realNowMs()),
    invalidate: (platformId) => void offsets.delete(platformId),
  };
}
