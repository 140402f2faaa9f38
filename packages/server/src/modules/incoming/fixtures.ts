import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /sandbox/internal-accounts/:accountId/fund': { amount: 1000 },
    'POST /sandbox/bank-transfers': (id) => ({ reference: id('FundingReference'), amount: 1000, currency: 'USD', senderName: 'Fixture Sender' }),
  },
  async create({ call, ids }) {
    const funded = await call('POST', `/sandbox/internal-accounts/${ids.get('InternalAccount')!}/fund`, { amount: 5000 });
    const [instruction] = (funded.body as { fundingPaymentInstructions: { accountOrWalletInfo: { reference?: string } }[] }).fundingPaymentInstructions;
    // The reference a bank transfer quotes to reach the account (an id of sorts: another platform's is unknown).
    ids.set('FundingReference', instruction!.accountOrWalletInfo.reference!);
  },
};
