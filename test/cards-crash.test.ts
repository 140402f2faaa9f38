import { afterAll, describe, expect, it } from 'vitest';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import type { Card, CardReveal, CardTransaction, Customer, InternalAccount, List } from './wire-types.js';

/**
 * A card authorization survives kill -9: the hold is committed with the authorization, so after a
 * restart the clearings capture it exactly. The server's own log, at debug level for the whole run,
 * never carries the card number or CVV.
 */
const bed = new ProcessTestBed({ clientId: 'cards-crash', secret: 'cards-crash-secret-0123456789' });
afterAll(() => bed.teardown());
const call = bed.call.bind(bed);

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('cards across a crash', () => {
  // Two server starts as processes and a worker activating the card: minutes on a loaded CI machine.
  it('keeps an authorization’s hold through kill -9, clears it after the restart, and never logs the card number', { timeout: 240_000 }, async () => {
    const { env, open } = await bed.serverEnvironment('moneta-cards-crash');
    let logs = '';
    let server = await bed.startServer(env, { logLevel: 'debug', keep: 2_000_000 });

    const customer = await call<Customer>(server.base, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Crash Cardholder', currencies: ['USD'] });
    const accountId = (await call<List<InternalAccount>>(server.base, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!.id;
    expect((await call(server.base, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 5_000 })).status).toBe(200);
    const created = await call<Card>(server.base, 'POST', '/cards', { cardholderId: customer.body.id, form: 'VIRTUAL', fundingSources: [accountId] });
    expect(created.status).toBe(201);
    // The server's own worker activates it.
    await until('the card to be ACTIVE', async () => ((await call<Card>(server.base, 'GET', `/cards/${created.body.id}`)).body.state === 'ACTIVE' ? true : undefined));
    const auth = await call<CardTransaction>(server.base, 'POST', `/sandbox/cards/${created.body.id}/simulate/authorization`, {
      amount: 1_000,
      currency: { code: 'USD' },
      merchant: { descriptor: 'CRASH CAFE', mcc: '5814', country: 'US' },
    });
    expect(auth.body.status).toBe('AUTHORIZED');

    // The card shown to its holder: the number and CVV the log must never carry.
    const reveal = await call<CardReveal>(server.base, 'POST', `/cards/${created.body.id}/reveal`);
    const html = await (await fetch(reveal.body.panEmbedUrl)).text();
    const pan = /id="pan">([0-9 ]+)</.exec(html)![1]!;
    const cvv = /id="cvv">([0-9]{3})</.exec(html)![1]!;

    // The page's request lines reach this process through the child's stdout pipe a moment after
    // its answer did: read them before the kill, or they are lost with the process.
    await until('the reveal page request in the server log', async () => (server.output().includes('/hosted/cards/reveal/') ? true : undefined));
    logs += server.output();
    server.child.kill('SIGKILL');
    await exited(server.child);
    server = await bed.startServer(env, { logLevel: 'debug', keep: 2_000_000 });

    const account = (await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`)).body;
    expect({ balance: account.balance.amount, total: account.totalBalance.amount }).toEqual({ balance: 4_000, total: 5_000 });
    const part = await call<CardTransaction>(server.base, 'POST', `/sandbox/cards/${created.body.id}/simulate/clearing`, { cardTransactionId: auth.body.id, amount: 600 });
    expect(part.body).toMatchObject({ status: 'PARTIALLY_SETTLED', settledAmount: { amount: 600 } });
    const rest = await call<CardTransaction>(server.base, 'POST', `/sandbox/cards/${created.body.id}/simulate/clearing`, { cardTransactionId: auth.body.id, amount: 400 });
    expect(rest.body).toMatchObject({ status: 'SETTLED', settledAmount: { amount: 1_000 } });
    const after = (await call<InternalAccount>(server.base, 'GET', `/internal-accounts/${accountId}`)).body;
    expect({ balance: after.balance.amount, total: after.totalBalance.amount }).toEqual({ balance: 4_000, total: 4_000 });

    logs += server.output();
    server.child.kill('SIGTERM');
    await exited(server.child);
    const database = await open();
    try {
      expect(await reconcile(database.db)).toEqual([]);
    } finally {
      await database.close();
    }

    expect(logs.length).toBeGreaterThan(1_000); // debug logging really ran
    // The reveal link is a bearer secret too: its request is logged with the token redacted.
    const token = reveal.body.panEmbedUrl.split('/').pop()!;
    expect(logs).toContain('/hosted/cards/reveal/[redacted]');
    expect(logs.includes(token)).toBe(false);
    for (const secret of [pan, pan.replace(/ /g, ''), cvv === '000' ? undefined : `"${cvv}"`]) {
      if (secret) expect(logs.includes(secret), `the log holds ${secret.length > 8 ? 'the card number' : 'the CVV'}`).toBe(false);
    }
  });
});
