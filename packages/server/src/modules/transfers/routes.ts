import type { Routes } from '../../http/routes.js';
import { notImplemented } from '../../core/errors.js';
import { insufficientFunds, internalAccountNotFound } from '../../ledger/errors.js';
import { SPENDING_REFUSALS } from '../customers/errors.js';
import { externalAccountNotFound, verificationRequired } from '../external-accounts/errors.js';
import { AMOUNT_ERRORS } from '../platforms/errors.js';
import { Transaction } from '../transactions/schemas.js';
import { TransferInRequest, TransferOutRequest } from './schemas.js';
import type { TransfersService as TransferService } from './index.js';
import { externalAccountClosed } from './errors.js';
import { LIMIT_ERRORS } from './limits.js';
import { invalidReceiver, selfPayment } from '../transactions/errors.js';
import { currencyMismatch } from '../../lib/currencies.js';

const tags = ['Same-Currency Transfers'];
import { walletSignatureRequired } from '../signatures/errors.js';

const errors = [
  walletSignatureRequired,
  internalAccountNotFound,
  externalAccountNotFound,
  verificationRequired,
  ...SPENDING_REFUSALS,
  selfPayment,
  currencyMismatch,
  invalidReceiver,
  externalAccountClosed,
  insufficientFunds,
  notImplemented,
  ...AMOUNT_ERRORS,
];
const outErrors = [...errors, ...LIMIT_ERRORS];

export function transferRoutes(r: Routes, { transfers }: { transfers: TransferService }): void {
  r.post(
    '/transfer-out',
    { schema: { tags, summary: 'Send money from an internal account to an external account (same currency)', body: TransferOutRequest, response: { 201: Transaction } }, status: 201, errors: outErrors, lane: (req) => req.body.source.accountId, readsAhead: (req) => [req.body.destination.accountId] },
    (uow, req) =>
      transfers.transferOut(uow, {
        sourceAccountId: req.body.source.accountId,
        destinationAccountId: req.body.destination.accountId,
        amount: req.body.amount === undefined ? undefined : BigInt(req.body.amount),
        description: req.body.description,
        rowWithLastStatement: true,
      }),
  );

  r.post(
    '/transfer-in',
    { schema: { tags, summary: 'Pull money into an internal account (same currency)', body: TransferInRequest, response: { 201: Transaction } }, status: 201, errors, lane: (req) => req.body.destination.accountId, readsAhead: (req) => [req.body.source.accountId] },
    (uow, req) =>
      transfers.transferIn(uow, {
        sourceAccountId: req.body.source.accountId,
        destinationAccountId: req.body.destination.accountId,
        amount: req.body.amount === undefined ? undefined : BigInt(req.body.amount),
        description: req.body.description,
        rowWithLastStatement: true,
      }),
  );
}
