import { uuidv7 } from '../lib/uuid7.js';

/**
 * Every identifier is `<Type>:<uuidv7>`, so ids sort by creation time and say what they name. The
 * types are the keys of this interface; a module adds its own by augmenting it, from its folder:
 *
 *   declare module '../../core/ids.js' {
 *     interface IdPrefixes { Tip: true }
 *   }
 */
export interface IdPrefixes {
  Platform: true;
  ApiToken: true;
  Customer: true;
  KycLink: true;
  Webhook: true;
  InternalAccount: true;
  ExternalAccount: true;
  Transaction: true;
  Quote: true;
  Card: true;
  CardTransaction: true;
  AuthMethod: true;
  Session: true;
  Request: true;
  LedgerEntry: true;
  LedgerAccount: true;
  Hold: true;
  Job: true;
  WebhookAttempt: true;
  WebhookKey: true;
  Agent: true;
  AgentAction: true;
  DelegatedKey: true;
  CardFundingSource: true;
}

export type IdPrefix = Extract<keyof IdPrefixes, string>;

declare const brand: unique symbol;
/** A branded id: a `CustomerId` cannot be passed where an `InternalAccountId` is expected. */
export type Id<P extends IdPrefix> = `${P}:${string}` & { readonly [brand]: P };

export type PlatformId = Id<'Platform'>;
export type ApiTokenId = Id<'ApiToken'>;
export type CustomerId = Id<'Customer'>;
export type KycLinkId = Id<'KycLink'>;
export type WebhookEventId = Id<'Webhook'>;
export type InternalAccountId = Id<'InternalAccount'>;
export type ExternalAccountId = Id<'ExternalAccount'>;
export type TransactionId = Id<'Transaction'>;
export type QuoteId = Id<'Quote'>;
export type CardId = Id<'Card'>;
export type CardTransactionId = Id<'CardTransaction'>;
export type LedgerAccountId = Id<'LedgerAccount'>;
export type LedgerEntryId = Id<'LedgerEntry'>;
export type HoldId = Id<'Hold'>;
export type JobId = Id<'Job'>;
export type WebhookAttemptId = Id<'WebhookAttempt'>;
export type WebhookKeyId = Id<'WebhookKey'>;
export type AgentId = Id<'Agent'>;
export type AgentActionId = Id<'AgentAction'>;
export type AuthMethodId = Id<'AuthMethod'>;
export type SessionId = Id<'Session'>;
export type RequestId = Id<'Request'>;
export type DelegatedKeyId = Id<'DelegatedKey'>;

/** Either side of a payment: an account the service holds, or one registered outside it. */
export type AccountId = InternalAccountId | ExternalAccountId;
/** Any account a ledger posting can name: an internal account or a bookkeeping account. */
export type PostingAccountId = InternalAccountId | LedgerAccountId;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export function newId<P extends IdPrefix>(prefix: P): Id<P> {
  return `${prefix}:${uuidv7()}` as Id<P>;
}

/** The JSON-Schema pattern of an id of one type; used for path parameters. */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}:${UUID}$`;
}

const PATTERNS = new Map<IdPrefix, RegExp>();

export function isId<P extends IdPrefix>(prefix: P, value: string): value is Id<P> {
  let pattern = PATTERNS.get(prefix);
  if (!pattern) PATTERNS.set(prefix, (pattern = new RegExp(idPattern(prefix))));
  return pattern.test(value);
}

/** True when `value` names an id of this type (by prefix only; the caller looks it up). */
export function hasPrefix<P extends IdPrefix>(prefix: P, value: string): value is Id<P> {
  return value.startsWith(`${prefix}:`);
}

export function uuidOf(id: string): string {
  return id.slice(id.indexOf(':') + 1);
}
