import type { ApiApp } from '../../http/types.js';
import type { RunIdempotent } from '../../http/idempotency.js';
import type { Clock } from '../../lib/clock.js';
import { errorResponses, errorResponsesWithoutRail } from '../../http/schema-kit.js';
import { Transaction } from '../transactions/schemas.js';
import { Quote, QuoteParams, QuoteRequest, SandboxSendRequest } from './schemas.js';
import type { QuoteService } from './service.js';

const tags = ['Cross-Currency Transfers'];

export function registerQuoteRoutes(app: ApiApp, { quotes, clock, idempotent }: { quotes: QuoteService; clock: Clock; idempotent: RunIdempotent }) {
  app.post(
    '/quotes',
    {
      schema: {
        tags,
        summary: 'Lock an exchange rate and fees for a transfer',
        description:
          'The quote holds its rate and fees until expiresAt. With immediatelyExecute it executes at once (status PROCESSING). A REALTIME_FUNDING source returns paymentInstructions to pay it in.',
        body: QuoteRequest,
        response: { 201: Quote, ...errorResponsesWithoutRail },
      },
    },
    (req, reply) => idempotent(req, reply, 201, (ctx) => quotes.create(ctx, req.body)),
  );

  app.get(
    '/quotes/:quoteId',
    { schema: { tags, summary: 'Get a quote', params: QuoteParams, response: { 200: Quote, ...errorResponses } } },
    async (req) => quotes.get(req.auth!.platformId, req.params.quoteId, await clock.now(req.auth!.platformId)),
  );

  app.post(
    '/quotes/:quoteId/execute',
    {
      schema: {
        tags,
        summary: 'Execute a quote',
        description:
          'Debits the source and starts the transfer (status PROCESSING). 409 QUOTE_EXPIRED after expiresAt, 409 QUOTE_ALREADY_EXECUTED on a second execution, 400 INSUFFICIENT_FUNDS when the source cannot cover totalSendingAmount; none of them moves money.',
        params: QuoteParams,
        response: { 200: Quote, ...errorResponses },
      },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => quotes.execute(ctx, req.params.quoteId)),
  );
}

export function registerSandboxSendRoutes(app: ApiApp, { quotes, idempotent }: { quotes: QuoteService; idempotent: RunIdempotent }) {
  app.post(
    '/sandbox/send',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate the sender paying a real-time funded quote',
        description: 'The amount defaults to the quote’s totalSendingAmount; any other amount is bounced back and the quote fails with FUNDING_AMOUNT_MISMATCH.',
        body: SandboxSendRequest,
        response: { 200: Transaction, ...errorResponses },
      },
    },
    (req, reply) => idempotent(req, reply, 200, (ctx) => quotes.sandboxSend(ctx, req.body)),
  );
}
