import { walletSignatureOf } from '../../core/signature.js';
import { WalletSignatureHeaders } from '../../http/schema-kit.js';
import { signatureInvalid, signatureMalformed, signatureMissing, walletSignatureRequired } from '../signatures/errors.js';
import { notImplemented } from '../../core/errors.js';
import type { Routes } from '../../http/routes.js';
import { conversionOutOfRange, noRateForCurrency } from '../../fx/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';
import { insufficientFunds, internalAccountNotFound } from '../../ledger/errors.js';
import { customerNotFound, endUserTermsNotAccepted, SPENDING_REFUSALS } from '../customers/errors.js';
import { externalAccountNotFound, verificationRequired } from '../external-accounts/errors.js';
import { AMOUNT_ERRORS } from '../platforms/errors.js';
import { invalidReceiver, selfPayment } from '../transactions/errors.js';
import { Transaction } from '../transactions/schemas.js';
import { fundedFromAccount, fundedInRealTime, quoteAlreadyExecuted, quoteExpired, quoteNotFound, quotePendingAuthorization, sameCurrency } from './errors.js';
import { dailyVolumeLimitExceeded, LIMIT_ERRORS } from '../transfers/limits.js';
import { Quote, QuoteList, QuoteListQuery, QuoteParams, QuoteRequest, SandboxSendRequest } from './schemas.js';
import type { QuotesService as QuoteService } from './index.js';
import { PAY_ERRORS as UMA_PAY_ERRORS } from '../uma/errors.js';

const tags = ['Cross-Currency Transfers'];
const executable = [quoteNotFound, quoteExpired, quoteAlreadyExecuted, quotePendingAuthorization, ...SPENDING_REFUSALS, insufficientFunds, dailyVolumeLimitExceeded];

export function quoteRoutes(r: Routes, { quotes }: { quotes: QuoteService }): void {
  r.post(
    '/quotes',
    {
      schema: {
        tags,
        summary: 'Lock an exchange rate and fees for a transfer',
        description:
          'The quote holds its rate and fees until expiresAt. A UMA_ADDRESS destination ($user@domain; lookupId from GET /receiver/uma/{address}, optional) asks the receiver’s VASP for exactly totalReceivingAmount at creation; executing it debits the sender and settles with that VASP (a refusal refunds the sender). With immediatelyExecute it executes at once (status PROCESSING). A REALTIME_FUNDING source returns paymentInstructions to pay it in. platformFeeOverride replaces the platform’s configured fees for this quote (USD sources only; 400 otherwise). 400 TRANSACTION_SIZE_LIMIT_EXCEEDED above the service’s largest single payment; with immediatelyExecute, 429 DAILY_VOLUME_LIMIT_EXCEEDED past the daily volume limit.',
        body: QuoteRequest,
        response: { 201: Quote },
      },
      status: 201,
      errors: [
        walletSignatureRequired,
        internalAccountNotFound,
        externalAccountNotFound,
        verificationRequired,
        customerNotFound,
        ...SPENDING_REFUSALS,
        endUserTermsNotAccepted,
        selfPayment,
        invalidReceiver,
        sameCurrency,
        noRateForCurrency,
        conversionOutOfRange,
        insufficientFunds,
        notImplemented,
        ...AMOUNT_ERRORS,
        ...LIMIT_ERRORS,
        // A UMA_ADDRESS destination: the receiver's VASP is looked up and asked (the uma module).
        ...UMA_PAY_ERRORS,
      ],
      // An immediately executed quote debits its source account. A UMA destination waits on the
      // receiver's VASP: alone, never in a batch.
      lane: (req) => (req.body.destination.destinationType === 'UMA_ADDRESS' ? undefined : req.body.source.accountId),
      readsAhead: (req) => [req.body.destination.destinationType === 'ACCOUNT' ? req.body.destination.accountId : undefined],
    },
    (uow, req) => quotes.create(uow, req.body),
  );

  r.get(
    '/quotes',
    {
      schema: {
        tags,
        summary: 'List the platform’s quotes (older API shape, kept as an alias)',
        description:
          'An alias kept for clients of an older version of the reference API, which listed quotes here; today’s reference has no quote list (a quote is read by id, and its payment through GET /transactions). Newest first; filters customerId and status (a PENDING quote past expiresAt counts as EXPIRED).',
        querystring: QuoteListQuery,
        response: { 200: QuoteList },
      },
    },
    (scope, req) => quotes.list(scope, req.query),
  );

  r.get('/quotes/:quoteId', { schema: { tags, summary: 'Get a quote', params: QuoteParams, response: { 200: Quote } }, errors: [quoteNotFound] }, (scope, req) =>
    quotes.get(scope, req.params.quoteId),
  );

  r.post(
    '/quotes/:quoteId/execute',
    {
      schema: {
        tags,
        summary: 'Execute a quote',
        description:
          'Debits the source and starts the transfer (status PROCESSING). 409 CONFLICT with details.reason QUOTE_EXPIRED after expiresAt or QUOTE_ALREADY_EXECUTED on a second execution, 400 INVALID_AMOUNT with details.reason INSUFFICIENT_FUNDS when the source cannot cover totalSendingAmount; none of them moves money.',
        params: QuoteParams,
        headers: WalletSignatureHeaders,
        response: { 200: Quote },
      },
      errors: [...executable, fundedInRealTime, signatureMissing, signatureMalformed, signatureInvalid],
      // The account it debits (read once when this process did not make the quote: execution-lanes.ts).
      lane: (req) => (req.auth ? quotes.executionLane(req.auth.platformId, req.params.quoteId) : req.params.quoteId),
    },
    (uow, req) => quotes.execute(uow, req.params.quoteId, { signature: walletSignatureOf(req.headers).signature }),
  );
}

export function sandboxQuoteRoutes(r: Routes, { quotes }: { quotes: QuoteService }): void {
  r.post(
    '/sandbox/send',
    {
      schema: {
        tags: ['Sandbox'],
        summary: 'Simulate the sender paying a real-time funded quote',
        description: 'The amount defaults to the quote’s totalSendingAmount; any other amount is bounced back and the quote fails with FUNDING_AMOUNT_MISMATCH.',
        body: SandboxSendRequest,
        response: { 200: Transaction },
      },
      errors: [...executable, fundedFromAccount, currencyMismatch],
    },
    (uow, req) => quotes.fundsArrived(uow, req.body),
  );
}
