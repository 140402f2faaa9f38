import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'PATCH /config': {
      umaDomain: 'pay.example.com',
      webhookEndpoint: 'https://hooks.example.com/moneta',
      supportedCurrencies: [
        {
          currencyCode: 'USD',
          minAmount: 100,
          maxAmount: 1_000_000,
          requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
          enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
        },
        // Kept enabled so resources created after this patch (quotes to a CLABE account) still work.
        { currencyCode: 'MXN', minAmount: 1, maxAmount: 100_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['INCOMING', 'OUTGOING'] },
      ],
      feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }],
      embeddedWalletConfig: { appName: 'Fixture', otpLength: 6, sendFromEmailAddress: 'noreply@example.com' },
    },
    'POST /sandbox/clock/advance': { seconds: 60 },
  },
  async create({ call }) {
    // Fuzzed PATCH /config bodies may have left a currency or direction disabled: enable what the fixtures use.
    await call('PATCH', '/config', {
      supportedCurrencies: ['USD', 'MXN'].map((currencyCode) => ({
        currencyCode,
        minAmount: 1,
        maxAmount: 1_000_000_000,
        requiredCounterpartyFields: [],
        enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
      })),
    });
  },
};
