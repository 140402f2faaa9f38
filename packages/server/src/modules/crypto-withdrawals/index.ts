import { defineModule } from '../../contract/module.js';
import { CRYPTO_WITHDRAWAL_ERRORS } from './errors.js';
import { readWithdrawalFeeSettings } from './fee-table.js';
import { cryptoWithdrawalRoutes } from './routes.js';
import { createCryptoWithdrawalService, type CryptoWithdrawalService } from './service.js';

declare module '../../contract/module.js' {
  interface ServiceRegistry {
    cryptoWithdrawals: CryptoWithdrawalService;
  }
}

/** What a crypto withdrawal costs, per network and asset, from the fee table (MONETA_CRYPTO_WITHDRAWAL_FEES_FILE). */
export default defineModule({
  name: 'cryptoWithdrawals',
  needs: [],
  settings: readWithdrawalFeeSettings,
  createService: ({ ledger, settings }) => createCryptoWithdrawalService({ ledger, fees: settings.fees }),
  routes: cryptoWithdrawalRoutes,
  errors: CRYPTO_WITHDRAWAL_ERRORS,
  fixtures: async () => (await import('./fixtures.js')).fixtures,
});
