import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalidInput } from '../../core/errors.js';
import type { Routes } from '../../http/routes.js';
import { noRateForCurrency } from '../../fx/errors.js';
import { sandboxUmaSender } from '../../sandbox/uma-peer.js';
import { customerNotFound } from '../customers/errors.js';
import { Transaction } from '../transactions/schemas.js';
import { invalidUmaAddress, LOOKUP_ERRORS, umaCurrencyNotAccepted, umaNotFound } from './errors.js';
import { ReceiverUmaLookup, SandboxUmaReceiveRequest, UmaLookupParams, UmaLookupQuery } from './schemas.js';
import type { UmaService } from './service.js';
import type { PeerReply } from './receiver.js';

export function umaRoutes(r: Routes, { uma }: { uma: UmaService }): void {
  r.get(
    '/receiver/uma/:receiverUmaAddress',
    {
      schema: {
        tags: ['Cross-Currency Transfers'],
        summary: 'Look up a UMA address at its VASP: the currencies it accepts, estimated rates from the sender, limits, payer data it needs',
        description:
          'The receiver’s VASP is asked over UMA (a signed LNURL-p request; its signed answer is checked against the keys it publishes). Pass customerId or senderUmaAddress (the sender, one of this platform’s customers). The lookupId may be passed to POST /quotes with a UMA_ADDRESS destination (the quote asks the VASP again; nothing of a lookup is stored). 404 UMA_NOT_FOUND when the VASP has no such receiver, 424 when it cannot be reached or answers badly, 400 CERT_CHAIN_INVALID, INVALID_NONCE or INVALID_TIMESTAMP when its answer is not properly signed, fresh and new.',
        params: UmaLookupParams,
        querystring: UmaLookupQuery,
        response: { 200: ReceiverUmaLookup },
      },
      errors: [...LOOKUP_ERRORS, customerNotFound, noRateForCurrency],
    },
    (scope, req) => {
      if (req.query.customerId === undefined && req.query.senderUmaAddress === undefined) {
        throw invalidInput([{ field: 'customerId', message: 'customerId or senderUmaAddress is required: the sender is one of the platform’s customers' }]);
      }
      return uma.lookup(scope, req.params.receiverUmaAddress, req.query);
    },
  );
}

export function sandboxUmaRoutes(r: Routes, { uma }: { uma: UmaService }): void {
  r.post(
    '/sandbox/uma/receive',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate a sandbox UMA address paying one of the platform’s customers',
        description:
          'senderUmaAddress is a sandbox address: $success.<currency>@sandbox.grid.uma.money pays at once (COMPLETED, INCOMING_PAYMENT.COMPLETED); $pending.<currency>@sandbox.grid.uma.money waits for POST /transactions/{id}/approve or /reject (PENDING, INCOMING_PAYMENT.PENDING). The receiver is named by customerId or receiverUmaAddress and must hold an account in receivingCurrencyCode.',
        body: SandboxUmaReceiveRequest,
        response: { 200: Transaction },
      },
      errors: [invalidUmaAddress, umaNotFound, customerNotFound, umaCurrencyNotAccepted],
    },
    (uow, req) => {
      const behaviour = sandboxUmaSender(req.body.senderUmaAddress);
      if (!behaviour) throw umaNotFound(req.body.senderUmaAddress);
      return uma.receiveSimulated(
        uow,
        { senderUmaAddress: req.body.senderUmaAddress, receiverUmaAddress: req.body.receiverUmaAddress, customerId: req.body.customerId, currency: req.body.receivingCurrencyCode, amount: BigInt(req.body.receivingCurrencyAmount) },
        behaviour === 'await-approval',
      );
    },
  );
}

const host = (req: FastifyRequest): string => (req.headers.host ?? '').toLowerCase();
const send = (reply: { code(status: number): { send(body: unknown): unknown } }, answer: PeerReply) => reply.code(answer.status).send(answer.body);

/**
 * What other VASPs call, at the site's root and without API credentials (the host names the
 * platform by its umaDomain): the published keys, the LNURL-p lookup, the pay request callback and
 * the settlement. Hidden from the API reference: they are UMA's, not this API's.
 */
export function umaPublicEndpoints(app: FastifyInstance, { uma }: { uma: UmaService }): void {
  const config = { public: true };
  const schema = { hide: true };
  app.get('/.well-known/lnurlpubkey', { config, schema }, async (req, reply) => send(reply, await uma.receiver.publicKeys(host(req))));
  app.get('/.well-known/lnurlp/:user', { config, schema }, async (req, reply) => send(reply, await uma.receiver.lnurlp(host(req), req.url)));
  app.post<{ Params: { user: string } }>('/.well-known/uma/payreq/:user', { config, schema }, async (req, reply) =>
    send(reply, await uma.receiver.payRequest(host(req), req.params.user, JSON.stringify(req.body ?? null))),
  );
  app.post('/.well-known/uma/settle', { config, schema }, async (req, reply) => send(reply, await uma.receiver.settle(host(req), req.body ?? null)));
}
