import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import net from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { createTestApp, type TestApp } from './harness.js';
import { clabeAccountInfo, usAccountInfo } from '../bench/lib/setup.js';
import type { Customer, ExternalAccount, InternalAccount, List, Quote } from './wire-types.js';
import { groupCommitOf, laneIndex } from '../packages/server/src/db/group-commit.js';
import { runUnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import { OUTSIDE } from '../packages/server/src/ledger/index.js';
import type { CardId, ExternalAccountId, InternalAccountId } from '../packages/server/src/core/ids.js';
import { simulatedAuthorization } from '../packages/server/src/sandbox/card-network.js';

/**
 * The round trips each money move's transaction costs PostgreSQL when it runs alone (group commit
 * on, its lane idle): counted on the wire, from the write that carries its BEGIN to the one that
 * carries its COMMIT, on that connection. On PGlite, the same count is of calls into its
 * WebAssembly module (each pays PGlite's fixed cost per call; db/held-statements.ts holds
 * statements back to share one): from the call that opens the transaction to the one that ends it.
 * A regression here is a slower money path.
 */
const POSTGRES = process.env.DATABASE_URL !== undefined;
let t: TestApp;
const PG_PORT = Number(new URL(process.env.DATABASE_URL ?? 'postgres://localhost/x').port || 5432);
// Every write to a socket, with the socket it went to (the spy calls the real write).
const writes = vi.spyOn(net.Socket.prototype, 'write');
// Every call into PGlite, with whether a transaction was open before and after it.
const pgliteCalls: { before: boolean; after: boolean }[] = [];
const execProtocol = Object.getOwnPropertyDescriptor(PGlite.prototype, 'execProtocol')!.value as PGlite['execProtocol'];
PGlite.prototype.execProtocol = async function (this: PGlite, ...args: Parameters<PGlite['execProtocol']>) {
  const before = this.isInTransaction();
  const result = await execProtocol.apply(this, args);
  pgliteCalls.push({ before, after: this.isInTransaction() });
  return result;
};

beforeAll(async () => {
  t = await createTestApp({ MONETA_COALESCE_WRITES: 'on' }, { listen: true });
});
afterAll(async () => {
  writes.mockRestore();
  PGlite.prototype.execProtocol = execProtocol;
  await t?.close();
});

function clearCounts(): void {
  writes.mockClear();
  pgliteCalls.length = 0;
}

/** Per transaction since the counts were cleared: its round trips to PostgreSQL, or its calls into PGlite. */
function transactionsOnTheWire(): number[] {
  return POSTGRES ? postgresTransactions() : pgliteTransactions();
}

/** Per transaction sent to PostgreSQL: the writes from its BEGIN's to its COMMIT's, on its connection. */
function postgresTransactions(): number[] {
  const done: number[] = [];
  const open = new Map<net.Socket, number>();
  writes.mock.calls.forEach(([chunk], i) => {
    const socket = writes.mock.contexts[i] as net.Socket;
    if (socket.remotePort !== PG_PORT || !Buffer.isBuffer(chunk)) return;
    const text = chunk.toString('latin1');
    // BEGIN and COMMIT are sent unnamed, so their text is on the wire.
    if (/\0begin\0/i.test(text)) open.set(socket, 0);
    const counted = open.get(socket);
    if (counted === undefined) return;
    open.set(socket, counted + 1);
    if (/\0commit\0/i.test(text)) {
      done.push(counted + 1);
      open.delete(socket);
    }
  });
  return done;
}

/** Per transaction run by PGlite (one connection: one at a time): the calls from the one that opened it to the one that ended it. */
function pgliteTransactions(): number[] {
  const done: number[] = [];
  let counted: number | undefined;
  for (const { before, after } of pgliteCalls) {
    if (!before && after) counted = 0;
    if (counted === undefined) continue;
    counted++;
    if (!after) {
      done.push(counted);
      counted = undefined;
    }
  }
  return done;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${t.baseUrl}/2025-10-13${path}`, { method, headers: { authorization: t.platform.authorization, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as T;
}

/**
 * The round trips of the one transaction `request` commits: the fewest of three tries (`prepare`,
 * unmeasured, before each). A platform's config is cached for a second per process
 * (platforms/service.ts): on a loaded machine it can lapse between two calls, and the move then
 * reads it, a round trip more; a move that always takes more still fails.
 */
async function roundTripsOf(request: () => Promise<unknown>, prepare: () => Promise<void> = async () => undefined): Promise<number> {
  let fewest = Infinity;
  for (let attempt = 0; attempt < 3; attempt++) {
    await prepare();
    clearCounts();
    await request();
    const transactions = transactionsOnTheWire();
    expect(transactions).toHaveLength(1);
    fewest = Math.min(fewest, transactions[0]!);
  }
  return fewest;
}

describe('round trips of a money move alone (on PGlite, calls into it)', () => {
  it('fund, transfer-out, quote create and quote create-and-execute: 2 (BEGIN with the reads; the writes with the COMMIT); quote execute: 3 (the quote first)', async () => {
    const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Round Trips', currencies: ['USD'] });
    const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.id}`)).data[0]!;
    const bank = await call<ExternalAccount>('POST', '/customers/external-accounts', { customerId: customer.id, currency: 'USD', accountInfo: usAccountInfo(7) });
    const clabe = await call<ExternalAccount>('POST', '/customers/external-accounts', { customerId: customer.id, currency: 'MXN', accountInfo: clabeAccountInfo(7) });
    const fund = () => call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000 });
    const transferOut = () => call('POST', '/transfer-out', { source: { accountId: account.id }, destination: { accountId: bank.id }, amount: 10 });
    const quote = (immediatelyExecute: boolean) =>
      call<Quote>('POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: account.id }, destination: { destinationType: 'ACCOUNT', accountId: clabe.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 100, immediatelyExecute });
    // The platform's system accounts are opened by the first move that needs them.
    await fund();
    await transferOut();
    await quote(true);

    expect(await roundTripsOf(fund)).toBe(2);
    expect(await roundTripsOf(transferOut)).toBe(2);
    expect(await roundTripsOf(() => quote(false))).toBe(2);
    let pending: Quote | undefined;
    const execute = () => call('POST', `/quotes/${pending!.id}/execute`, {});
    expect(await roundTripsOf(execute, async () => void (pending = await quote(false)))).toBe(3);
    expect(await roundTripsOf(() => quote(true))).toBe(2);
  });

  it('a batch of moves, each paying an external account: 2 round trips whatever its size (what its units read, read ahead with the BEGIN; their writes with the COMMIT)', async () => {
    const db = t.container.db;
    const scope = { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const };
    const lanes = groupCommitOf(db)!.lanes;
    // Three accounts of one lane, so that their moves share a batch.
    const accounts: { id: InternalAccountId; bank: ExternalAccountId }[] = [];
    for (let i = 0; accounts.length < 3; i++) {
      const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Batch ${i}`, currencies: ['USD'] });
      const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.id}`)).data[0]!;
      if (accounts.length > 0 && laneIndex(account.id, lanes) !== laneIndex(accounts[0]!.id, lanes)) continue;
      const bank = await call<ExternalAccount>('POST', '/customers/external-accounts', { customerId: customer.id, currency: 'USD', accountInfo: usAccountInfo(100 + i) });
      await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 1_000 });
      accounts.push({ id: account.id as InternalAccountId, bank: bank.id as ExternalAccountId });
    }
    const pay = ({ id, bank }: { id: InternalAccountId; bank: ExternalAccountId }, readAhead: boolean) =>
      runUnitOfWork(
        db,
        scope,
        async (uow) => {
          const account = await t.container.ledger.internalAccountToMove(uow, id);
          expect(await t.container.externalAccounts.findWithNext(uow.tx, uow.platformId, bank)).toMatchObject({ id: bank });
          await t.container.ledger.book(uow, { kind: 'TEST' }, { name: 'test', legs: [{ account: id, currency: account.currency, amount: -1n }, { account: OUTSIDE, currency: account.currency, amount: 1n }] });
        },
        { lane: id, reads: readAhead ? [bank] : [] },
      );
    // Each shape once first: on PGlite a statement's first execution prepares it, in a call of its own.
    await Promise.all(accounts.map((account) => pay(account, true)));
    await Promise.all(accounts.map((account) => pay(account, false)));
    const before = groupCommitOf(db)!.stats().batches;
    clearCounts();
    await Promise.all(accounts.map((account) => pay(account, true)));
    expect(transactionsOnTheWire()).toEqual([2]);
    // Not told of the external accounts, each unit reads its own: a round trip more each.
    clearCounts();
    await Promise.all(accounts.map((account) => pay(account, false)));
    expect(transactionsOnTheWire()).toEqual([2 + accounts.length]);
    expect(groupCommitOf(db)!.stats().batches - before).toBe(2);
  });

  it('a card authorization: 2 (the card with its holder and its first funding source under lock; the rest, the hold included, with the COMMIT)', async () => {
    const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Card Round Trips', currencies: ['USD'] });
    const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.id}`)).data[0]!;
    await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 100_000 });
    const card = await call<{ id: string }>('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [account.id], platformCardId: 'round-trips-card' });
    await t.container.jobs.runDue(); // the issuer activates it
    const authorize = () => call('POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'ROUND TRIPS', mcc: '5814', country: 'US' } });
    await authorize(); // the first learns that its funding source is no wallet's
    expect(await roundTripsOf(authorize)).toBe(2);

    // A batch of them (one lane: the card): the cards and their first funding sources read ahead
    // with the BEGIN, every unit's writes with the COMMIT.
    const scope = { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const };
    const inBatch = () =>
      runUnitOfWork(
        t.container.db,
        scope,
        (uow) => t.container.cardTransactions.network.authorize(uow, { cardId: card.id as CardId }, simulatedAuthorization('AUTHORIZATION', { amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'ROUND TRIPS', mcc: '5814', country: 'US' } })),
        { lane: card.id },
      );
    clearCounts();
    const answers = await Promise.all([inBatch(), inBatch(), inBatch()]);
    expect(answers.map((answer) => answer.approved)).toEqual([true, true, true]);
    expect(transactionsOnTheWire()).toEqual([2]);
  });
});
