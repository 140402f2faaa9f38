import { defineError } from '../../core/errors.js';
import type { CardState } from './tables.js';

export const cardNotFound = defineError({ status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'CARD_NOT_FOUND', description: 'No card of this platform has the id' }, () => ({
  message: 'Card not found',
}));

export const cardTransactionNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'CARD_TRANSACTION_NOT_FOUND', description: 'No card transaction of this card has the id' },
  () => ({ message: 'Card transaction not found on this card' }),
);

export const cardholderNotApproved = defineError(
  { status: 400, code: 'CARDHOLDER_KYC_NOT_APPROVED', description: "The cardholder's KYC status is not APPROVED" },
  (customerId: string, kycStatus: string) => ({ message: `Cards are issued only to APPROVED customers; this one is ${kycStatus}`, details: { customerId, kycStatus } }),
);

export type IneligibleBecause = 'NOT_THE_CARDHOLDERS' | 'CURRENCY_NOT_CARD_ELIGIBLE' | 'CURRENCIES_DIFFER' | 'ACCOUNT_NOT_ACTIVE' | 'REFUSED_BY_ISSUER';

const INELIGIBLE_MESSAGES: Record<IneligibleBecause, string> = {
  NOT_THE_CARDHOLDERS: "A funding source must be one of the cardholder's internal accounts",
  CURRENCY_NOT_CARD_ELIGIBLE: 'A funding source must hold a card-eligible currency (cardConfig.eligibleCurrencies)',
  CURRENCIES_DIFFER: "All funding sources must hold the card's one currency",
  ACCOUNT_NOT_ACTIVE: 'A funding source must be an ACTIVE internal account',
  REFUSED_BY_ISSUER: 'The card issuer does not accept this account as a funding source',
};

export const fundingSourceIneligible = defineError(
  { status: 400, code: 'FUNDING_SOURCE_INELIGIBLE', description: "A funding source is not the cardholder's, not active, or not in the card's card-eligible currency" },
  (accountId: string, because: IneligibleBecause, currency: string) => ({ message: INELIGIBLE_MESSAGES[because], details: { accountId, because, currency } }),
);

export const invalidStateTransition = defineError(
  { status: 409, code: 'INVALID_STATE_TRANSITION', description: 'Cards move ACTIVE <-> FROZEN and ACTIVE | FROZEN -> CLOSED only (CLOSED -> ACTIVE, PROCESSING -> FROZEN, ... are refused)' },
  (from: CardState, to: string) => ({ message: `A card cannot move from ${from} to ${to}`, details: { from, to } }),
);

export const cardAlreadyClosed = defineError({ status: 409, code: 'CARD_ALREADY_CLOSED', description: 'state CLOSED was asked of a card that is already CLOSED' }, () => ({
  message: 'The card is closed',
}));

export const cardClosed = defineError({ status: 409, code: 'CONFLICT', reason: 'CARD_CLOSED', description: 'The card is closed: its details are no longer shown' }, () => ({
  message: 'The card is closed',
}));

export const cardNotMutable = defineError(
  { status: 409, code: 'CARD_NOT_MUTABLE', description: 'The card is CLOSED: its funding sources and limit can no longer change' },
  (state: CardState) => ({ message: `The card is ${state}; it can no longer change`, details: { state } }),
);

export const platformCardIdTaken = defineError(
  { status: 409, code: 'CONFLICT', reason: 'PLATFORM_CARD_ID_TAKEN', description: 'Another card of the platform has this platformCardId' },
  (platformCardId: string) => ({ message: `A card with platformCardId "${platformCardId}" already exists`, details: { field: 'platformCardId', platformCardId } }),
);

export const cardTransactionNotOpen = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CARD_TRANSACTION_NOT_OPEN', description: 'Clearings and advices need an AUTHORIZED or PARTIALLY_SETTLED card transaction' },
  (status: string) => ({ message: `The card transaction is ${status}; only an open (AUTHORIZED or PARTIALLY_SETTLED) one takes this`, details: { status } }),
);

export const nothingSettled = defineError(
  { status: 409, code: 'CONFLICT', reason: 'NOTHING_SETTLED', description: 'A return needs a card transaction with something settled and not yet refunded' },
  (status: string) => ({ message: 'Nothing settled on this card transaction can be returned', details: { status } }),
);

export const notRefunded = defineError(
  { status: 409, code: 'CONFLICT', reason: 'CARD_TRANSACTION_NOT_REFUNDED', description: 'A return reversal needs a REFUNDED card transaction' },
  (status: string) => ({ message: `The card transaction is ${status}; only a REFUNDED one can have its return reversed`, details: { status } }),
);

export const returnExceedsSettled = defineError(
  { status: 400, code: 'INVALID_AMOUNT', reason: 'EXCEEDS_NET_SETTLED', description: 'A return cannot exceed what was settled less what was already returned' },
  (amount: bigint, returnable: bigint) => ({ message: `At most ${returnable} can be returned`, details: { field: 'amount', amount, returnable } }),
);

export const adviceBelowSettled = defineError(
  { status: 400, code: 'INVALID_AMOUNT', reason: 'BELOW_SETTLED', description: 'An advice cannot size an authorization below what already settled' },
  (amount: bigint, settled: bigint) => ({ message: `The authorization cannot be sized below the ${settled} already settled`, details: { field: 'amount', amount, settled } }),
);

export const CARD_ERRORS = [
  cardNotFound,
  cardTransactionNotFound,
  cardholderNotApproved,
  fundingSourceIneligible,
  invalidStateTransition,
  cardAlreadyClosed,
  cardClosed,
  cardNotMutable,
  platformCardIdTaken,
  cardTransactionNotOpen,
  nothingSettled,
  notRefunded,
  returnExceedsSettled,
  adviceBelowSettled,
];
