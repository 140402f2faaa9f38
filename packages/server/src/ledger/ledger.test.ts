import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/harness.js';
import { DomainError } from '../core/errors.js';
import type { HoldId, InternalAccountId, LedgerAccountId, LedgerEntryId, PlatformId, PostingAccountId } from '../core/ids.js';
import { openUnitOfWork, runUnitOfWork, type UnitOfWork } from '../core/unit-of-work.js';
import { OUTSIDE, type Move } from './index.js';
import { postEntry } from './postings.js';
import { inSavepoint } from '../db/savepoint.js';
import { transactAlone } from '../db/transact.js';
import { lockedRows } from '../db/locked-rows.js';
import { reconcile } from './reconcile.js';

let t: TestApp;
let platformId: PlatformId;
beforeAll(async () => {
  t = await createTestApp();
  platformId = t.platform.id;
});
afterAll(async () => t?.close());

const at = () => new Date();
const BAD_ENTRY = 'LedgerEntry:bad' as LedgerEntryId;

function work<T>(run: (uow: UnitOfWork) => Promise<T>): Promise<T> {
  return runUnitOfWork(t.database.db, { platformId, now: at(), actor: { type: 'OPERATOR' } }, run);
}

/** A fresh customer account (may not go negative) and the platform's EXTERNAL account in a currency. */
async function accountsIn(currency: string): Promise<{ account: InternalAccountId; external: LedgerAccountId }> {
  return work(async (uow) => {
    const customer = await t.container.customers.create(uow, { customerType: 'INDIVIDUAL', fullName: 'Ledger Test', currencies: [currency] });
    const account = await uow.tx.selectFrom('ledger_accounts').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
    const external = await t.container.ledger.systemAccount(uow.tx, platformId, 'EXTERNAL', currency, at());
    return { account: account.id as InternalAccountId, external };
  });
}

async function balanceOf(accountId: PostingAccountId): Promise<{ total: bigint; held: bigint }> {
  const row = await t.database.db.selectFrom('ledger_accounts').select(['total_minor', 'held_minor']).where('id', '=', accountId).executeTakeFirstOrThrow();
  return { total: row.total_minor, held: row.held_minor };
}

/** A move between an internal account and the outside world (the EXTERNAL bookkeeping account). */
function between(from: InternalAccountId | typeof OUTSIDE, to: InternalAccountId | typeof OUTSIDE, currency: string, amount: bigint): Move {
  return { name: 'test', legs: [{ account: from, currency, amount: -amount }, { account: to, currency, amount }] };
}

async function move(from: InternalAccountId | typeof OUTSIDE, to: InternalAccountId | typeof OUTSIDE, currency: string, amount: bigint) {
  return work((uow) => t.container.ledger.book(uow, { kind: 'TEST' }, between(from, to, currency, amount)));
}

/** The ledger's refusal of a debit beyond the available balance: 400 INVALID_AMOUNT, reason INSUFFICIENT_FUNDS. */
function insufficient(error: unknown): boolean {
  return error instanceof DomainError && error.status === 400 && error.code === 'INVALID_AMOUNT' && error.reason === 'INSUFFICIENT_FUNDS';
}

describe('ledger', () => {
  it('an entry that does not balance is refused before anything moves', async () => {
    const { account, external } = await accountsIn('USD');
    await expect(
      t.database.db.transaction().execute((tx) =>
        postEntry(tx, { platformId, kind: 'TEST', postings: [{ accountId: external, currency: 'USD', amount: -100n }, { accountId: account, currency: 'USD', amount: 99n }], at: at() }),
      ),
    ).rejects.toThrow(/does not balance/);
    expect(await balanceOf(account)).toEqual({ total: 0n, held: 0n });
  });

  it('the database itself refuses to commit postings that do not sum to zero', async () => {
    const { account } = await accountsIn('USD');
    await expect(
      t.database.db.transaction().execute(async (tx) => {
        await tx.insertInto('ledger_entries').values({ id: BAD_ENTRY, platform_id: platformId, kind: 'TAMPER', transaction_id: null, description: null, created_at: at() }).execute();
        await tx.insertInto('ledger_postings').values({ id: 'p-bad', entry_id: BAD_ENTRY, platform_id: platformId, account_id: account, currency: 'USD', amount_minor: 5n, created_at: at() }).execute();
      }),
    ).rejects.toThrow(/does not balance/);
    const left = await t.database.db.selectFrom('ledger_entries').select('id').where('id', '=', BAD_ENTRY).execute();
    expect(left).toEqual([]);
  });

  it('a debit beyond the available balance is INSUFFICIENT_FUNDS and changes nothing', async () => {
    const { account } = await accountsIn('USD');
    await move(OUTSIDE, account, 'USD', 500n);
    const error = await move(account, OUTSIDE, 'USD', 501n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(insufficient(error)).toBe(true);
    expect(await balanceOf(account)).toEqual({ total: 500n, held: 0n });
    await move(account, OUTSIDE, 'USD', 500n);
    expect(await balanceOf(account)).toEqual({ total: 0n, held: 0n });
  });

  it('amounts far beyond 2^53 stay exact', async () => {
    const { account, external } = await accountsIn('BTC');
    const huge = 2n ** 60n + 7n;
    await move(OUTSIDE, account, 'BTC', huge);
    await move(OUTSIDE, account, 'BTC', huge);
    expect((await balanceOf(account)).total).toBe(2n * huge);
    // A bookkeeping account keeps no running balance; its balance is the sum of its postings.
    const posted = await t.database.db.selectFrom('ledger_postings').select((eb) => eb.fn.sum<bigint>('amount_minor').as('sum')).where('account_id', '=', external).executeTakeFirstOrThrow();
    expect(BigInt(posted.sum)).toBe(-2n * huge);
  });

  it('a hold leaves totalBalance alone, lowers the available balance, and cannot exceed it', async () => {
    const { account } = await accountsIn('EUR');
    await move(OUTSIDE, account, 'EUR', 1000n);
    const holdId: HoldId = await work((uow) => t.container.ledger.hold(uow, { account, amount: 700n, reason: 'test' }));
    expect(await balanceOf(account)).toEqual({ total: 1000n, held: 700n });
    const tooMuch = await work((uow) => t.container.ledger.hold(uow, { account, amount: 301n, reason: 'test' })).catch((e: unknown) => e);
    expect(insufficient(tooMuch)).toBe(true);
    const overspend = await move(account, OUTSIDE, 'EUR', 301n).catch((e: unknown) => e);
    expect(insufficient(overspend)).toBe(true);
    await work((uow) => t.container.ledger.release(uow, holdId));
    expect(await balanceOf(account)).toEqual({ total: 1000n, held: 0n });
    await expect(work((uow) => t.container.ledger.release(uow, holdId))).rejects.toThrow(/not active/);
  });

  it('capturing a hold and posting its debit in one transaction moves the held funds exactly once', async () => {
    const { account } = await accountsIn('GBP');
    await move(OUTSIDE, account, 'GBP', 1000n);
    const holdId = await work((uow) => t.container.ledger.hold(uow, { account, amount: 400n, reason: 'card' }));
    await work((uow) => t.container.ledger.capture(uow, holdId, { kind: 'CAPTURE' }, OUTSIDE));
    expect(await balanceOf(account)).toEqual({ total: 600n, held: 0n });
    // A capture may move less than was held (a card clearing below its authorization): the rest is released.
    const smaller = await work((uow) => t.container.ledger.hold(uow, { account, amount: 300n, reason: 'card' }));
    await work((uow) => t.container.ledger.capture(uow, smaller, { kind: 'CAPTURE' }, OUTSIDE, 120n));
    expect(await balanceOf(account)).toEqual({ total: 480n, held: 0n });
  });

  it('100 concurrent debits racing on one account never overspend', async () => {
    const { account } = await accountsIn('MXN');
    await move(OUTSIDE, account, 'MXN', 1000n);
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => move(account, OUTSIDE, 'MXN', 30n)));
    const succeeded = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected').map((r) => insufficient(r.reason));
    expect(succeeded).toBe(33);
    expect(new Set(refused)).toEqual(new Set([true]));
    expect(await balanceOf(account)).toEqual({ total: 10n, held: 0n });
  });

  describe('an account the unit of work read under its lock', () => {
    /**
     * A unit of work in a transaction that others may share (not one `transactAlone` opened, whose
     * work commits as soon as it returns): as in a group-commit batch, whatever MONETA_COALESCE_WRITES
     * says, internalAccountToMove reads under the row lock.
     */
    function shared<T>(run: (uow: UnitOfWork) => Promise<T>): Promise<T> {
      return t.database.db.transaction().execute(async (tx) => {
        const { uow, complete } = openUnitOfWork(tx, { platformId, now: at(), actor: { type: 'OPERATOR' } });
        const result = await run(uow);
        await complete();
        return result;
      });
    }

    /** Debits `amount` from `account` read as the account to move, the way a transfer-out does. */
    function lockedDebit(account: InternalAccountId, currency: string, amount: bigint) {
      return shared(async (uow) => {
        await t.container.ledger.internalAccountToMove(uow, account);
        return t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, currency, amount));
      });
    }

    it('moves as the conditional update would: the same rows answered, the same refusals, holds and later reads seeing each move', async () => {
      const { account } = await accountsIn('USD');
      await move(OUTSIDE, account, 'USD', 1000n);
      const answered = await shared(async (uow) => {
        await t.container.ledger.internalAccountToMove(uow, account);
        expect(lockedRows(uow.tx).has(account)).toBe(true);
        const first = await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 'USD', 100n));
        const second = await t.container.ledger.book(uow, { kind: 'TEST' }, between(OUTSIDE, account, 'USD', 30n));
        // A hold is decided by PostgreSQL on the row as the two moves left it, and the ledger then knows its answer.
        const holdId = await t.container.ledger.hold(uow, { account, amount: 900n, reason: 'test' });
        const third = await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 'USD', 31n)).catch((e: unknown) => e);
        const read = await t.container.ledger.internalAccount(uow.tx, platformId, account);
        await t.container.ledger.release(uow, holdId);
        const fourth = await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 'USD', 30n));
        return { first: first!.accounts[0]!, second: second!.accounts[0]!, third, read, fourth: fourth!.accounts[0]! };
      });
      expect([answered.first.total_minor, answered.first.held_minor]).toEqual([900n, 0n]);
      expect([answered.second.total_minor, answered.second.held_minor]).toEqual([930n, 0n]);
      expect(insufficient(answered.third)).toBe(true);
      expect([answered.read.total_minor, answered.read.held_minor]).toEqual([930n, 900n]);
      const stored = await t.database.db.selectFrom('ledger_accounts').selectAll().where('id', '=', account).executeTakeFirstOrThrow();
      expect(answered.fourth).toEqual(stored);
      expect(await balanceOf(account)).toEqual({ total: 900n, held: 0n });
      expect(await reconcile(t.database.db)).toEqual([]);
    });

    it('a refusal is decided on the locked row and changes nothing', async () => {
      const { account } = await accountsIn('EUR');
      await move(OUTSIDE, account, 'EUR', 500n);
      const error = await lockedDebit(account, 'EUR', 501n).catch((e: unknown) => e);
      expect(insufficient(error)).toBe(true);
      expect((error as DomainError).details).toMatchObject({ accountId: account, availableAmount: 500n, requestedAmount: 501n });
      expect(await balanceOf(account)).toEqual({ total: 500n, held: 0n });
    });

    it('going back to a savepoint forgets the locked row: a later move asks PostgreSQL again', async () => {
      const { account } = await accountsIn('GBP');
      await move(OUTSIDE, account, 'GBP', 100n);
      await shared(async (uow) => {
        await inSavepoint(uow.tx, async () => {
          await t.container.ledger.internalAccountToMove(uow, account);
          throw new Error('the attempt fails after locking');
        }).catch(() => undefined);
        // Another transaction may now change the row; this one no longer claims to know it.
        expect(lockedRows(uow.tx).has(account)).toBe(false);
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(account, OUTSIDE, 'GBP', 40n));
      });
      expect(await balanceOf(account)).toEqual({ total: 60n, held: 0n });
    });

    it('in a transaction of its own, the account is read without its lock (the lock would span the request)', async () => {
      const { account } = await accountsIn('USD');
      await move(OUTSIDE, account, 'USD', 100n);
      const alone = await transactAlone(t.database.db, async (tx) => {
        const { uow } = openUnitOfWork(tx, { platformId, now: at(), actor: { type: 'OPERATOR' } });
        await t.container.ledger.internalAccountToMove(uow, account);
        return lockedRows(tx).has(account);
      });
      expect(alone).toBe(false);
      expect(await shared(async (uow) => (await t.container.ledger.internalAccountToMove(uow, account), lockedRows(uow.tx).has(account)))).toBe(true);
    });

    it('a later unit of the same batch moving the same account reads nothing: it gets the row as the unit before left it, for its own platform only', async () => {
      const { account } = await accountsIn('USD');
      await move(OUTSIDE, account, 'USD', 100n);
      const seen = await t.database.db.transaction().execute(async (tx) => {
        const scope = { platformId, now: at(), actor: { type: 'OPERATOR' as const } };
        const first = openUnitOfWork(tx, scope);
        await t.container.ledger.internalAccountToMove(first.uow, account);
        await t.container.ledger.book(first.uow, { kind: 'TEST' }, between(account, OUTSIDE, 'USD', 30n));
        await first.complete();
        // Behind the ledger's back, in the same transaction: the next unit does not ask, so it does not see it.
        await sql`UPDATE ledger_accounts SET updated_at = updated_at WHERE id = ${account}`.execute(tx);
        const second = openUnitOfWork(tx, scope);
        const row = await t.container.ledger.internalAccountToMove(second.uow, account);
        const otherPlatform = openUnitOfWork(tx, { ...scope, platformId: 'Platform:00000000-0000-7000-8000-000000000000' as PlatformId });
        const refused = await t.container.ledger.internalAccountToMove(otherPlatform.uow, account).catch((e: unknown) => e);
        return { row, refused };
      });
      expect(seen.row.total_minor).toBe(70n);
      expect(seen.row.holder_status).not.toBeUndefined();
      expect(seen.refused).toBeInstanceOf(DomainError);
      expect((seen.refused as DomainError).status).toBe(404);
      expect(await balanceOf(account)).toEqual({ total: 70n, held: 0n });
    });

    it.runIf(process.env.DATABASE_URL)('deleting a customer waits for the batch moving its account, whose later units use the standing it read', async () => {
      const created = await work(async (uow) => {
        const customer = await t.container.customers.create(uow, { customerType: 'INDIVIDUAL', fullName: 'Deleted Later', currencies: ['USD'] });
        const row = await uow.tx.selectFrom('ledger_accounts').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
        return { customerId: customer.id, account: row.id as InternalAccountId };
      });
      await move(OUTSIDE, created.account, 'USD', 100n);
      let deleted = false;
      let deletion: Promise<unknown> | undefined;
      await shared(async (uow) => {
        await t.container.ledger.internalAccountToMove(uow, created.account);
        deletion = work((other) => t.container.customers.remove(other, created.customerId)).then(() => (deleted = true));
        await new Promise((r) => setTimeout(r, 300));
        expect(deleted).toBe(false); // it waits for this transaction's lock on the account
        await t.container.ledger.book(uow, { kind: 'TEST' }, between(created.account, OUTSIDE, 'USD', 10n));
      });
      await deletion;
      expect(deleted).toBe(true);
      // After the deletion, a move reads its holder deleted (and the money modules refuse it).
      const after = await shared((uow) => t.container.ledger.internalAccountToMove(uow, created.account));
      expect(after.holder_deleted_at).not.toBeNull();
      expect(await balanceOf(created.account)).toEqual({ total: 90n, held: 0n });
    });

    it('100 concurrent locked debits on one account never overspend', async () => {
      const { account } = await accountsIn('MXN');
      await move(OUTSIDE, account, 'MXN', 1000n);
      const results = await Promise.allSettled(Array.from({ length: 100 }, () => lockedDebit(account, 'MXN', 30n)));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(33);
      expect(new Set(results.filter((r) => r.status === 'rejected').map((r) => insufficient(r.reason)))).toEqual(new Set([true]));
      expect(await balanceOf(account)).toEqual({ total: 10n, held: 0n });
      expect(await reconcile(t.database.db)).toEqual([]);
    });
  });

  it('the reconciliation finds a balance changed behind the ledger’s back', async () => {
    expect(await reconcile(t.database.db)).toEqual([]);
    const { account } = await accountsIn('CAD');
    await move(OUTSIDE, account, 'CAD', 100n);
    await sql`UPDATE ledger_accounts SET total_minor = total_minor + 1 WHERE id = ${account}`.execute(t.database.db);
    const violations = await reconcile(t.database.db);
    expect(violations.map((v) => v.check)).toEqual(['balance equals postings']);
    await sql`UPDATE ledger_accounts SET total_minor = total_minor - 1 WHERE id = ${account}`.execute(t.database.db);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});
