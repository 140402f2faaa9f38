import type { Routes } from '../../http/routes.js';
import { internalAccountNotFound } from '../../ledger/errors.js';
import { currencyMismatch, unknownCurrency } from '../../lib/currencies.js';
import { amountDoesNotCoverFee, currencyNotOnNetwork } from './errors.js';
import { EstimateCryptoWithdrawalFeeRequest, EstimateCryptoWithdrawalFeeResponse } from './schemas.js';
import type { CryptoWithdrawalService } from './service.js';

export function cryptoWithdrawalRoutes(r: Routes, { cryptoWithdrawals }: { cryptoWithdrawals: CryptoWithdrawalService }): void {
  r.post(
    '/crypto/estimate-withdrawal-fee',
    {
      schema: {
        tags: ['Cross-Currency Transfers'],
        summary: 'Estimate the network and application fees of a crypto withdrawal (netAmount + totalFee = amount)',
        body: EstimateCryptoWithdrawalFeeRequest,
        response: { 200: EstimateCryptoWithdrawalFeeResponse },
      },
      errors: [internalAccountNotFound, unknownCurrency, currencyMismatch, currencyNotOnNetwork, amountDoesNotCoverFee],
    },
    (uow, req) => cryptoWithdrawals.estimate(uow, req.body),
  );
}
