import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';
import type { Customer } from './wire-types.js';
import { WriteWatch } from './write-watch.js';

/** The sweeps' proof that a refused request changed nothing rests on this: it must see every committed change, and only those. */
let t: TestApp;
let watch: WriteWatch;
let customerId: string;
beforeAll(async () => {
  t = await createTestApp();
  watch = await WriteWatch.install(t.database.db);
  const created = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'watch-1', fullName: 'Watched Person' });
  expect(created.status, created.text).toBe(201);
  customerId = created.body.id;
});
afterAll(async () => {
  await watch?.remove();
  await t?.close();
});

const rename = (to: string) => sql`update customers set email = ${to} where id = ${customerId}`;

describe('WriteWatch', () => {
  it('names the tables a committed request changed', async () => {
    const before = await watch.look();
    const res = await t.api(t.platform, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', email: 'watched@example.com' });
    expect(res.status, res.text).toBe(200);
    expect(await watch.changedSince(before)).toContain('customers');
  });

  it('sees nothing for a refused request, a rolled-back write, or an update that changes no value', async () => {
    const before = await watch.look();
    expect((await t.api(t.platform, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', email: 'not an email' })).status).toBe(400);
    await t.database.db
      .transaction()
      .execute(async (tx) => {
        await rename('rolled-back@example.com').execute(tx);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await sql`update customers set email = email where id = ${customerId}`.execute(t.database.db);
    expect(await watch.changedSince(before)).toEqual([]);
  });

  it('sees a change committed and put back in one transaction as no change, and one left in place as a change', async () => {
    const { rows } = await sql<{ email: string }>`select email from customers where id = ${customerId}`.execute(t.database.db);
    const before = await watch.look();
    await t.database.db.transaction().execute(async (tx) => {
      await rename('for-a-moment@example.com').execute(tx);
      await rename(rows[0]!.email).execute(tx);
    });
    expect(await watch.changedSince(before)).toEqual([]);
    const next = await watch.look();
    await rename('changed@example.com').execute(t.database.db);
    expect(await watch.changedSince(next)).toEqual(['customers']);
  });

  it('starts each look from the database as it is: a change made between looks is not reported by the next', async () => {
    await rename('between-looks@example.com').execute(t.database.db);
    const before = await watch.look();
    expect(await watch.changedSince(before)).toEqual([]);
  });
});
