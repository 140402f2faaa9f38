import type { Static } from 'typebox';
import type { ErrorBody, FieldError } from '../packages/server/src/core/errors.js';
import type { EventEnvelope } from '../packages/server/src/core/events.js';
import type { Id, IdPrefix } from '../packages/server/src/core/ids.js';
import type { listOf, SignedRequestChallenge as SignedChallengeSchema } from '../packages/server/src/http/schema-kit.js';
import type * as cards from '../packages/server/src/modules/cards/schemas.js';
import type * as accounts from '../packages/server/src/modules/accounts/schemas.js';
import type * as customers from '../packages/server/src/modules/customers/schemas.js';
import type * as exchangeRates from '../packages/server/src/modules/exchange-rates/schemas.js';
import type * as externalAccounts from '../packages/server/src/modules/external-accounts/schemas.js';
import type * as kyc from '../packages/server/src/modules/kyc/schemas.js';
import type * as platforms from '../packages/server/src/modules/platforms/schemas.js';
import type * as quotes from '../packages/server/src/modules/quotes/schemas.js';
import type * as receiver from '../packages/server/src/modules/receiver/schemas.js';
import type * as tokens from '../packages/server/src/modules/tokens/schemas.js';
import type * as transactions from '../packages/server/src/modules/transactions/schemas.js';
import type * as webhooks from '../packages/server/src/modules/webhooks/schemas.js';

/**
 * What the API's responses look like to a client reading JSON: the server's own TypeBox schemas,
 * converted to the wire. Amounts (`bigint` in TypeScript) are JSON integers, branded ids are plain
 * strings, dates are strings, and an object the schema leaves open (`additionalProperties`, no
 * properties) is a record of unknown values.
 */
export type Wire<T> = T extends bigint
  ? number
  : T extends Id<IdPrefix>
    ? string
    : T extends Date
      ? string
      : T extends readonly (infer U)[]
        ? Wire<U>[]
        : T extends object
          ? keyof T extends never
            ? Record<string, unknown>
            : { [K in keyof T]: Wire<T[K]> }
          : T;

/** An object the schema declares open (`additionalProperties: true`): its known fields, and any others. */
type Open<T> = T & Record<string, unknown>;

/** A page of a list (`GET /customers`, `/transactions`, `/tokens`, ...): schema-kit's `listOf`, with its items. */
export type List<T> = Omit<Wire<Static<ReturnType<typeof listOf>>>, 'data'> & { data: T[] };

/** Every error's body: the spec's shape (core/errors.ts), with the details the API puts there. */
export type ApiError = Omit<ErrorBody, 'details'> & { details?: ErrorDetails };
export interface ErrorDetails {
  /** The finer reason under a shared code: `QUOTE_EXPIRED`, `SELF_PAYMENT`, ... */
  reason?: string;
  /** The fields a 400 INVALID_INPUT (or INVALID_BANK_ACCOUNT) names. */
  errors?: FieldError[];
  [key: string]: unknown;
}
export type { FieldError };

export type Currency = Wire<Static<typeof accounts.CurrencySchema>>;
export type CurrencyAmount = Wire<Static<typeof accounts.CurrencyAmountSchema>>;
export type FundingInstruction = Omit<Wire<Static<typeof accounts.FundingInstruction>>, 'accountOrWalletInfo'> & {
  accountOrWalletInfo: Open<Wire<Static<typeof accounts.FundingInstruction>>['accountOrWalletInfo']>;
};
export type InternalAccount = Omit<Wire<Static<typeof accounts.InternalAccount>>, 'fundingPaymentInstructions'> & { fundingPaymentInstructions: FundingInstruction[] };
/** `GET /platform/internal-accounts`: the platform's own accounts, not paged. */
export type PlatformAccountList = { data: InternalAccount[] };

export type Customer = Wire<Static<typeof customers.Customer>>;

export type ExchangeRate = Wire<Static<typeof exchangeRates.ExchangeRate>>;
export type ExchangeRateList = Wire<Static<typeof exchangeRates.ExchangeRateList>>;

export type ExternalAccount = Omit<Wire<Static<typeof externalAccounts.ExternalAccount>>, 'accountInfo'> & {
  accountInfo: Open<Wire<Static<typeof externalAccounts.ExternalAccount>>['accountInfo']>;
};

export type KycLink = Wire<Static<typeof kyc.KycLink>>;

export type PlatformConfig = Wire<Static<typeof platforms.PlatformConfig>>;
export type SandboxClock = Wire<Static<typeof platforms.SandboxClock>>;

export type Quote = Omit<Wire<Static<typeof quotes.Quote>>, 'paymentInstructions'> & { paymentInstructions?: FundingInstruction[] };

export type ReceiverLookup = Wire<Static<typeof receiver.ReceiverExternalAccountLookup>>;

export type ApiToken = Wire<Static<typeof tokens.ApiToken>>;

export type Transaction = Omit<Wire<Static<typeof transactions.Transaction>>, 'reconciliationInstructions'> & {
  reconciliationInstructions?: Open<NonNullable<Wire<Static<typeof transactions.Transaction>>['reconciliationInstructions']>>;
};

export type WebhookEvent = Wire<Static<typeof webhooks.WebhookEvent>>;
export type WebhookAttempt = Wire<Static<typeof webhooks.WebhookAttempt>>;
export type SigningKeyList = Wire<Static<typeof webhooks.SigningKeyList>>;
export type TestWebhookResult = Wire<Static<typeof webhooks.TestWebhookResult>>;
/** A webhook as a platform receives it (and as the outbox records it). */
export type WebhookEnvelope<T = Record<string, unknown>> = Wire<EventEnvelope<T>>;

export type Card = Wire<Static<typeof cards.Card>>;
export type CardReveal = Wire<Static<typeof cards.CardRevealResponse>>;
export type CardTransaction = Wire<Static<typeof cards.CardTransaction>>;
export type CardDecline = Wire<Static<typeof cards.SimulationDeclined>>;
export type SignedRequestChallenge = Wire<Static<typeof SignedChallengeSchema>>;
