import type { ModuleFixtures } from '../../contract/module.js';
import { PROVISIONED_JOB } from './service.js';

const authorization = { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'FIXTURE SHOP', mcc: '5814', country: 'US' } };

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /cards': (id) => ({ cardholderId: id('Customer'), form: 'VIRTUAL', fundingSources: [id('InternalAccount')] }),
    'PATCH /cards/:id': { maxSpendPerTransaction: 1_000_000 },
    'POST /sandbox/cards/:id/simulate/authorization': authorization,
    'POST /sandbox/cards/:id/simulate/financial_authorization': authorization,
    'POST /sandbox/cards/:id/simulate/credit_authorization': authorization,
    'POST /sandbox/cards/:id/simulate/financial_credit_authorization': authorization,
    'POST /sandbox/cards/:id/simulate/credit_authorization_advice': authorization,
    'POST /sandbox/cards/:id/simulate/balance_inquiry': { merchant: authorization.merchant },
    'POST /sandbox/cards/:id/simulate/clearing': (id) => ({ cardTransactionId: id('CardTransaction'), amount: 50 }),
    'POST /sandbox/cards/:id/simulate/return': (id) => ({ cardTransactionId: id('CardTransaction'), amount: 10 }),
    'POST /sandbox/cards/:id/simulate/authorization_advice': (id) => ({ cardTransactionId: id('CardTransaction'), amount: 120 }),
    'POST /sandbox/cards/:id/simulate/return_reversal': (id) => ({ cardTransactionId: id('CardTransaction', 'refunded') }),
  },
  async create({ call, ids, label, runDueJobs }) {
    const card = await call('POST', '/cards', { cardholderId: ids.get('Customer'), platformCardId: `${label}-card`, form: 'VIRTUAL', fundingSources: [ids.get('InternalAccount')] });
    const cardId = (card.body as { id: string }).id;
    ids.set('Card', cardId);
    await runDueJobs([PROVISIONED_JOB]); // the issuer activates it
    // An authorization cleared in part: open for more clearings, and with something settled to return.
    const authorized = await call('POST', `/sandbox/cards/${cardId}/simulate/authorization`, authorization);
    const cardTransactionId = (authorized.body as { id: string }).id;
    await call('POST', `/sandbox/cards/${cardId}/simulate/clearing`, { cardTransactionId, amount: 40 });
    ids.set('CardTransaction', cardTransactionId);
    // One settled and returned in full, for the return reversal.
    const refunded = (await call('POST', `/sandbox/cards/${cardId}/simulate/financial_authorization`, authorization)).body as { id: string };
    await call('POST', `/sandbox/cards/${cardId}/simulate/return`, { cardTransactionId: refunded.id, amount: authorization.amount });
    ids.set('CardTransaction at refunded', refunded.id);
  },
};
