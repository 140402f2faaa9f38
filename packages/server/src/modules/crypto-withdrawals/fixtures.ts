import type { ModuleFixtures } from '../../contract/module.js';

/** A Solana address (the wrapped-SOL mint's), valid for a USDC withdrawal on SOLANA. */
export const SOLANA_ADDRESS = 'So11111111111111111111111111111111111111112';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /crypto/estimate-withdrawal-fee': (id) => ({
      internalAccountId: id('InternalAccount', 'usdc'),
      currency: 'USDC',
      cryptoNetwork: 'SOLANA',
      amount: 1_000_000,
      destinationAddress: SOLANA_ADDRESS,
    }),
  },
  async create({ call, ids, label }) {
    const customer = (await call('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `${label}-usdc`, fullName: 'Uma Usdc', currencies: ['USDC'] })).body as { id: string };
    const accounts = (await call('GET', `/customers/internal-accounts?customerId=${customer.id}&currency=USDC`)).body as { data: { id: string }[] };
    ids.set('InternalAccount at usdc', accounts.data[0]!.id);
  },
};
