import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';
import { DomainError } from '../packages/server/src/core/errors.js';
import type { ExternalAccountId, InternalAccountId, PlatformId } from '../packages/server/src/core/ids.js';
import { runUnitOfWork, type UnitOfWork } from '../packages/server/src/core/unit-of-work.js';
import { groupCommitOf, laneIndex, POSTGRES_LANES } from '../packages/server/src/db/group-commit.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { ConfigError, loadConfig } from '../packages/server/src/config.js';
import { commitsWhenWorkReturns, readsUnderLock } from '../packages/server/src/db/transact.js';
import { lockedRows } from '../packages/server/src/db/locked-rows.js';
import { sql } from 'kysely';
import { OUTSIDE, type Move } from '../packages/server/src/ledger/index.js';
import { reconcile } from '../packages/server/src/ledger/reconcile.js';
import type { ApiError, Customer, ExternalAccount, InternalAccount, List, Transaction } from './wire-types.js';

/**
 * Group commit (db/group-commit.ts), switched on for this file whatever MONETA_COALESCE_WRITES says:
 * units of work that arrive together share one transaction, each in its own savepoint, and every
 * caller gets its own outcome once the batch commits.
 */
const POSTGRES = process.env.DATABASE_URL !== undefined;
let t: TestApp;
let platformId: PlatformId;
beforeAll(async () => {
  t = await createTestApp({ MONETA_COALESCE_WRITES: 'on' }, { listen: true });
  platformId = t.platform.id;
});
afterAll(async () => t?.close());

function group() {
  const found = groupCommitOf(t.database.db);
  if (!found) throw new Error('group commit is not on');
  return found;
}

function work<T>(run: (uow: UnitOfWork) => Promise<T>, lane?: string, reads?: readonly string[], scope: { platformId: PlatformId } = { platformId }): Promise<T> {
  return runUnitOfWork(t.database.db, { ...scope, now: new Date(), actor: { type: 'OPERATOR' } }, run, { lane, reads });
}

function between(from: InternalAccountId | typeof OUTSIDE, to: InternalAccountId | typeof OUTSIDE, amount: bigint): Move {
  return { name: 'test', legs: [{ account: from, currency: 'USD', amount: -amount }, { account: to, currency: 'USD', amount }] };
}

/** A move in the lane of the internal account it touches, as the money routes name it. */
const move = (from: InternalAccountId | typeof OUTSIDE, to: InternalAccountId | typeof OUTSIDE, amount: bigint) =>
  work((uow) => t.container.ledger.book(uow, { kind: 'TEST' }, between(from, to, amount)), from === OUTSIDE ? to : from);

async function freshAccount(): Promise<InternalAccountId> {
  return work(async (uow) => {
    const customer = await t.container.customers.create(uow, { customerType: 'INDIVIDUAL', fullName: 'Group Commit', currencies: ['USD'] });
    const row = await uow.tx.selectFrom('ledger_accounts').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
    return row.id as InternalAccountId;
  });
}

async function balanceOf(account: InternalAccountId): Promise<bigint> {
  return (await t.database.db.selectFrom('ledger_accounts').select('total_minor').where('id', '=', account).executeTakeFirstOrThrow()).total_minor;
}

/** Whether another connection finds the account's row locked (PostgreSQL: a transaction holds it). */
async function lockedElsewhere(account: string): Promise<boolean> {
  try {
    await sql`SELECT id FROM ledger_accounts WHERE id = ${account} FOR UPDATE NOWAIT`.execute(t.database.db);
    return false;
  } catch (error) {
    expect(error).toMatchObject({ code: '55P03' }); // lock_not_available
    return true;
  }
}

function insufficient(error: unknown): boolean {
  return error instanceof DomainError && error.code === 'INVALID_AMOUNT' && error.reason === 'INSUFFICIENT_FUNDS';
}

async function call<T = unknown>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; replayed: boolean; body: T }> {
  const response = await fetch(`${t.baseUrl}/2025-10-13${path}`, {
    method,
    headers: { authorization: t.platform.authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(key ? { 'idempotency-key': key } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', body: (await response.json()) as T };
}

async function fundedAccountWithBank(name: string, amount: number): Promise<{ accountId: string; externalAccountId: string }> {
  const customer = await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: name, currencies: ['USD'] });
  const account = (await call<List<InternalAccount>>('GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
  expect((await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount })).status).toBe(200);
  const external = await call<ExternalAccount>('POST', '/customers/external-accounts', {
    customerId: customer.body.id,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '27182818', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: name } },
  });
  expect(external.status).toBe(201);
  return { accountId: account.id, externalAccountId: external.body.id };
}

describe('group commit', () => {
  it('a lane\'s batch with failing moves commits the others, each move decided in arrival order', async () => {
    const account = await freshAccount();
    await move(OUTSIDE, account, 100n);
    const before = group().stats();
    // Sent in one turn of the event loop: one batch, in this order.
    const outcomes = await Promise.allSettled([
      move(account, OUTSIDE, 60n),
      move(account, OUTSIDE, 50n), // 40 left: refused
      move(account, OUTSIDE, 30n),
      work(async (uow) => {
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 5n));
        throw new Error('this unit fails after moving money'); // its move is undone with it
      }, account),
      move(account, OUTSIDE, 20n), // 10 left: refused
      move(account, OUTSIDE, 10n),
    ]);
    const after = group().stats();
    expect(after.batches - before.batches).toBe(1);
    expect(after.units - before.units).toBe(6);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(insufficient((outcomes[1] as PromiseRejectedResult).reason)).toBe(true);
    expect(((outcomes[3] as PromiseRejectedResult).reason as Error).message).toBe('this unit fails after moving money');
    expect(insufficient((outcomes[4] as PromiseRejectedResult).reason)).toBe(true);
    expect(await balanceOf(account)).toBe(0n);
    const entries = await t.database.db.selectFrom('ledger_postings').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', account).executeTakeFirstOrThrow();
    expect(Number(entries.n)).toBe(4); // the funding and three debits
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a unit whose last statement, sent with the next unit\'s first, fails: the batch is lost and each unit runs again alone; only that unit fails', async () => {
    const account = await freshAccount();
    await move(OUTSIDE, account, 100n);
    let runsOfFirst = 0;
    const before = group().stats();
    const outcomes = await Promise.allSettled([
      work(async (uow) => {
        runsOfFirst++;
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 10n));
      }, account),
      work(async (uow) => {
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 20n));
        // Written with the unit's last statement: a platform that already exists (primary key).
        uow.later(uow.tx.insertInto('platforms').values({ id: platformId, name: 'Duplicate', config: JSON.stringify({}), created_at: new Date(), updated_at: new Date() }));
      }, account),
      work(async (uow) => t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 30n)), account),
    ]);
    expect(group().stats().batches - before.batches).toBe(1);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect(await balanceOf(account)).toBe(60n);
    // The failure is known only with the next unit's first statement (on PostgreSQL in its round
    // trip, on PGlite in its call, db/held-statements.ts): the batch ran, was lost, and its units ran again.
    expect(runsOfFirst).toBe(2);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('has one lane on PGlite (one connection) and several on PostgreSQL; a lane name always maps to the same lane', () => {
    expect(group().lanes).toBe(t.database.kind === 'pglite' ? 1 : POSTGRES_LANES);
    expect(laneIndex('InternalAccount:0190a', 4)).toBe(laneIndex('InternalAccount:0190a', 4));
    const spread = new Set(Array.from({ length: 64 }, (_, i) => laneIndex(`InternalAccount:${i}`, 4)));
    expect(spread.size).toBe(4);
  });

  it('takes its number of lanes on PostgreSQL from MONETA_COALESCE_LANES (1-16), else POSTGRES_LANES', async () => {
    expect(loadConfig({}).coalesceLanes).toBeUndefined();
    expect(loadConfig({ MONETA_COALESCE_LANES: '3' }).coalesceLanes).toBe(3);
    for (const wrong of ['0', '17', 'two', '1.5']) expect(() => loadConfig({ MONETA_COALESCE_LANES: wrong })).toThrow(ConfigError);
    if (!POSTGRES) return;
    const three = await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 2, coalesceWrites: true, coalesceLanes: 3 });
    const fallback = await openDatabase({ databaseUrl: process.env.DATABASE_URL, poolSize: 2, coalesceWrites: true });
    try {
      expect(groupCommitOf(three.db)!.lanes).toBe(3);
      expect(groupCommitOf(fallback.db)!.lanes).toBe(POSTGRES_LANES);
    } finally {
      await three.close();
      await fallback.close();
    }
  });

  /** Two lane names that land in different lanes. */
  function twoLanes(): [string, string] {
    for (let i = 1; ; i++) if (laneIndex(`lane-${i}`, group().lanes) !== laneIndex('lane-0', group().lanes)) return ['lane-0', `lane-${i}`];
  }

  it.skipIf(!POSTGRES)('lanes execute at once: a unit held open in one lane holds back no other lane', async () => {
    const [a, b] = twoLanes();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let heldDone = false;
    const held = work(async () => {
      await gate;
      return 'held';
    }, a).finally(() => (heldDone = true));
    const other = await work(async (uow) => (await sql<{ one: number }>`select 1 as one`.execute(uow.tx)).rows[0]!.one, b);
    expect(other).toBe(1);
    expect(heldDone).toBe(false);
    release();
    expect(await held).toBe('held');
  });

  it.skipIf(!POSTGRES)('a deadlock between two lanes costs its victim a run alone: both units take effect, once', async () => {
    const [a, b] = twoLanes();
    const x = await freshAccount();
    const y = await freshAccount();
    await move(OUTSIDE, x, 100n);
    await move(OUTSIDE, y, 100n);
    let arrived = 0;
    let bothIn!: () => void;
    const both = new Promise<void>((resolve) => (bothIn = resolve));
    const meet = async () => {
      if (++arrived === 2) bothIn();
      await both;
    };
    // Each locks one account, waits for the other to lock the other, then asks for it: a cycle.
    const crossing = (first: InternalAccountId, second: InternalAccountId, lane: string) =>
      work(async (uow) => {
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(first, OUTSIDE, 10n));
        await meet();
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(second, OUTSIDE, 10n));
        return 'done';
      }, lane);
    expect(await Promise.all([crossing(x, y, a), crossing(y, x, b)])).toEqual(['done', 'done']);
    expect(await balanceOf(x)).toBe(80n);
    expect(await balanceOf(y)).toBe(80n);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('200 racing transfer-outs on one hot account never overspend, and their retries under the same keys have one effect', async () => {
    const { accountId, externalAccountId } = await fundedAccountWithBank('Hot Account', 20_000);
    const before = group().stats();
    const send = (i: number) => call<Transaction | ApiError>('POST', '/transfer-out', { source: { accountId }, destination: { accountId: externalAccountId }, amount: 700 }, `hot-${i}`);
    const first = await Promise.all(Array.from({ length: 200 }, (_, i) => send(i)));
    const after = group().stats();
    expect(after.units + after.alone - before.units - before.alone).toBeGreaterThanOrEqual(200);
    expect(after.batches - before.batches).toBeGreaterThan(0); // some moves shared a commit
    const accepted = first.filter((r) => r.status === 201);
    expect(accepted).toHaveLength(28); // floor(20000 / 700)
    expect(first.filter((r) => r.status !== 201).every((r) => r.status === 400 && (r.body as ApiError).details!.reason === 'INSUFFICIENT_FUNDS')).toBe(true);

    // Every request again under its key, at once and twice each: the 28 replay their answers in
    // later batches; the refused ones (whose keys rolled back with them) run again and are refused again.
    const again = await Promise.all(Array.from({ length: 400 }, (_, i) => send(i % 200)));
    again.forEach((r, i) => {
      const original = first[i % 200]!;
      if (original.status === 201) {
        expect(r.replayed).toBe(true);
        expect(r.body).toEqual(original.body);
      } else {
        expect(r.status === 400 || r.status === 409).toBe(true); // refused again, or its twin still running
      }
    });
    expect((await call<InternalAccount>('GET', `/internal-accounts/${accountId}`)).body.balance.amount).toBe(20_000 - 28 * 700);
    expect((await call<List<Transaction>>('GET', `/transactions?accountIdentifier=${accountId}&type=OUTGOING&limit=1`)).body.totalCount).toBe(28);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('the same key sent twice at once executes once: the second replays the first', async () => {
    const { accountId, externalAccountId } = await fundedAccountWithBank('Twin Keys', 1_000);
    const body = { source: { accountId }, destination: { accountId: externalAccountId }, amount: 100 };
    const twins = await Promise.all([call<Transaction>('POST', '/transfer-out', body, 'twin'), call<Transaction>('POST', '/transfer-out', body, 'twin')]);
    expect(twins.map((r) => r.status)).toEqual([201, 201]);
    expect(twins.filter((r) => r.replayed)).toHaveLength(1);
    expect(twins[0].body.id).toBe(twins[1].body.id);
    expect((await call<InternalAccount>('GET', `/internal-accounts/${accountId}`)).body.balance.amount).toBe(900);
  });

  it('a unit alone in its lane is a transaction of its own; a unit that names no lane never joins a batch', async () => {
    const before = group().stats();
    // One after the other: each finds its lane idle.
    expect(await work(async (uow) => commitsWhenWorkReturns(uow.tx), 'lane-solo')).toBe(true);
    expect(await work(async (uow) => commitsWhenWorkReturns(uow.tx), 'lane-solo')).toBe(true);
    const solo = group().stats();
    expect(solo.alone - before.alone).toBe(2);
    expect(solo.batches).toBe(before.batches);
    // Together: one batch, whose units run in savepoints of the batch's transaction.
    expect(await Promise.all([1, 2, 3].map(() => work(async (uow) => commitsWhenWorkReturns(uow.tx), 'lane-solo')))).toEqual([false, false, false]);
    const together = group().stats();
    expect(together.batches - solo.batches).toBe(1);
    expect(together.units - solo.units).toBe(3);
    // No lane: neither a batch nor counted alone, however many arrive at once.
    expect(await Promise.all([1, 2, 3].map(() => work(async (uow) => commitsWhenWorkReturns(uow.tx))))).toEqual([true, true, true]);
    expect(group().stats()).toEqual(together);
  });

  it('a unit alone in its lane reads the account it moves under its row lock, as a batch does; a unit outside group commit reads it plainly', async () => {
    const account = await freshAccount();
    // Whether another connection can take the row's lock while the unit is between its read and its COMMIT.
    const lockedMeanwhile = async (lane: string | undefined) =>
      work(async (uow) => {
        // On PGlite too: its balance update is then held and goes with its COMMIT, a call less (db/held-statements.ts).
        expect(readsUnderLock(uow.tx)).toBe(lane !== undefined);
        await t.container.ledger.internalAccountToMove(uow, account);
        if (!POSTGRES) return undefined; // one connection: nobody else could ask
        return lockedElsewhere(account);
      }, lane);
    const before = group().stats();
    expect(await lockedMeanwhile(account)).toBe(POSTGRES ? true : undefined);
    expect(group().stats().alone - before.alone).toBe(1);
    expect(await lockedMeanwhile(undefined)).toBe(POSTGRES ? false : undefined);
  });

  it('the units of one batch read an external account once; a batch after its deletion finds it gone', async () => {
    const { externalAccountId } = await fundedAccountWithBank('Read Once', 100);
    const id = externalAccountId as ExternalAccountId;
    const read = () => work((uow) => t.container.externalAccounts.findWithNext(uow.tx, platformId, id), 'lane-read-once');
    const before = group().stats();
    const together = await Promise.all([read(), read(), read()]);
    expect(group().stats().batches - before.batches).toBe(1);
    expect(together[0]?.id).toBe(id);
    // The later units were answered with the first unit's row itself: no second read.
    expect(together[1]).toBe(together[0]);
    expect(together[2]).toBe(together[0]);
    // Transactions of their own read it each time.
    const alone = [await read(), await read()];
    expect(alone[0]).toEqual(together[0]);
    expect(alone[1]).not.toBe(alone[0]);
    await work((uow) => t.container.externalAccounts.remove(uow, id, 'customer'));
    expect(await Promise.all([read(), read()])).toEqual([undefined, undefined]);
  });

  it('a batch reads ahead the accounts its units move and the external accounts they pay, the calling platform\'s only', async () => {
    const mine = await fundedAccountWithBank('Ahead Mine', 100);
    // Accounts in the same lane as the first: the units go into one batch.
    const inLane = async <T>(make: () => Promise<T>, idOf: (made: T) => string): Promise<T> => {
      for (;;) {
        const made = await make();
        if (laneIndex(idOf(made), group().lanes) === laneIndex(mine.accountId, group().lanes)) return made;
      }
    };
    const second = await inLane(() => fundedAccountWithBank('Ahead Second', 100), (made) => made.accountId);
    const elsewhere = await t.newPlatform('Ahead Elsewhere');
    const foreignAccount = () =>
      work(async (uow) => {
        const customer = await t.container.customers.create(uow, { customerType: 'INDIVIDUAL', fullName: 'Elsewhere', currencies: ['USD'] });
        return (await uow.tx.selectFrom('ledger_accounts').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow()).id as InternalAccountId;
      }, undefined, undefined, { platformId: elsewhere.id });
    const foreign = await inLane(foreignAccount, (id) => id);
    // Whether another connection could lock the account while the batch runs (PostgreSQL only).
    const lockable = async (account: string) => (POSTGRES ? !(await lockedElsewhere(account)) : undefined);
    const before = group().stats();
    const [known, foreignMove, secondsExternal] = await Promise.allSettled([
      // The first unit already knows the second's account and no account of another platform.
      work(async (uow) => ({ accounts: [...lockedRows(uow.tx).keys()].sort(), mineLockable: await lockable(mine.accountId), foreignLockable: await lockable(foreign) }), mine.accountId, [mine.externalAccountId]),
      // A unit naming another platform's account (as a request naming a foreign id would) finds nothing.
      work((uow) => t.container.ledger.internalAccountToMove(uow, foreign), foreign),
      work((uow) => t.container.externalAccounts.findWithNext(uow.tx, platformId, second.externalAccountId as ExternalAccountId), second.accountId, [second.externalAccountId]),
    ]);
    expect(group().stats().batches - before.batches).toBe(1);
    expect(known).toMatchObject({ status: 'fulfilled', value: { accounts: [mine.accountId, second.accountId].sort(), mineLockable: POSTGRES ? false : undefined, foreignLockable: POSTGRES ? true : undefined } });
    expect(foreignMove).toMatchObject({ status: 'rejected', reason: { code: 'REFERENCE_NOT_FOUND' } });
    expect(secondsExternal).toMatchObject({ status: 'fulfilled', value: { id: second.externalAccountId, platform_id: platformId } });
  });

  it('a unit that rolls back forgets what its batch read ahead: the units after it read their accounts again and see them as they are', async () => {
    const y = await freshAccount();
    await move(OUTSIDE, y, 100n);
    const before = group().stats();
    const outcomes = await Promise.allSettled([
      work(async (uow) => {
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(y, OUTSIDE, 70n));
        throw new Error('rolled back after moving y');
      }, y),
      // Read ahead at 100, moved to 30 by the unit before, which rolled back: 100 again.
      work(async (uow) => (await t.container.ledger.internalAccountToMove(uow, y)).total_minor, y),
      work(async (uow) => {
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(y, OUTSIDE, 90n));
        return (await t.container.ledger.internalAccountToMove(uow, y)).total_minor;
      }, y),
    ]);
    expect(group().stats().batches - before.batches).toBe(1);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed'))).toEqual(['failed', 100n, 10n]);
    expect(await balanceOf(y)).toBe(10n);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a quote to a UMA address, which waits on the receiver\'s VASP, never joins a batch', async () => {
    const { accountId } = await fundedAccountWithBank('Uma Sender', 10_000);
    const before = group().stats();
    const quotes = await Promise.all(
      [1, 2].map(() =>
        call<{ status: string }>('POST', '/quotes', {
          source: { sourceType: 'ACCOUNT', accountId },
          destination: { destinationType: 'UMA_ADDRESS', umaAddress: '$success.usd@sandbox.grid.uma.money', currency: 'USD' },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 1_000,
          senderCustomerInfo: { FULL_NAME: 'Uma Sender' },
        }),
      ),
    );
    expect(quotes.map((q) => [q.status, q.body.status]), JSON.stringify(quotes.map((q) => q.body))).toEqual([[201, 'PENDING'], [201, 'PENDING']]);
    expect(group().stats()).toEqual(before);
  });
});
