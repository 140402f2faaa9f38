import formbody from '@fastify/formbody';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Routes } from '../../http/routes.js';
import { Customer, CustomerParams } from '../customers/schemas.js';
import { customerDeleted, customerNotFound } from '../customers/errors.js';
import { HostedParams, HostedSubmission, KycDecisionRequest, KycLink, KycLinkCreateRequest, KycLinkQuery } from './schemas.js';
import type { KycService } from './service.js';
import { contactVerificationRequired } from './errors.js';
import { alreadyApproved, linkProblem, submitted, verificationForm } from './page.js';

const tags = ['KYC/KYB Verifications'];

export function kycRoutes(r: Routes, { kyc }: { kyc: KycService }): void {
  r.post(
    '/customers/:customerId/kyc-link',
    {
      schema: {
        tags,
        summary: 'Create a single-use hosted verification link',
        params: CustomerParams,
        body: Type.Optional(KycLinkCreateRequest),
        response: { 201: KycLink },
      },
      status: 201,
      errors: [customerNotFound, customerDeleted, contactVerificationRequired],
    },
    (uow, req) => kyc.createLink(uow, req.params.customerId, req.body?.redirectUri),
  );

  r.get(
    '/customers/kyc-link',
    {
      schema: {
        tags,
        summary: 'Create a single-use hosted verification link (alias, older request shape)',
        description:
          'An alias of POST /customers/{customerId}/kyc-link for clients written against the older request shape, which passes the customer (and redirectUri) in the query. It does the same and answers the same body, with 200: each call issues a new single-use link. New clients should use the POST.',
        querystring: KycLinkQuery,
        response: { 200: KycLink },
      },
      // It issues a link, as the POST does: a read-only token may not.
      permission: 'TRANSACT',
      errors: [customerNotFound, customerDeleted, contactVerificationRequired],
    },
    // HEAD answers as GET does but issues no link (a HEAD changes nothing).
    (scope, req) => kyc.createLinkFor(scope, req.query.customerId, req.query.redirectUri, req.method !== 'HEAD'),
  );
}

export function sandboxKycRoutes(r: Routes, { kyc }: { kyc: KycService }): void {
  r.post(
    '/sandbox/customers/:customerId/kyc-decision',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate the verification provider deciding on a customer',
        params: CustomerParams,
        body: KycDecisionRequest,
        response: { 200: Customer },
      },
      errors: [customerNotFound, customerDeleted],
    },
    (uow, req) => kyc.decide(uow, req.params.customerId, req.body.status as never),
  );
}

/** The hosted verification page a person opens from a KYC link. No API credentials: the link is the key. */
export async function hostedKycPages(app: FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>, { kyc, sandbox }: { kyc: KycService; sandbox: boolean }): Promise<void> {
  await app.register(formbody);
  const pageHeaders = {
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'",
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  };

  app.get('/kyc/:token', { schema: { hide: true, params: HostedParams }, config: { public: true } }, async (req, reply) => {
    const link = await kyc.open(req.params.token);
    reply.headers(pageHeaders).type('text/html; charset=utf-8');
    if (link.state !== 'open') return reply.code(link.state === 'unknown' ? 404 : 410).send(linkProblem(link.state));
    const approved = link.customer.kycStatus === 'APPROVED' || link.customer.kybStatus === 'APPROVED';
    return reply.send(approved ? alreadyApproved() : verificationForm(link.customer.customerType, link.prefill, req.params.token, sandbox));
  });

  app.post(
    '/kyc/:token',
    { schema: { hide: true, params: HostedParams, body: HostedSubmission }, config: { public: true } },
    async (req, reply) => {
      const outcome = await kyc.submit(req.params.token, req.body);
      reply.headers(pageHeaders);
      if (outcome.state === 'undecided') {
        // Nothing recorded and the link still works: the form again, with what was entered.
        return reply.code(422).type('text/html; charset=utf-8').send(verificationForm(outcome.customerType, req.body, req.params.token, sandbox, true));
      }
      if (outcome.state !== 'decided') {
        return reply.code(outcome.state === 'unknown' ? 404 : 410).type('text/html; charset=utf-8').send(linkProblem(outcome.state));
      }
      if (outcome.redirectUri) return reply.redirect(outcome.redirectUri, 303);
      return reply.type('text/html; charset=utf-8').send(submitted(outcome.status));
    },
  );
}
