import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../test/harness.js';
import { AppError } from '../lib/errors.js';
import { endHold, placeHold, postEntry, reconcile } from './ledger.js';

let t: TestApp;
let platformId: string;
beforeAll(async () => {
  t = await createTestApp();
  platformId = t.platform.id;
});
afterAll(async () => t?.close());

const at = () => new Date();

/** A fresh customer-style account (may not go negative) and the platform's EXTERNAL account in a currency. */
async function accountsIn(currency: string): Promise<{ account: string; external: string }> {
  return t.database.db.transaction().execute(async (tx) => {
    const customer = await t.services.customers.create({ tx, platformId, now: at() }, { customerType: 'INDIVIDUAL', fullName: 'Ledger Test', currencies: [currency] });
    const account = await tx.selectFrom('ledger_accounts').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
    const external = await t.services.accounts.systemAccount(tx, platformId, 'EXTERNAL', currency, at());
    return { account: account.id, external };
  });
}

async function balanceOf(accountId: string): Promise<{ total: bigint; held: bigint }> {
  const row = await t.database.db.selectFrom('ledger_accounts').select(['total_minor', 'held_minor']).where('id', '=', accountId).executeTakeFirstOrThrow();
  return { total: row.total_minor, held: row.held_minor };
}

async function move(from: string, to: string, currency: string, amount: bigint) {
  return t.database.db.transaction().execute((tx) =>
    postEntry(tx, { platformId, kind: 'TEST', postings: [{ accountId: from, currency, amount: -amount }, { accountId: to, currency, amount }], at: at() }),
  );
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
        await tx.insertInto('ledger_entries').values({ id: 'LedgerEntry:bad', platform_id: platformId, kind: 'TAMPER', transaction_id: null, description: null, created_at: at() }).execute();
        await tx.insertInto('ledger_postings').values({ id: 'p-bad', entry_id: 'LedgerEntry:bad', platform_id: platformId, account_id: account, currency: 'USD', amount_minor: 5n, created_at: at() }).execute();
      }),
    ).rejects.toThrow(/does not balance/);
    const left = await t.database.db.selectFrom('ledger_entries').select('id').where('id', '=', 'LedgerEntry:bad').execute();
    expect(left).toEqual([]);
  });

  it('a debit beyond the available balance is INSUFFICIENT_FUNDS and changes nothing', async () => {
    const { account, external } = await accountsIn('USD');
    await move(external, account, 'USD', 500n);
    const error = await move(account, external, 'USD', 501n).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('INSUFFICIENT_FUNDS');
    expect(await balanceOf(account)).toEqual({ total: 500n, held: 0n });
    await move(account, external, 'USD', 500n);
    expect(await balanceOf(account)).toEqual({ total: 0n, held: 0n });
  });

  it('amounts far beyond 2^53 stay exact', async () => {
    const { account, external } = await accountsIn('BTC');
    const huge = 2n ** 60n + 7n;
    await move(external, account, 'BTC', huge);
    await move(external, account, 'BTC', huge);
    expect((await balanceOf(account)).total).toBe(2n * huge);
    // A bookkeeping account keeps no running balance; its balance is the sum of its postings.
    const posted = await t.database.db.selectFrom('ledger_postings').select((eb) => eb.fn.sum<bigint>('amount_minor').as('sum')).where('account_id', '=', external).executeTakeFirstOrThrow();
    expect(BigInt(posted.sum)).toBe(-2n * huge);
  });

  it('a hold leaves totalBalance alone, lowers the available balance, and cannot exceed it', async () => {
    const { account, external } = await accountsIn('EUR');
    await move(external, account, 'EUR', 1000n);
    const holdId = await t.database.db.transaction().execute((tx) => placeHold(tx, { platformId, accountId: account, amount: 700n, reason: 'test', at: at() }));
    expect(await balanceOf(account)).toEqual({ total: 1000n, held: 700n });
    const tooMuch = await t.database.db.transaction().execute((tx) => placeHold(tx, { platformId, accountId: account, amount: 301n, reason: 'test', at: at() })).catch((e: unknown) => e);
    expect((tooMuch as AppError).code).toBe('INSUFFICIENT_FUNDS');
    const overspend = await move(account, external, 'EUR', 301n).catch((e: unknown) => e);
    expect((overspend as AppError).code).toBe('INSUFFICIENT_FUNDS');
    await t.database.db.transaction().execute((tx) => endHold(tx, { platformId, holdId, outcome: 'RELEASED', at: at() }));
    expect(await balanceOf(account)).toEqual({ total: 1000n, held: 0n });
    await expect(t.database.db.transaction().execute((tx) => endHold(tx, { platformId, holdId, outcome: 'RELEASED', at: at() }))).rejects.toThrow(/not active/);
  });

  it('capturing a hold and posting its debit in one transaction moves the held funds exactly once', async () => {
    const { account, external } = await accountsIn('GBP');
    await move(external, account, 'GBP', 1000n);
    const holdId = await t.database.db.transaction().execute((tx) => placeHold(tx, { platformId, accountId: account, amount: 400n, reason: 'card', at: at() }));
    await t.database.db.transaction().execute(async (tx) => {
      const { amount } = await endHold(tx, { platformId, holdId, outcome: 'CAPTURED', at: at() });
      await postEntry(tx, { platformId, kind: 'CAPTURE', postings: [{ accountId: account, currency: 'GBP', amount: -amount }, { accountId: external, currency: 'GBP', amount }], at: at() });
    });
    expect(await balanceOf(account)).toEqual({ total: 600n, held: 0n });
  });

  it('100 concurrent debits racing on one account never overspend', async () => {
    const { account, external } = await accountsIn('MXN');
    await move(external, account, 'MXN', 1000n);
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => move(account, external, 'MXN', 30n)));
    const succeeded = results.filter((r) => r.status === 'fulfilled').length;
    const refused = results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as AppError).code);
    expect(succeeded).toBe(33);
    expect(new Set(refused)).toEqual(new Set(['INSUFFICIENT_FUNDS']));
    expect(await balanceOf(account)).toEqual({ total: 10n, held: 0n });
  });

  it('the reconciliation finds a balance changed behind the ledger’s back', async () => {
    expect(await reconcile(t.database.db)).toEqual([]);
    const { account, external } = await accountsIn('CAD');
    await move(external, account, 'CAD', 100n);
    await sql`UPDATE ledger_accounts SET total_minor = total_minor + 1 WHERE id = ${account}`.execute(t.database.db);
    const violations = await reconcile(t.database.db);
    expect(violations.map((v) => v.check)).toEqual(['balance equals postings']);
    await sql`UPDATE ledger_accounts SET total_minor = total_minor - 1 WHERE id = ${account}`.execute(t.database.db);
    expect(await reconcile(t.database.db)).toEqual([]);
  });
});
