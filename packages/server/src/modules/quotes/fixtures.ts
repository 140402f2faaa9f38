import type { ModuleFixtures } from '../../contract/module.js';

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /quotes': (id) => ({
      source: { sourceType: 'ACCOUNT', accountId: id('InternalAccount') },
      destination: { destinationType: 'ACCOUNT', accountId: id('ExternalAccount', 'MXN') },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
      description: 'Fixture quote',
    }),
    'POST /sandbox/send': (id) => ({ quoteId: id('Quote', 'realtime'), currencyCode: 'USD' }),
  },
  async create({ call, ids }) {
    const clabe = ids.get('ExternalAccount at MXN')!;
    const quote = await call('POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: ids.get('InternalAccount') },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 1000,
    });
    ids.set('Quote', (quote.body as { id: string }).id);
    const realtime = await call('POST', '/quotes', {
      source: { sourceType: 'REALTIME_FUNDING', customerId: ids.get('Customer'), currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 10_000,
    });
    ids.set('Quote at realtime', (realtime.body as { id: string }).id);
  },
};
