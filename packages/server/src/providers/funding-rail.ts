import type { FundingInstructionRecord } from '../db/schema.js';
import { notImplemented } from '../core/errors.js';

/**
 * Where money comes in from: the payment instructions an internal account (or a real-time funded
 * quote) shows, so a sender can pay into it. The sandbox makes up valid-looking bank numbers and
 * wallet addresses; production shows none until an operator configures a rail.
 */
export interface FundingRail {
  readonly name: string;
  /** Standing instructions of an internal account; empty when the rail has none for the currency. */
  accountInstructions(currency: string, reference: string, holderName: string): FundingInstructionRecord[];
  /** Throws when a real-time funded quote cannot be paid in this currency (checked when it is created). */
  acceptsRealtime(currency: string): void;
  /** Instructions for paying one real-time funded quote. */
  quoteInstructions(currency: string, reference: string, payerName: string): FundingInstructionRecord[];
}

function noRealtimeFunding(): never {
  throw notImplemented('No real-time funding rail is configured on this installation', 'FUNDING_RAIL');
}

export const unconfiguredFundingRail: FundingRail = { name: 'unconfigured', accountInstructions: () => [], acceptsRealtime: noRealtimeFunding, quoteInstructions: noRealtimeFunding };
