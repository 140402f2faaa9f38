import type { InternalAccountId } from '../core/ids.js';

/** Money outside the service: a bank or wallet a payment came from or goes to, or a real-time payer. */
export const OUTSIDE = 'OUTSIDE';
/** Either end of a move: an internal account, or the outside world. */
export type Party = InternalAccountId | typeof OUTSIDE;

/** Where a leg of a move lands: an internal account, or one of the platform's own accounts by role. */
export type Leg = { account: Party | 'TRANSIT' | 'FX' | 'FEES' | 'PLATFORM'; currency: string; amount: bigint };

/**
 * A named money move, described: payment modules say what happens to the money, and the ledger
 * turns moves into balanced postings on the right accounts (ledger.book). Every move balances per
 * currency on its own, so any moves booked together make a balanced entry.
 */
export interface Move {
  readonly name: string;
  readonly legs: readonly Leg[];
}

function move(name: string, legs: Leg[]): Move {
  return { name, legs: legs.filter((leg) => leg.amount !== 0n) };
}

/** Money arrives from outside into an internal account (funding, a settled pull). */
export function receive(to: InternalAccountId, currency: string, amount: bigint): Move {
  return move('receive', [
    { account: OUTSIDE, currency, amount: -amount },
    { account: to, currency, amount },
  ]);
}

/** Money leaves an internal account for the outside at once (a card payment that cleared, a returned refund taken back). */
export function spend(from: InternalAccountId, currency: string, amount: bigint): Move {
  return move('spend', [
    { account: from, currency, amount: -amount },
    { account: OUTSIDE, currency, amount },
  ]);
}

/** Straight from one internal account to another, complete at once. */
export function transfer(from: InternalAccountId, to: InternalAccountId, currency: string, amount: bigint): Move {
  return move('transfer', [
    { account: from, currency, amount: -amount },
    { account: to, currency, amount },
  ]);
}

/** The sender is debited now; the money waits in transit until the payment settles or is refunded. */
export function debitIntoTransit(from: InternalAccountId, currency: string, amount: bigint): Move {
  return move('debitIntoTransit', [
    { account: from, currency, amount: -amount },
    { account: 'TRANSIT', currency, amount },
  ]);
}

/** The payment settled: money in transit reaches its destination (outside, or an internal account). */
export function settle(to: Party, currency: string, amount: bigint): Move {
  return move('settle', [
    { account: 'TRANSIT', currency, amount: -amount },
    { account: to, currency, amount },
  ]);
}

/** The payment failed or was cancelled: money in transit goes back to the sender. */
export function refund(to: InternalAccountId, currency: string, amount: bigint): Move {
  return move('refund', [
    { account: 'TRANSIT', currency, amount: -amount },
    { account: to, currency, amount },
  ]);
}

/**
 * A conversion into transit: the sender pays `total` in the sending currency; the principal goes to
 * the conversion desk (FX) and the fees wait in transit; the desk pays `amount` of the receiving
 * currency into transit for the receiver.
 */
export function convert(input: { from: Party; sending: { currency: string; total: bigint; principal: bigint }; receiving: { currency: string; amount: bigint } }): Move {
  const { from, sending, receiving } = input;
  return move('convert', [
    { account: from, currency: sending.currency, amount: -sending.total },
    { account: 'FX', currency: sending.currency, amount: sending.principal },
    { account: 'FX', currency: receiving.currency, amount: -receiving.amount },
    { account: 'TRANSIT', currency: receiving.currency, amount: receiving.amount },
    { account: 'TRANSIT', currency: sending.currency, amount: sending.total - sending.principal },
  ]);
}

/** Fees waiting in transit go to their owners: the service's to FEES, the platform's to its own internal account. */
export function collectFees(currency: string, fees: { service: bigint; platform: bigint }): Move {
  return move('collectFees', [
    { account: 'TRANSIT', currency, amount: -(fees.service + fees.platform) },
    { account: 'FEES', currency, amount: fees.service },
    { account: 'PLATFORM', currency, amount: fees.platform },
  ]);
}

/**
 * A settled conversion comes back (the beneficiary's bank returned it): the receiver's amount goes
 * back to the desk, and the desk gives the sender its principal at the locked rate; fees stay earned.
 */
export function returnConversion(input: { from: Party; to: Party; receiving: { currency: string; amount: bigint }; sending: { currency: string; principal: bigint } }): Move {
  const { from, to, receiving, sending } = input;
  return move('returnConversion', [
    { account: from, currency: receiving.currency, amount: -receiving.amount },
    { account: 'FX', currency: receiving.currency, amount: receiving.amount },
    { account: 'FX', currency: sending.currency, amount: -sending.principal },
    { account: to, currency: sending.currency, amount: sending.principal },
  ]);
}

/** The exact opposite of a move: what it did, undone. */
export function reverse(original: Move): Move {
  return { name: `reverse(${original.name})`, legs: original.legs.map((leg) => ({ ...leg, amount: -leg.amount })) };
}
