import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { customerNotFound } from '../customers/errors.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import { insufficientFunds } from '../../ledger/errors.js';
import { quoteExpired, quoteNotFound, quoteNotPendingAuthorization } from '../quotes/errors.js';
import { SPENDING_REFUSALS } from '../customers/errors.js';
import { dailyVolumeLimitExceeded } from '../transfers/limits.js';
import { Quote } from '../quotes/schemas.js';
import * as e from './errors.js';
import * as s from './schemas.js';
import type { ScaService } from './service.js';

const tags = ['Strong Customer Authentication'];
const sca = [customerNotFound, e.scaNotRequired];
const proof = [e.codeInvalid, e.codeExpired, e.proofMissing, e.passkeyInvalid];

/** Factors, login, security events and 2FA reset: every route names its customer in the query. */
export function scaRoutes(r: Routes, { sca: service }: { sca: ScaService }): void {
  r.get('/sca/factors', { schema: { tags, summary: 'List the customer’s enrolled SCA factors', querystring: s.CustomerQuery, response: { 200: s.ScaFactorList } }, errors: sca }, (scope, req) =>
    service.listFactors(scope, req.query.customerId),
  );
  r.post(
    '/sca/factors',
    {
      schema: { tags, summary: 'Start enrolling a TOTP or passkey factor', querystring: s.CustomerQuery, body: s.ScaFactorEnrollRequest, response: { 200: s.ScaFactorEnrollStart } },
      errors: [...sca, e.passkeyAlreadyEnrolled, e.totpAlreadyEnrolled],
    },
    (uow, req) => service.startEnrolment(uow, req.query.customerId, req.body.type),
  );
  r.postOutsideTransaction(
    '/sca/factors/confirm',
    {
      schema: {
        tags,
        summary: 'Confirm a factor enrolment (TOTP: the secret and the first code; PASSKEY: the credential and its origin)',
        description: 'A TOTP confirmation returns one-time recovery codes, shown once. In the sandbox the TOTP code 123456 is also accepted.',
        querystring: s.CustomerQuery,
        body: s.ScaFactorConfirmRequest,
        response: { 200: s.ScaFactorConfirmResponse },
      },
      errors: [...sca, e.codeInvalid, e.codeExpired, e.passkeyInvalid, e.passkeyAlreadyEnrolled, e.totpAlreadyEnrolled],
    },
    (scope, req) => service.confirmEnrolment(scope, req.query.customerId, req.body),
  );
  r.delete(
    '/sca/factors/:credentialId',
    { schema: { tags, summary: 'Delete the customer’s passkey factor', querystring: s.CustomerQuery, params: s.CredentialParams, response: { 204: Type.Null() } }, errors: [...sca, e.factorNotFound] },
    async (uow, req) => {
      await service.deleteFactor(uow, req.query.customerId, req.params.credentialId);
      return null;
    },
  );
  r.post(
    '/sca/login/start',
    {
      schema: { tags, summary: 'Start an SCA login with a factor', querystring: s.CustomerQuery, body: s.ScaLoginStartRequest, response: { 200: s.ScaLoginStart } },
      errors: [...sca, e.factorNotEnrolled, e.smsNotConfigured],
    },
    (uow, req) => service.startLogin(uow, req.query.customerId, req.body.factor),
  );
  r.postOutsideTransaction(
    '/sca/login/complete',
    {
      schema: {
        tags,
        summary: 'Complete an SCA login: the proof opens the customer’s SCA session',
        description: 'Wrong codes count toward the lockout (5 → 15 min, 6 → 30 min, 7 → 1 h, 8 → 24 h, 9 → suspended; 423 ACCOUNT_LOCKED). In the sandbox the code 123456 is accepted.',
        querystring: s.CustomerQuery,
        body: s.ScaLoginCompleteRequest,
        response: { 200: s.ScaLoginComplete },
      },
      errors: [...sca, ...proof, e.codeBurnt, e.accountLocked, e.factorNotEnrolled, e.challengeMismatch],
    },
    (scope, req) => service.completeLogin(scope, req.query.customerId, req.body),
  );
  r.post(
    '/sca/record-event',
    {
      schema: { tags, summary: 'Record a security event for the customer', querystring: s.CustomerQuery, body: s.RecordSecurityEventRequest, response: { 200: s.RecordSecurityEventResponse } },
      errors: [...sca, e.accountLocked],
    },
    (uow, req) => service.recordEvent(uow, req.query.customerId, req.body.eventType),
  );
  r.post(
    '/sca/factors/reset',
    {
      schema: { tags, summary: 'Start a liveness-gated 2FA reset', querystring: s.CustomerQuery, body: s.TwoFactorResetStartRequest, response: { 201: s.TwoFactorResetStart } },
      status: 201,
      errors: [...sca, e.factorNotEnrolled, e.tooManyResets],
    },
    (uow, req) => service.startReset(uow, req.query.customerId, req.body.factor),
  );
  r.get(
    '/sca/factors/reset/:resetId',
    { schema: { tags, summary: 'Get a 2FA reset’s status', querystring: s.CustomerQuery, params: s.ResetParams, response: { 200: s.TwoFactorResetStatus } }, errors: [...sca, e.resetNotFound] },
    (scope, req) => service.getReset(scope, req.query.customerId, req.params.resetId),
  );
  r.post(
    '/sca/factors/reset/:resetId/complete',
    {
      schema: {
        tags,
        summary: 'Complete a 2FA reset once liveness passed',
        querystring: s.CustomerQuery,
        params: s.ResetParams,
        body: Type.Optional(s.TwoFactorResetCompleteRequest),
        response: { 204: Type.Null() },
      },
      status: 204,
      errors: [...sca, e.resetNotFound, e.resetNotReady, e.mobileRequired],
    },
    async (uow, req) => {
      await service.completeReset(uow, req.query.customerId, req.params.resetId, req.body?.mobile);
      return null;
    },
  );
}

/** Trusted beneficiaries and quote authorization. */
export function scaActionRoutes(r: Routes, { sca: service }: { sca: ScaService }): void {
  for (const purpose of ['TRUST', 'UNTRUST'] as const) {
    const verb = purpose === 'TRUST' ? 'trust' : 'untrust';
    r.post(
      `/customers/external-accounts/:externalAccountId/${verb}`,
      {
        schema: { tags, summary: `Start ${verb}ing a beneficiary: the challenge to confirm with`, params: s.ExternalAccountParams, response: { 200: s.BeneficiaryTrustStart } },
        errors: [externalAccountNotFound, ...sca, e.factorNotEnrolled, e.smsNotConfigured],
      },
      (uow, req) => service.startTrustChange(uow, req.params.externalAccountId, purpose),
    );
    r.postOutsideTransaction(
      `/customers/external-accounts/:externalAccountId/${verb}/confirm`,
      {
        schema: {
          tags,
          summary: `Confirm ${verb}ing a beneficiary with the challenge’s proof`,
          description: 'In the sandbox the code 123456 is accepted.',
          params: s.ExternalAccountParams,
          body: s.BeneficiaryTrustConfirmRequest,
          response: { 200: s.BeneficiaryTrustConfirm },
        },
        errors: [externalAccountNotFound, ...sca, ...proof, e.codeBurnt, e.challengeMismatch],
      },
      (scope, req) => service.confirmTrustChange(scope, req.params.externalAccountId, purpose, req.body),
    );
  }
  r.postOutsideTransaction(
    '/quotes/:quoteId/authorize',
    {
      schema: {
        tags,
        summary: 'Authorize a quote waiting in PENDING_AUTHORIZATION: it executes',
        description:
          'Needs a live SCA login session (409 SCA_SESSION_REQUIRED). A wrong code is 400; after 3 on one code, 429 RATE_LIMITED until a new code is sent; the customer’s lockout answers 423 ACCOUNT_LOCKED. Concurrent authorizations execute the quote once. In the sandbox the code 123456 is accepted.',
        params: s.QuoteParams,
        body: s.ScaAuthorization,
        response: { 200: Quote },
      },
      errors: [quoteNotFound, quoteExpired, quoteNotPendingAuthorization, ...sca, ...proof, e.challengeBurnt, e.accountLocked, e.scaSessionRequired, ...SPENDING_REFUSALS, insufficientFunds, dailyVolumeLimitExceeded],
    },
    (scope, req) => service.authorizeQuote(scope, req.params.quoteId, req.body),
  );
  r.post(
    '/quotes/:quoteId/authorize/resend',
    {
      schema: { tags, summary: 'Send a new code for a quote’s SMS challenge (same challenge, same expiry)', params: s.QuoteParams, response: { 204: Type.Null() } },
      status: 204,
      errors: [quoteNotFound, quoteNotPendingAuthorization, ...sca, e.notResendable, e.resendTooSoon, e.smsNotConfigured],
    },
    async (uow, req) => {
      await service.resendQuoteCode(uow, req.params.quoteId);
      return null;
    },
  );
}

export function sandboxScaRoutes(r: Routes, { sca: service }: { sca: ScaService }): void {
  r.post(
    '/sandbox/sca/factors/reset/:resetId/liveness',
    {
      schema: { tags: ['Sandbox'], summary: 'Simulate the liveness verdict of a 2FA reset', params: s.ResetParams, body: s.SandboxLivenessRequest, response: { 200: s.TwoFactorResetStatus } },
      errors: [e.resetNotFound, e.resetNotReady],
    },
    (uow, req) => service.decideLiveness(uow, req.params.resetId, req.body.result),
  );
}
