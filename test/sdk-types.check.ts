/**
 * Type-level tests of the SDK, checked by `npm run typecheck` (CI runs it before the suites): every
 * operation's success answer has a type (none is `unknown`), enums are unions of their values, and
 * a call's `data` is the body itself, not `T | undefined`. Each check has a canary beside it, marked
 * `@ts-expect-error`, which proves the check can fail: if a check stopped detecting anything, its
 * canary would compile and the expected error would be reported as unused.
 */
import type { paths } from '../packages/client/src/generated/schema.js';
import type { MonetaClient, SuccessBody } from '../packages/client/src/index.js';

type Methods = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type SuccessBodies<O> = O extends { responses: infer R } ? JsonBody<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type IsUnknown<T> = unknown extends T ? true : false;
/** The operations of a paths type whose success answer is typed `unknown`. */
type UnknownAnswers<Paths> = {
  [P in keyof Paths]-?: {
    [M in Methods]-?: M extends keyof Paths[P] ? ([NonNullable<Paths[P][M]>] extends [never] ? never : IsUnknown<SuccessBodies<NonNullable<Paths[P][M]>>> extends true ? { path: P; method: M } : never) : never;
  }[Methods];
}[keyof Paths];

type None<T extends never> = T;
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type True<T extends true> = T;

export type EveryAnswerIsTyped = None<UnknownAnswers<paths>>;
// @ts-expect-error canary: an operation answering `unknown` is reported
export type CanaryUnknownAnswer = None<UnknownAnswers<{ '/x': { get: { responses: { 200: { content: { 'application/json': unknown } } } } } }>>;

type Customer = SuccessBody<'/customers/{customerId}', 'get'>;
export type CustomerTypeIsAUnion = True<Exactly<Customer['customerType'], 'INDIVIDUAL' | 'BUSINESS'>>;
export type KycStatusIsAUnion = True<Exactly<Customer['kycStatus'], 'UNVERIFIED' | 'PENDING' | 'APPROVED' | 'REJECTED' | 'HOLD' | undefined>>;
// @ts-expect-error canary: a widened enum is not exactly its union
export type CanaryWidenedEnum = True<Exactly<string, 'INDIVIDUAL' | 'BUSINESS'>>;

type AnyTransaction = SuccessBody<'/transactions/{transactionId}', 'get'>;
export type TransactionIsADiscriminatedUnion = True<Exactly<AnyTransaction['type'], 'INCOMING' | 'OUTGOING' | 'CARD'>>;
export type CardSimulationIsTyped = True<IsUnknown<SuccessBody<'/sandbox/cards/{id}/simulate/authorization', 'post'>> extends true ? false : true>;

type DataOf<R> = R extends Promise<{ data: infer D }> ? D : never;
type CustomerCall = DataOf<ReturnType<typeof getCustomer>>;
declare const moneta: MonetaClient;
export function getCustomer() {
  return moneta.GET('/customers/{customerId}', { params: { path: { customerId: 'Customer:x' } } });
}
export type DataIsNeverUndefined = True<undefined extends CustomerCall ? false : true>;
export type DataIsTheBody = True<Exactly<CustomerCall, Customer>>;
type NoContent = DataOf<ReturnType<typeof deleteToken>>;
export function deleteToken() {
  return moneta.DELETE('/tokens/{tokenId}', { params: { path: { tokenId: 'Token:x' } } });
}
export type NoContentIsUndefined = True<Exactly<NoContent, undefined>>;
// @ts-expect-error canary: openapi-fetch's own `data` may be undefined
export type CanaryOptionalData = True<undefined extends Customer | undefined ? false : true>;
