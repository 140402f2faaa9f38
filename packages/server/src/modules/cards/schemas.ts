import { Type } from 'typebox';
import { Id, ListQuery, listOf, MinorUnits, RequestAmount, Timestamp } from '../../http/schema-kit.js';
import { CurrencyAmountSchema } from '../accounts/schemas.js';
import { CARD_STATES } from './states.js';

export const CardState = Type.String({ enum: [...CARD_STATES] });

export const Card = Type.Object({
  id: Type.String(),
  cardholderId: Type.String(),
  platformCardId: Type.String(),
  state: CardState,
  stateReason: Type.Union([Type.String({ enum: ['ISSUER_REJECTED', 'CLOSED_BY_PLATFORM', 'CLOSED_BY_SERVICE'] }), Type.Null()]),
  brand: Type.String({ enum: ['VISA', 'MASTERCARD'] }),
  form: Type.String({ enum: ['VIRTUAL'] }),
  last4: Type.String({ pattern: '^[0-9]{4}$' }),
  expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
  expYear: Type.Integer(),
  fundingSources: Type.Array(Type.String()),
  maxSpendPerTransaction: Type.Union([Type.Integer({ format: 'int64', minimum: 1 }), Type.Null()], {
    description: "The largest amount one card transaction may authorize, in the smallest unit of the card's currency (exactly this amount is allowed); null: no limit",
  }),
  currency: Type.String(),
  processorRef: Type.String(),
  issuerRef: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

const FundingSources = Type.Array(Id('InternalAccount'), { minItems: 1, maxItems: 10, uniqueItems: true, description: 'Internal account ids in priority order: the first that covers an authorization funds it' });

export const CardCreateRequest = Type.Object(
  {
    cardholderId: Id('Customer'),
    platformCardId: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "The platform's own id for the card; generated when omitted" })),
    form: Type.String({ enum: ['VIRTUAL'] }),
    fundingSources: FundingSources,
    maxSpendPerTransaction: Type.Optional(RequestAmount({ minimum: 1, description: "The largest amount one card transaction may authorize, in the smallest unit of the card's currency; omit it for no limit" })),
    threeDSecurePassword: Type.Optional(Type.String({ minLength: 8, maxLength: 64, description: 'Accepted for compatibility; the sandbox issuer has no static-password factor and does not keep it' })),
  },
  { additionalProperties: false },
);

export const CardUpdateRequest = Type.Object(
  {
    state: Type.Optional(Type.String({ enum: ['ACTIVE', 'FROZEN', 'CLOSED'] })),
    fundingSources: Type.Optional(FundingSources),
    maxSpendPerTransaction: Type.Optional(
      Type.Union([RequestAmount({ minimum: 1 }), Type.Null()], { description: 'Replaces the per-transaction limit: a positive amount sets it, null clears it, leaving it out keeps it' }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'At least one of state, fundingSources, maxSpendPerTransaction; neither fundingSources nor maxSpendPerTransaction with state CLOSED',
  },
);

export const CardListQuery = Type.Object(
  {
    ...ListQuery.properties,
    cardholderId: Type.Optional(Id('Customer')),
    accountId: Type.Optional(Id('InternalAccount')),
    platformCardId: Type.Optional(Type.String({ maxLength: 255 })),
    state: Type.Optional(CardState),
  },
  { additionalProperties: false },
);

export const CardList = listOf(Card);
export const CardParams = Type.Object({ id: Id('Card') });

export const CardRevealResponse = Type.Object({
  panEmbedUrl: Type.String({ format: 'uri', description: 'Single-use page showing number, expiry and CVV, for an iframe; never store or log it' }),
  expiresAt: Timestamp,
});

// Sandbox simulators.

const Merchant = Type.Object(
  {
    descriptor: Type.String({ minLength: 1, maxLength: 100 }),
    mcc: Type.Optional(Type.String({ pattern: '^[0-9]{4}$' })),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
  },
  { additionalProperties: false },
);

export const SimulateAuthorizationRequest = Type.Object(
  {
    amount: RequestAmount({ minimum: 1, description: "In the smallest unit of `currency`; another currency than the card's converts at the current rate" }),
    currency: Type.Object({ code: Type.String({ minLength: 3, maxLength: 8 }) }, { additionalProperties: true }),
    merchant: Merchant,
  },
  { additionalProperties: false },
);

export const SimulateBalanceInquiryRequest = Type.Object({ merchant: Merchant }, { additionalProperties: false });

export const SimulateClearingRequest = Type.Object(
  {
    cardTransactionId: Id('CardTransaction'),
    amount: RequestAmount({ minimum: 0, description: '0 expires the authorization: its hold is released and nothing is cleared' }),
  },
  { additionalProperties: false },
);

export const SimulateAmountRequest = Type.Object(
  { cardTransactionId: Id('CardTransaction'), amount: RequestAmount({ minimum: 1 }) },
  { additionalProperties: false },
);

export const SimulateReferenceRequest = Type.Object({ cardTransactionId: Id('CardTransaction') }, { additionalProperties: false });

/** A declined authorization: nothing is held and no card transaction is created. */
export const SimulationDeclined = Type.Object({
  issuerTransactionToken: Type.String(),
  declineReason: Type.String({ enum: ['INSUFFICIENT_FUNDS', 'CARD_PAUSED', 'CARD_CLOSED', 'CARD_NOT_ACTIVATED', 'CARDHOLDER_NOT_READY', 'CARD_SPEND_LIMIT_EXCEEDED'] }),
});

export const CARD_TRANSACTION_STATUSES = ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'EXCEPTION'] as const;

const CountAndTotal = Type.Object({ count: Type.Integer(), totalAmount: MinorUnits });

/**
 * A card transaction: the parent of an authorization and every pull, clearing and return against
 * it, with their aggregates. Listed among transactions with `type: CARD` (the module's payment listing).
 */
export const CardTransaction = Type.Object({
  type: Type.Literal('CARD'),
  id: Type.String(),
  cardId: Type.String(),
  customerId: Type.String(),
  platformCustomerId: Type.String(),
  issuerTransactionToken: Type.String(),
  status: Type.String({ enum: ['AUTHORIZED', 'PARTIALLY_SETTLED', 'SETTLED', 'REFUNDED', 'EXCEPTION'] }),
  direction: Type.String({ enum: ['CREDIT', 'DEBIT'] }),
  merchant: Type.Object({ descriptor: Type.String(), mcc: Type.Optional(Type.String()), country: Type.Optional(Type.String()) }),
  authorizedAmount: CurrencyAmountSchema,
  settledAmount: CurrencyAmountSchema,
  refundedAmount: CurrencyAmountSchema,
  accountId: Type.String(),
  pullSummary: Type.Object({ count: Type.Integer(), totalAmount: MinorUnits, pendingCount: Type.Integer() }),
  settlementSummary: CountAndTotal,
  refundSummary: CountAndTotal,
  authorizedAt: Timestamp,
  lastEventAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
