import type { CustomerId, ExternalAccountId, QuoteId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { confirmEnrolment, deleteFactor, listFactors, startEnrolment, type ConfirmInput } from './factors.js';
import { completeLogin, recordEvent, startLogin, type LoginCompleteInput, type SecurityEventType } from './login.js';
import { authorizeQuote, holdForSca, resendQuoteCode } from './quote-authorization.js';
import { completeReset, decideLiveness, getReset, startReset } from './reset.js';
import type { Proof } from './schemas.js';
import type { ScaDeps } from './support.js';
import { confirmTrustChange, refuseDeletingTrusted, startTrustChange, type ConfirmProof } from './trust.js';
import type { QuoteExecution } from '../quotes/authorization.js';
import type { ScaFactorKind } from './tables.js';

export type ScaService = ReturnType<typeof createScaService>;

/** Strong customer authentication: the functions of this module bound to their dependencies. */
export function createScaService(deps: ScaDeps) {
  return {
    listFactors: (scope: Scope, customerId: CustomerId) => listFactors(deps, scope, customerId),
    startEnrolment: (uow: UnitOfWork, customerId: CustomerId, type: 'TOTP' | 'PASSKEY') => startEnrolment(deps, uow, customerId, type),
    confirmEnrolment: (scope: Scope, customerId: CustomerId, input: ConfirmInput) => confirmEnrolment(deps, scope, customerId, input),
    deleteFactor: (uow: UnitOfWork, customerId: CustomerId, credentialId: string) => deleteFactor(deps, uow, customerId, credentialId),
    startLogin: (uow: UnitOfWork, customerId: CustomerId, factor: ScaFactorKind) => startLogin(deps, uow, customerId, factor),
    completeLogin: (scope: Scope, customerId: CustomerId, input: LoginCompleteInput) => completeLogin(deps, scope, customerId, input),
    recordEvent: (uow: UnitOfWork, customerId: CustomerId, eventType: SecurityEventType) => recordEvent(deps, uow, customerId, eventType),
    startReset: (uow: UnitOfWork, customerId: CustomerId, factor: ScaFactorKind) => startReset(deps, uow, customerId, factor),
    getReset: (scope: Scope, customerId: CustomerId, resetId: string) => getReset(deps, scope, customerId, resetId),
    completeReset: (uow: UnitOfWork, customerId: CustomerId, resetId: string, mobile: { countryCode: string; number: string } | undefined) => completeReset(deps, uow, customerId, resetId, mobile),
    decideLiveness: (uow: UnitOfWork, resetId: string, result: 'PASSED' | 'REJECTED' | 'PENDING_REVIEW') => decideLiveness(uow, resetId, result),
    startTrustChange: (uow: UnitOfWork, externalAccountId: ExternalAccountId, purpose: 'TRUST' | 'UNTRUST') => startTrustChange(deps, uow, externalAccountId, purpose),
    confirmTrustChange: (scope: Scope, externalAccountId: ExternalAccountId, purpose: 'TRUST' | 'UNTRUST', proof: ConfirmProof) => confirmTrustChange(deps, scope, externalAccountId, purpose, proof),
    authorizeQuote: (scope: Scope, quoteId: QuoteId, proof: Proof) => authorizeQuote(deps, scope, quoteId, proof),
    resendQuoteCode: (uow: UnitOfWork, quoteId: QuoteId) => resendQuoteCode(deps, uow, quoteId),
    /** The `quote.execute` gate. */
    holdForSca: (uow: UnitOfWork, subject: QuoteExecution) => holdForSca(deps, uow, subject),
    /** The `externalAccount.delete` gate. */
    refuseDeletingTrusted,
  };
}
