import { v7 as uuidv7 } from 'uuid';

/** Every identifier is `<Type>:<uuidv7>`, so ids sort by creation time and say what they name. */
export type IdPrefix =
  | 'Platform'
  | 'ApiToken'
  | 'Customer'
  | 'KycLink'
  | 'Webhook'
  | 'InternalAccount'
  | 'ExternalAccount'
  | 'Transaction'
  | 'Quote'
  | 'Card'
  | 'CardTransaction'
  | 'AuthMethod'
  | 'Session'
  | 'Request'
  | 'LedgerEntry'
  | 'LedgerAccount'
  | 'Hold'
  | 'Job'
  | 'WebhookAttempt'
  | 'WebhookKey';

declare const brand: unique symbol;
export type Id<P extends IdPrefix> = `${P}:${string}` & { readonly [brand]: P };

export type PlatformId = Id<'Platform'>;
export type CustomerId = Id<'Customer'>;
export type ApiTokenId = Id<'ApiToken'>;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export function newId<P extends IdPrefix>(prefix: P): Id<P> {
  return `${prefix}:${uuidv7()}` as Id<P>;
}

/** The JSON-Schema pattern of an id of one type; used for path parameters. */
export function idPattern(prefix: IdPrefix): string {
  return `^${prefix}:${UUID}$`;
}

export function isId<P extends IdPrefix>(prefix: P, value: string): value is Id<P> {
  return new RegExp(idPattern(prefix)).test(value);
}

export function uuidOf(id: string): string {
  return id.slice(id.indexOf(':') + 1);
}
