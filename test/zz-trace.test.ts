import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from './harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ MONETA_COALESCE_WRITES: 'on' }, { listen: true });
});
afterAll(async () => t?.close());

it('traces', async () => {
  const h = { authorization: t.platform.authorization, 'content-type': 'application/json' };
  const c = await fetch(`${t.baseUrl}/2025-10-13/customers`, { method: 'POST', headers: h, body: JSON.stringify({ customerType: 'INDIVIDUAL', fullName: 'Tr Ace', currencies: ['USD'] }) });
  const id = ((await c.json()) as { id: string }).id;
  const accounts = await fetch(`${t.baseUrl}/2025-10-13/customers/internal-accounts?customerId=${id}`, { headers: h });
  const account = ((await accounts.json()) as { data: { id: string }[] }).data[0]!.id;
  await new Promise((r) => setTimeout(r, 500));
  await sql`select 'TRACE-START'`.execute(t.database.db);
  for (let i = 0; i < 2; i++) {
    const r = await fetch(`${t.baseUrl}/2025-10-13/sandbox/internal-accounts/${account}/fund`, { method: 'POST', headers: { ...h, 'idempotency-key': `k${i}` }, body: JSON.stringify({ amount: 100 }) });
    expect(r.status, await r.text()).toBeLessThan(300);
  }
  await sql`select 'TRACE-END'`.execute(t.database.db);
});
