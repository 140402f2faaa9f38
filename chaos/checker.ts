/**
 * The chaos run's checker: pure functions over the recorded history and a snapshot of the final
 * database state (read after the load stopped and the workers drained), Jepsen-style. It proves:
 *
 * - every acknowledged move is in the ledger exactly once (lost: not there; duplicated: twice);
 * - nothing moved that was never invoked, or that the service refused (phantom);
 * - an unknown move, retried with its key, took effect at most once (duplicated otherwise);
 * - an agent's spend likewise, with its approval: acknowledged APPROVED at once, or waiting then
 *   approved by the platform, it is in the ledger exactly once; waiting and never approved (or
 *   approved into FAILED), not at all (phantom: money an agent moved without the approval);
 * - postings sum to zero per currency and per entry, each balance equals its postings, and the
 *   project's own reconcile() found nothing (ledgerImbalance);
 * - no account that may not go negative is below zero (negativeBalances);
 * - money is conserved (the Jepsen bank test): per currency, what the accounts hold equals the
 *   funding the clients' effective operations brought in, less what the ledger sent out;
 * - every event of a committed move was delivered at least once (undeliveredEvents), and no event
 *   was received that the database never committed (counted as phantom).
 */
import { MOVES, type Op } from './history.js';

export interface Snapshot {
  transactions: { id: string; kind: string; status: string; description: string | null; quoteId: string | null }[];
  cardTransactions: { id: string; descriptor: string; accountId: string; status: string }[];
  entries: { id: string; kind: string; transactionId: string | null }[];
  postings: { entryId: string; accountId: string; currency: string; amount: bigint }[];
  accounts: { id: string; purpose: string; currency: string; totalMinor: bigint; heldMinor: bigint; mayGoNegative: boolean }[];
  /** Every event the service committed (TEST events, which are never retried, are not required to arrive). */
  events: { id: string; type: string }[];
  /** Every event id the webhook receivers were sent (once per receipt). */
  received: string[];
  /** What the project's reconcile() reported on the final database. */
  reconcile: { check: string; detail: string }[];
}

export interface Finding {
  kind: 'lost' | 'duplicated' | 'phantom' | 'ledgerImbalance' | 'negativeBalances' | 'undeliveredEvents';
  detail: string;
}

export interface Verdict {
  acknowledged: number;
  unknown: number;
  /** Unknown moves that the final state shows took effect (once). */
  unknownApplied: number;
  lost: number;
  duplicated: number;
  phantom: number;
  ledgerImbalance: number;
  negativeBalances: number;
  undeliveredEvents: number;
  findings: Finding[];
  valid: boolean;
}

/** A ledger entry kind that clears a card transaction (what a card-clear operation books). */
export const isClearingKind = (kind: string) => /CLEARING/.test(kind) && !/CREDIT/.test(kind);

/** The records in the final state that carry one move's effect. */
function effectsOf(op: Op, s: Snapshot, entriesByTransaction: Map<string, Snapshot['entries']>): string[] {
  switch (op.kind) {
    case 'fund':
    case 'transfer-out':
    case 'agent-transfer-out':
    case 'agent-approve':
      return op.tag ? s.transactions.filter((t) => t.description?.includes(op.tag!)).map((t) => t.id) : [];
    case 'card-auth':
      return op.tag ? s.cardTransactions.filter((c) => c.descriptor.includes(op.tag!)).map((c) => c.id) : [];
    case 'quote-execute':
      return op.quoteId ? s.transactions.filter((t) => t.quoteId === op.quoteId).map((t) => t.id) : [];
    case 'card-clear':
      return op.cardTransactionId ? (entriesByTransaction.get(op.cardTransactionId) ?? []).filter((e) => isClearingKind(e.kind)).map((e) => e.id) : [];
    default:
      return [];
  }
}

/** The ledger's bookkeeping accounts keep no running total: their balance is their postings (as in reconcile()). */
const bookkeeping = (accountId: string) => accountId.startsWith('LedgerAccount:');

/**
 * Moves whose acknowledgement means an entry was booked in the same transaction. Not a transfer out:
 * one held for compliance review, or refused by the rail, is acknowledged with no entry.
 */
const BOOKS_AT_ONCE: readonly string[] = ['fund', 'quote-execute'];

/**
 * How many times a move may have taken effect: a refusal none, an unknown at most once, an
 * acknowledgement exactly once, except an agent's: its spend acknowledged PENDING_APPROVAL moves money
 * only once the platform approves it (exactly once after an acknowledged approval, at most once
 * after an unknown one, never without), and an approval acknowledged FAILED moved nothing.
 */
function allowedEffects(op: Op, approvalsByTag: Map<string, Op[]>): { min: number; max: number; why?: string } {
  if (op.status === 'fail') return { min: 0, max: 0, why: `was refused (HTTP ${op.httpStatus})` };
  if (op.status === 'unknown') return { min: 0, max: 1 };
  if (op.kind === 'agent-approve' && op.actionStatus !== 'APPROVED') return { min: 0, max: 0, why: `was approved into ${op.actionStatus ?? 'no status'}` };
  if (op.kind === 'agent-transfer-out' && op.actionStatus !== 'APPROVED') {
    if (op.actionStatus !== 'PENDING_APPROVAL') return { min: 0, max: 0, why: `was acknowledged ${op.actionStatus ?? 'without a status'}` };
    const approvals = approvalsByTag.get(op.tag ?? '') ?? [];
    if (approvals.some((a) => a.status === 'ok' && a.actionStatus === 'APPROVED')) return { min: 1, max: 1 };
    if (approvals.some((a) => a.status === 'unknown')) return { min: 0, max: 1 };
    return { min: 0, max: 0, why: 'waited for an approval that the platform never gave' };
  }
  return { min: 1, max: 1 };
}

export function check(history: readonly Op[], s: Snapshot): Verdict {
  const findings: Finding[] = [];
  const add = (kind: Finding['kind'], detail: string) => findings.push({ kind, detail });
  const entriesByTransaction = new Map<string, Snapshot['entries']>();
  for (const e of s.entries) if (e.transactionId) entriesByTransaction.set(e.transactionId, [...(entriesByTransaction.get(e.transactionId) ?? []), e]);

  // Moves: each one's effect, found in the final state by what names it.
  const claimed = new Set<string>();
  const moves = history.filter((op) => MOVES.includes(op.kind));
  let unknownApplied = 0;
  const effective = new Map<number, string[]>();
  const approvalsByTag = new Map<string, Op[]>();
  for (const op of moves) if (op.kind === 'agent-approve' && op.tag) approvalsByTag.set(op.tag, [...(approvalsByTag.get(op.tag) ?? []), op]);
  for (const op of moves) {
    const effects = effectsOf(op, s, entriesByTransaction);
    for (const id of effects) claimed.add(id);
    effective.set(op.id, effects);
    const what = `${op.kind} #${op.id} key ${op.key}`;
    const allowed = allowedEffects(op, approvalsByTag);
    if (effects.length < allowed.min) add('lost', `${what} was acknowledged${op.actionStatus ? ` ${op.actionStatus}` : ''} but is not in the final state`);
    else if (op.status === 'ok' && BOOKS_AT_ONCE.includes(op.kind) && !effects.some((id) => (entriesByTransaction.get(id) ?? []).length > 0)) add('lost', `${what} was acknowledged but its transaction has no ledger entry`);
    if (allowed.max === 0 && effects.length > 0) add('phantom', `${what} ${allowed.why ?? ''} but took effect: ${effects.join(', ')}`);
    if (op.status === 'unknown' && effects.length > 0) unknownApplied++;
    if (effects.length > 1) add('duplicated', `${what} (${op.status}) took effect ${effects.length} times: ${effects.join(', ')}`);
  }
  // Within one move's transaction, no entry kind twice (a booking done again), clearings excepted (a card transaction may clear in parts).
  for (const [transactionId, entries] of entriesByTransaction) {
    const kinds = new Map<string, number>();
    for (const e of entries) if (!isClearingKind(e.kind)) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
    for (const [kind, n] of kinds) if (n > 1) add('duplicated', `transaction ${transactionId} has ${n} ${kind} entries`);
  }
  // Records and entries no operation explains.
  const invokedClears = new Set(moves.filter((op) => op.kind === 'card-clear').map((op) => op.cardTransactionId));
  // A quote the history created but never executed (its answer came only in the retry round, after
  // the client had moved on) keeps its own PENDING transaction: not a phantom while it booked nothing.
  const createdQuotes = new Set(history.filter((op) => op.kind === 'quote' && op.status === 'ok').map((op) => op.resultId));
  for (const t of s.transactions) if (t.quoteId && createdQuotes.has(t.quoteId) && !entriesByTransaction.has(t.id)) claimed.add(t.id);
  for (const t of s.transactions) {
    // A quote's payout may land as a second transaction carrying the same quote id; card transactions are listed here too.
    if (!claimed.has(t.id) && !s.cardTransactions.some((c) => c.id === t.id)) add('phantom', `transaction ${t.id} (${t.kind}, ${t.description ?? 'no description'}) was never invoked`);
  }
  for (const c of s.cardTransactions) if (!claimed.has(c.id)) add('phantom', `card transaction ${c.id} (${c.descriptor}) was never invoked`);
  const known = new Set([...s.transactions.map((t) => t.id), ...s.cardTransactions.map((c) => c.id)]);
  for (const e of s.entries) {
    if (e.transactionId === null || !known.has(e.transactionId)) add('phantom', `ledger entry ${e.id} (${e.kind}) belongs to no invoked move`);
    else if (isClearingKind(e.kind) && !invokedClears.has(e.transactionId)) add('phantom', `ledger entry ${e.id} clears ${e.transactionId}, which no client cleared`);
  }
  // Received events the database never committed: delivered before (or without) a commit.
  const committed = new Set(s.events.map((e) => e.id));
  for (const id of new Set(s.received)) if (!committed.has(id)) add('phantom', `event ${id} was received but never committed`);

  // The books.
  const byCurrency = new Map<string, bigint>();
  const byEntry = new Map<string, Map<string, bigint>>();
  const byAccount = new Map<string, bigint>();
  for (const p of s.postings) {
    byCurrency.set(p.currency, (byCurrency.get(p.currency) ?? 0n) + p.amount);
    const entry = byEntry.get(p.entryId) ?? new Map<string, bigint>();
    entry.set(p.currency, (entry.get(p.currency) ?? 0n) + p.amount);
    byEntry.set(p.entryId, entry);
    byAccount.set(p.accountId, (byAccount.get(p.accountId) ?? 0n) + p.amount);
  }
  for (const [currency, total] of byCurrency) if (total !== 0n) add('ledgerImbalance', `postings in ${currency} sum to ${total}, not 0`);
  for (const [entryId, sums] of byEntry) for (const [currency, total] of sums) if (total !== 0n) add('ledgerImbalance', `entry ${entryId} is off by ${total} ${currency}`);
  const balanceOf = (a: Snapshot['accounts'][number]) => (bookkeeping(a.id) ? (byAccount.get(a.id) ?? 0n) : a.totalMinor);
  for (const a of s.accounts) {
    const posted = byAccount.get(a.id) ?? 0n;
    if (!bookkeeping(a.id) && a.totalMinor !== posted) add('ledgerImbalance', `account ${a.id} holds ${a.totalMinor}, its postings sum to ${posted}`);
    const available = balanceOf(a) - a.heldMinor;
    if (!a.mayGoNegative && available < 0n) add('negativeBalances', `account ${a.id} (${a.purpose}) has ${available} ${a.currency} available`);
  }
  for (const v of s.reconcile) add(v.check === 'never negative' ? 'negativeBalances' : 'ledgerImbalance', `reconcile(): ${v.check}: ${v.detail}`);

  // Conservation (the Jepsen bank): what every non-external account holds, per currency, equals
  // the funding that the clients' effective fund operations brought in, less what left to external accounts otherwise.
  const purposeOf = new Map(s.accounts.map((a) => [a.id, a]));
  // Every incoming payment is a funding: its amount is taken from the client's history, never from the ledger.
  const fundEntries = new Set(s.entries.filter((e) => e.kind === 'INCOMING_PAYMENT').map((e) => e.id));
  const fundedIn = new Map<string, bigint>();
  for (const op of moves) {
    if (op.kind !== 'fund' || !op.currency || !op.amount) continue;
    const effects = effective.get(op.id) ?? [];
    fundedIn.set(op.currency, (fundedIn.get(op.currency) ?? 0n) + BigInt(op.amount) * BigInt(effects.length));
  }
  const heldInside = new Map<string, bigint>();
  const leftOtherwise = new Map<string, bigint>();
  for (const a of s.accounts) if (a.purpose !== 'EXTERNAL') heldInside.set(a.currency, (heldInside.get(a.currency) ?? 0n) + balanceOf(a));
  for (const p of s.postings) {
    if (purposeOf.get(p.accountId)?.purpose !== 'EXTERNAL' || fundEntries.has(p.entryId)) continue;
    // A posting to an external account: positive is money that left (a payout, a card spend), negative money that came in another way.
    leftOtherwise.set(p.currency, (leftOtherwise.get(p.currency) ?? 0n) + p.amount);
  }
  for (const currency of new Set([...heldInside.keys(), ...fundedIn.keys(), ...leftOtherwise.keys()])) {
    const expected = (fundedIn.get(currency) ?? 0n) - (leftOtherwise.get(currency) ?? 0n);
    const held = heldInside.get(currency) ?? 0n;
    if (held !== expected) add('ledgerImbalance', `money not conserved in ${currency}: accounts hold ${held}, funding in less money out is ${expected}`);
  }

  // Webhooks: every committed event delivered at least once.
  const got = new Set(s.received);
  for (const e of s.events) if (e.type !== 'TEST' && !got.has(e.id)) add('undeliveredEvents', `event ${e.id} (${e.type}) was never received`);

  const count = (kind: Finding['kind']) => findings.filter((f) => f.kind === kind).length;
  const verdict = {
    acknowledged: moves.filter((op) => op.status === 'ok').length,
    unknown: moves.filter((op) => op.status === 'unknown').length,
    unknownApplied,
    lost: count('lost'),
    duplicated: count('duplicated'),
    phantom: count('phantom'),
    ledgerImbalance: count('ledgerImbalance'),
    negativeBalances: count('negativeBalances'),
    undeliveredEvents: count('undeliveredEvents'),
    findings,
  };
  return { ...verdict, valid: findings.length === 0 };
}
