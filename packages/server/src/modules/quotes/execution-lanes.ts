import type { InternalAccountId, PlatformId, QuoteId } from '../../core/ids.js';

/** At most this many quotes' accounts are kept (oldest forgotten first): about 10 MB. */
const MAX_REMEMBERED = 100_000;

/** Reads the account a quote of the platform debits (null: funded in real time; undefined: no such quote). */
export type SourceAccountRead = (platformId: PlatformId, quoteId: QuoteId) => Promise<InternalAccountId | null | undefined>;

/**
 * The group-commit lane of a quote's execution (db/group-commit.ts). `POST /quotes/{id}/execute`
 * names only the quote, and the account it debits is known once the quote is read, inside the unit;
 * a lane by quote id spread one account's executions over every lane, where their batches, each
 * holding the locks of several accounts, locked accounts in different orders and deadlocked
 * (PostgreSQL detects it after its deadlock_timeout, 1 s, and the victim unit runs again: the
 * stamped wallet executions' p99 of about 1 s in the bench). So an execution joins its source
 * account's lane, as the account's fundings, transfers and quote creations do, and the batch reads
 * the account ahead. The quotes this process created keep their account here; a quote it does not
 * know (made before a restart, by another process, or forgotten) has its account read once, by a
 * one-row read on the pool before the unit of work, and is then known too. A quote funded in real
 * time, an unknown one (the unit answers 404) or a read that fails lanes by the quote's id: a lane
 * is where a unit waits, never what it may do.
 */
export function createExecutionLanes(readSource: SourceAccountRead) {
  const sourceOf = new Map<QuoteId, InternalAccountId>();
  function remember(quoteId: QuoteId, accountId: InternalAccountId): void {
    if (sourceOf.size >= MAX_REMEMBERED) sourceOf.delete(sourceOf.keys().next().value!);
    sourceOf.set(quoteId, accountId);
  }
  return {
    remember,
    /** The lane, without a read: the account when known, else the quote's id (a promise only when it must read). */
    laneOf(platformId: PlatformId, quoteId: QuoteId): string | Promise<string> {
      return sourceOf.get(quoteId) ?? readLane(platformId, quoteId);
    },
  };

  async function readLane(platformId: PlatformId, quoteId: QuoteId): Promise<string> {
    try {
      const accountId = await readSource(platformId, quoteId);
      if (!accountId) return quoteId;
      remember(quoteId, accountId);
      return accountId;
    } catch {
      // The unit of work reads the quote again and answers what went wrong; its lane only changes its speed.
      return quoteId;
    }
  }
}
