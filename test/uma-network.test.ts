import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { startReceiver } from './webhook-receiver.js';

/**
 * UMA between two real Moneta instances (two processes, two databases: PGlite directories, or two
 * throw-away PostgreSQL databases when DATABASE_URL is set). Alice on instance 1 looks up and pays
 * $bob@127.0.0.1:<port 2>; the money leaves Alice's ledger on instance 1 and arrives in Bob's on
 * instance 2, each instance with its own events. Then the receiver is down when a payment settles:
 * the settlement is retried and completes once it is back, crediting Bob once.
 */
const bed = new ProcessTestBed({ clientId: 'uma-network-test', secret: 'uma-network-test-secret-0123456789' });

interface Instance {
  base: string;
  domain: string;
  env: Record<string, string>;
  port: number;
}

let one: Instance;
let two: Instance;
let hooksOne: Awaited<ReturnType<typeof startReceiver>>;
let hooksTwo: Awaited<ReturnType<typeof startReceiver>>;
let twoChild: Awaited<ReturnType<ProcessTestBed['startServer']>>['child'];

async function start(prefix: string, port?: number, existing?: Record<string, string>): Promise<Instance & { child: typeof twoChild }> {
  const env = existing ?? (await bed.serverEnvironment(prefix)).env;
  const server = await bed.startServer(env, port === undefined ? {} : { port });
  const actualPort = Number(new URL(server.base).port);
  logs.set(`${prefix} on ${actualPort}`, server.output);
  return { base: server.base, domain: `127.0.0.1:${actualPort}`, env, port: actualPort, child: server.child };
}

/** Each instance's log (errors), shown with a failed expectation: a peer's 500 is explained only there. */
const logs = new Map<string, () => string>();
const withLogs = (body: unknown) => `${JSON.stringify(body)}\n${[...logs].map(([name, output]) => `--- ${name} ---\n${output().slice(-4000)}`).join('\n')}`;

async function configure(instance: Instance, webhookEndpoint: string): Promise<void> {
  const patched = await bed.call(instance.base, 'PATCH', '/config', { umaDomain: instance.domain, webhookEndpoint });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}

async function customer(instance: Instance, name: string, user: string, fund: number): Promise<{ customerId: string; accountId: string }> {
  const created = await bed.call<{ id: string; umaAddress: string }>(instance.base, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: name, currencies: ['USD'], umaAddress: `$${user}@${instance.domain}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.umaAddress).toBe(`$${user}@${instance.domain}`);
  const accountId = (await bed.call<{ data: { id: string }[] }>(instance.base, 'GET', `/internal-account?customerId=${created.body.id}`)).body.data[0]!.id;
  if (fund > 0) expect((await bed.call(instance.base, 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: fund })).status).toBe(200);
  return { customerId: created.body.id, accountId };
}

async function balance(instance: Instance, accountId: string): Promise<number> {
  const account = await bed.call<{ balance: { amount: number } }>(instance.base, 'GET', `/internal-accounts/${accountId}`);
  return account.body.balance.amount;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, attempts = 300): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function eventsAbout(hooks: typeof hooksOne, id: string): string[] {
  return hooks.received
    .map((r) => JSON.parse(r.body) as { type: string; data?: { id?: string } })
    .filter((e) => e.data?.id === id)
    .map((e) => e.type);
}

async function incomingOf(instance: Instance, customerId: string): Promise<{ id: string; status: string; receivedAmount: { amount: number }; source?: unknown }[]> {
  const list = await bed.call<{ data: { id: string; type: string; status: string; receivedAmount: { amount: number }; source?: unknown }[] }>(instance.base, 'GET', `/transactions?customerId=${customerId}&type=INCOMING`);
  return list.body.data.filter((t) => t.type === 'INCOMING' && (t.source as { sourceType?: string } | undefined)?.sourceType === 'UMA_ADDRESS');
}

beforeAll(async () => {
  hooksOne = await startReceiver();
  hooksTwo = await startReceiver();
  one = await start('uma-one');
  const started = await start('uma-two');
  two = started;
  twoChild = started.child;
  await configure(one, hooksOne.url);
  await configure(two, hooksTwo.url);
}, 240_000);

afterAll(async () => {
  await bed.teardown();
  await hooksOne?.close();
  await hooksTwo?.close();
}, 60_000);

describe('UMA between two instances', () => {
  it('Alice on instance 1 looks up and pays $bob on instance 2: both ledgers move, each side with its own events', async () => {
    const alice = await customer(one, 'Alice Sender', 'alice', 100_000);
    const bob = await customer(two, 'Bob Receiver', 'bob', 0);
    const address = `$bob@${two.domain}`;

    const lookup = await bed.call<{ receiverUmaAddress: string; lookupId: string; supportedCurrencies: { currency: { code: string }; min: number; max: number }[] }>(
      one.base,
      'GET',
      `/receiver/uma/${encodeURIComponent(address)}?customerId=${alice.customerId}`,
    );
    expect(lookup.status, withLogs(lookup.body)).toBe(200);
    expect(lookup.body.receiverUmaAddress).toBe(address);
    expect(lookup.body.supportedCurrencies.map((c) => c.currency.code)).toEqual(['USD']);

    const quote = await bed.call<{ id: string; transactionId: string; totalSendingAmount: number; totalReceivingAmount: number }>(one.base, 'POST', '/quotes', {
      lookupId: lookup.body.lookupId,
      source: { sourceType: 'ACCOUNT', accountId: alice.accountId },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: address, currency: 'USD' },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 12_345,
    });
    expect(quote.status, withLogs(quote.body)).toBe(201);
    expect(quote.body.totalReceivingAmount).toBe(12_345);
    // Asked for, not paid: nothing moved on either side yet.
    expect(await balance(two, bob.accountId)).toBe(0);

    const executed = await bed.call(one.base, 'POST', `/quotes/${quote.body.id}/execute`);
    expect(executed.status, JSON.stringify(executed.body)).toBe(200);
    const sent = await waitFor('the payment to complete on instance 1', async () => {
      const tx = await bed.call<{ status: string }>(one.base, 'GET', `/transactions/${quote.body.transactionId}`);
      return tx.body.status === 'COMPLETED' ? tx.body : undefined;
    });
    expect(sent.status).toBe('COMPLETED');
    expect(await balance(one, alice.accountId)).toBe(100_000 - quote.body.totalSendingAmount);
    expect(await balance(two, bob.accountId)).toBe(12_345);

    const [received] = await incomingOf(two, bob.customerId);
    expect(received).toMatchObject({ status: 'COMPLETED', receivedAmount: { amount: 12_345 }, source: { sourceType: 'UMA_ADDRESS', umaAddress: `$alice@${one.domain}` } });
    await waitFor('the webhooks', async () => (eventsAbout(hooksOne, quote.body.transactionId).includes('OUTGOING_PAYMENT.COMPLETED') && eventsAbout(hooksTwo, received!.id).includes('INCOMING_PAYMENT.COMPLETED') ? true : undefined));
    // Deliveries of two events may arrive in either order (each is delivered on its own, retried on its own).
    expect(eventsAbout(hooksOne, quote.body.transactionId).sort()).toEqual(['OUTGOING_PAYMENT.COMPLETED', 'OUTGOING_PAYMENT.PROCESSING']);
    expect(eventsAbout(hooksTwo, received!.id)).toEqual(['INCOMING_PAYMENT.COMPLETED']);
  }, 120_000);

  it('a receiver down at settlement: the settlement is retried, and completes once it is back, crediting once', async () => {
    const alice = await customer(one, 'Ada Again', 'ada', 50_000);
    const bob = await customer(two, 'Bea Back', 'bea', 0);
    const address = `$bea@${two.domain}`;
    const quote = await bed.call<{ id: string; transactionId: string; totalSendingAmount: number }>(one.base, 'POST', '/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: alice.accountId },
      destination: { destinationType: 'UMA_ADDRESS', umaAddress: address },
      lockedCurrencySide: 'RECEIVING',
      lockedCurrencyAmount: 2_000,
    });
    expect(quote.status, withLogs(quote.body)).toBe(201);

    twoChild.kill('SIGKILL');
    await exited(twoChild);
    const executed = await bed.call(one.base, 'POST', `/quotes/${quote.body.id}/execute`);
    expect(executed.status).toBe(200);
    // Debited, waiting: the receiver cannot be told.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await bed.call<{ status: string }>(one.base, 'GET', `/transactions/${quote.body.transactionId}`)).body.status).toBe('PROCESSING');
    expect(await balance(one, alice.accountId)).toBe(50_000 - quote.body.totalSendingAmount);

    const restarted = await start('uma-two', two.port, two.env);
    twoChild = restarted.child;
    await waitFor(
      'the retried settlement',
      async () => ((await bed.call<{ status: string }>(one.base, 'GET', `/transactions/${quote.body.transactionId}`)).body.status === 'COMPLETED' ? true : undefined),
      400,
    );
    expect(await balance(two, bob.accountId)).toBe(2_000);
    expect(await incomingOf(two, bob.customerId)).toHaveLength(1);
  }, 180_000);

  it('a lookup of an instance that is down is 424 LNURLP_REQUEST_FAILED; of a user it does not have, 404 UMA_NOT_FOUND', async () => {
    const alice = await customer(one, 'Ann Asks', 'ann', 0);
    const missing = await bed.call<{ code: string }>(one.base, 'GET', `/receiver/uma/${encodeURIComponent(`$nobody@${two.domain}`)}?customerId=${alice.customerId}`);
    expect(missing.status, JSON.stringify(missing.body)).toBe(404);
    expect(missing.body.code).toBe('UMA_NOT_FOUND');
    twoChild.kill('SIGKILL');
    await exited(twoChild);
    const down = await bed.call<{ code: string }>(one.base, 'GET', `/receiver/uma/${encodeURIComponent(`$bob@${two.domain}`)}?customerId=${alice.customerId}`);
    expect(down.status, JSON.stringify(down.body)).toBe(424);
    expect(down.body.code).toBe('LNURLP_REQUEST_FAILED');
  }, 60_000);
});
