import type { InternalAccountId, QuoteId } from '../../core/ids.js';

/** At most this many quotes' accounts are kept (oldest forgotten first): about 10 MB. */
const MAX_REMEMBERED = 100_000;

/**
 * The group-commit lane of a quote's execution (db/group-commit.ts). `POST /quotes/{id}/execute`
 * names only the quote, and the account it debits is known once the quote is read, inside the unit;
 * a lane by quote id spread one account's executions over every lane, where their batches, each
 * holding the locks of several accounts, locked accounts in different orders and deadlocked
 * (PostgreSQL detects it after its deadlock_timeout, 1 s, and the victim unit runs again: the
 * stamped wallet executions' p99 of about 1 s in the bench). The quotes this process created keep
 * their source account here, so their execution joins the account's lane, as its fundings,
 * transfers and quote creations do, and the batch reads the account ahead. A quote made by another
 * process, or forgotten, still lanes by its id, as before: a lane is where a unit waits, never what
 * it may do.
 */
export function createExecutionLanes() {
  const sourceOf = new Map<QuoteId, InternalAccountId>();
  return {
    remember(quoteId: QuoteId, accountId: InternalAccountId): void {
      if (sourceOf.size >= MAX_REMEMBERED) sourceOf.delete(sourceOf.keys().next().value!);
      sourceOf.set(quoteId, accountId);
    },
    laneOf(quoteId: QuoteId): string {
      return sourceOf.get(quoteId) ?? quoteId;
    },
  };
}
