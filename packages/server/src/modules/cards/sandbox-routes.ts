import type { Routes } from '../../http/routes.js';
import type { ErrorSpec } from '../../core/errors.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { CardId } from '../../core/ids.js';
import { unknownCurrency } from '../../lib/currencies.js';
import { FX_ERRORS } from '../../fx/errors.js';
import { accountNotActive } from '../../ledger/errors.js';
import type { AuthorizationAnswer, AuthorizationKind } from '../../providers/card-network.js';
import { simulatedAuthorization, simulatedBalanceInquiry } from '../../sandbox/card-network.js';
import { CardTransaction } from './schemas.js';
import type { CardTransactionService } from './card-transactions.js';
import {
  adviceBelowSettled,
  cardNotFound,
  cardTransactionNotFound,
  cardTransactionNotOpen,
  nothingSettled,
  notRefunded,
  returnExceedsSettled,
} from './errors.js';
import {
  CardParams,
  SimulateAmountRequest,
  SimulateAuthorizationRequest,
  SimulateBalanceInquiryRequest,
  SimulateClearingRequest,
  SimulateReferenceRequest,
  SimulationDeclined,
} from './schemas.js';
import { Type, type Static, type TSchema } from 'typebox';

const tags = ['Sandbox'];

/** 202 as the reference answers these; the body is the resulting card transaction, or the decline. */
const Simulated = Type.Unsafe<object>({
  if: { type: 'object', required: ['declineReason'] },
  then: SimulationDeclined,
  else: CardTransaction,
});

function answer(result: AuthorizationAnswer): object {
  return result.approved ? result.transaction : { issuerTransactionToken: result.issuerTransactionToken, declineReason: result.declineReason };
}

const AUTHORIZATION_SIMULATORS: readonly { path: string; kind: AuthorizationKind; summary: string }[] = [
  { path: 'authorization', kind: 'AUTHORIZATION', summary: 'Simulate an authorization: holds the amount on the first funding source that covers it' },
  { path: 'financial_authorization', kind: 'FINANCIAL_AUTHORIZATION', summary: 'Simulate a single-message financial authorization: the amount leaves the funding source at once (SETTLED)' },
  { path: 'credit_authorization', kind: 'CREDIT_AUTHORIZATION', summary: 'Simulate a credit authorization: a credit to the card, posted when it clears' },
  { path: 'financial_credit_authorization', kind: 'FINANCIAL_CREDIT_AUTHORIZATION', summary: 'Simulate a single-message financial credit: credited to the funding source at once (SETTLED)' },
  { path: 'credit_authorization_advice', kind: 'CREDIT_AUTHORIZATION_ADVICE', summary: 'Simulate a network credit authorization advice: a credit to the card, posted when it clears' },
];

const DESCRIPTOR_TABLE =
  'The last three characters of merchant.descriptor decide: 002 declined INSUFFICIENT_FUNDS, 003 declined CARD_PAUSED, 005 approved with the pull confirmed after about 30 s (pullSummary.pendingCount 1 until then), 006 approved but the pull is reported FAILED (EXCEPTION, hold released); anything else approved. A frozen card declines CARD_PAUSED. A declined one answers { issuerTransactionToken, declineReason } and moves nothing.';

/**
 * The card network simulators. Each turns its request into the message a processor would send
 * (sandbox/card-network.ts) and hands it to the card network's inbound port, `cardTransactions.network`,
 * exactly as a production adapter's messages arrive: the simulators have no way of their own in.
 */
export function sandboxCardRoutes(r: Routes, { cardTransactions }: { cardTransactions: CardTransactionService }): void {
  function simulate<B extends TSchema>(path: string, summary: string, description: string, body: B, errors: readonly ErrorSpec[], handler: (uow: UnitOfWork, body: Static<B>, cardId: CardId) => Promise<object>): void {
    r.post(
      `/sandbox/cards/:id/simulate/${path}`,
      { schema: { tags, summary, description, params: CardParams, body, response: { 202: Simulated } }, status: 202, errors: [cardNotFound, ...errors], lane: (req) => req.params.id },
      (uow, req) => handler(uow, req.body as Static<B>, req.params.id),
    );
  }

  for (const simulator of AUTHORIZATION_SIMULATORS) {
    simulate(
      simulator.path,
      simulator.summary,
      DESCRIPTOR_TABLE,
      SimulateAuthorizationRequest,
      [unknownCurrency, ...FX_ERRORS],
      async (uow, body, cardId) => answer(await cardTransactions.network.authorize(uow, { cardId }, simulatedAuthorization(simulator.kind, body))),
    );
  }

  simulate(
    'balance_inquiry',
    'Simulate a balance inquiry: a zero-amount authorization that moves nothing',
    DESCRIPTOR_TABLE,
    SimulateBalanceInquiryRequest,
    [],
    async (uow, body, cardId) => answer(await cardTransactions.network.authorize(uow, { cardId }, simulatedBalanceInquiry(body))),
  );

  simulate(
    'clearing',
    'Simulate a clearing against a card transaction',
    'Less than the open authorization leaves the rest held (PARTIALLY_SETTLED); the rest of it settles (SETTLED); more pulls the difference (pullSummary.count + 1), or makes it an EXCEPTION when the funding source no longer covers it; 0 expires the authorization and releases its hold.',
    SimulateClearingRequest,
    [cardTransactionNotFound, cardTransactionNotOpen],
    (uow, body, cardId) => cardTransactions.network.clear(uow, { cardId }, { transaction: { cardTransactionId: body.cardTransactionId }, amount: BigInt(body.amount) }),
  );

  simulate(
    'return',
    'Simulate a merchant return: credits the funding source; the full settled amount makes it REFUNDED',
    'At most what settled less what was returned already.',
    SimulateAmountRequest,
    [cardTransactionNotFound, nothingSettled, returnExceedsSettled, accountNotActive],
    (uow, body, cardId) => cardTransactions.network.refund(uow, { cardId }, { transaction: { cardTransactionId: body.cardTransactionId }, amount: BigInt(body.amount) }),
  );

  simulate(
    'authorization_advice',
    'Simulate an authorization advice that re-sizes an open authorization to a new total',
    'Growing it needs the difference on the same funding source; otherwise the advice is declined (INSUFFICIENT_FUNDS) and nothing changes.',
    SimulateAmountRequest,
    [cardTransactionNotFound, cardTransactionNotOpen, adviceBelowSettled],
    async (uow, body, cardId) => answer(await cardTransactions.network.advise(uow, { cardId }, { transaction: { cardTransactionId: body.cardTransactionId }, amount: BigInt(body.amount) })),
  );

  simulate(
    'return_reversal',
    'Simulate a return reversal: the last return of a REFUNDED transaction is taken back',
    'SETTLED again, or EXCEPTION when the funding source no longer covers it.',
    SimulateReferenceRequest,
    [cardTransactionNotFound, notRefunded],
    (uow, body, cardId) => cardTransactions.network.reverseReturn(uow, { cardId }, { transaction: { cardTransactionId: body.cardTransactionId } }),
  );
}
