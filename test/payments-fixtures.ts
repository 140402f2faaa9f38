import { expect } from 'vitest';
import { sql } from 'kysely';
import type { ApiResponse, TestApp, TestPlatform } from './harness.js';
import type { TransactionId } from '../packages/server/src/core/ids.js';
import { checkConformance } from './conformance/hook.js';
import { checkDeclaredError } from './declared-errors.js';
import type { Customer, ExternalAccount, InternalAccount, List } from './wire-types.js';

/** Shared set-up for tests that move money across currencies: customers, funding, beneficiaries, settling. */

// One generator of CLABEs and beneficiaries for all tests: the external-accounts module's fixtures.
import { clabeEndingWith, mexicanBeneficiary } from '../packages/server/src/modules/external-accounts/fixtures.js';
export { clabeEndingWith, mexicanBeneficiary };

type Api = <T = unknown>(who: TestPlatform | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse<T>>;

/** Calls the app over a real socket (the app must listen): what a platform's HTTP client does. */
export function httpApi(t: TestApp): Api {
  if (!t.baseUrl) throw new Error('httpApi needs createTestApp(..., { listen: true })');
  return async <T = unknown>(who: TestPlatform | null, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const response = await fetch(`${t.baseUrl}/2025-10-13${path}`, {
      method,
      headers: { ...(who ? { authorization: who.authorization } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    checkDeclaredError(t.routes, { method, url: `/2025-10-13${path}` }, { status: response.status, body: parsed });
    await checkConformance({ method, url: `/2025-10-13${path}`, status: response.status, contentType: response.headers.get('content-type') ?? undefined, body: parsed });
    return { status: response.status, body: parsed as T, headers: Object.fromEntries(response.headers.entries()), text };
  };
}

export function paymentFixtures(t: TestApp, p: TestPlatform, api: Api = t.api) {
  async function customerWithAccount(currency: string, fund = 0, name = 'Quinn Quote') {
    const customer = await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: name, currencies: [currency] });
    expect(customer.status).toBe(201);
    const account = (await api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
    if (fund > 0) expect((await api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: fund })).status).toBe(200);
    return { customerId: customer.body.id, accountId: account.id };
  }

  async function clabeAccount(customerId: string, suffix = '219') {
    const res = await api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
      customerId,
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith(suffix), bankName: 'BBVA', beneficiary: mexicanBeneficiary },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }

  async function balance(accountId: string): Promise<number> {
    return (await api<InternalAccount>(p, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount;
  }

  /** Moves the platform's clock and runs whatever became due. */
  async function advance(seconds: number): Promise<void> {
    expect((await api(p, 'POST', '/sandbox/clock/advance', { seconds })).status).toBe(200);
    await t.container.jobs.runDue();
  }

  async function eventTypes(subjectId: string): Promise<string[]> {
    const rows = await t.database.db
      .selectFrom('events')
      .select(['type'])
      .where('platform_id', '=', p.id)
      .where(sql<boolean>`payload->'data'->>'id' = ${subjectId}`)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.type);
  }

  /** Every posting booked for a transaction: account purpose (or id for internal accounts), currency and amount. */
  async function postings(transactionId: string): Promise<{ kind: string; purpose: string; accountId: string; currency: string; amount: bigint }[]> {
    const rows = await t.database.db
      .selectFrom('ledger_postings as lp')
      .innerJoin('ledger_entries as e', 'e.id', 'lp.entry_id')
      .innerJoin('ledger_accounts as a', 'a.id', 'lp.account_id')
      .select(['e.kind', 'a.purpose', 'lp.account_id', 'lp.currency', 'lp.amount_minor', 'e.created_at', 'e.id as entry_id'])
      .where('e.transaction_id', '=', transactionId as TransactionId)
      .orderBy('e.created_at')
      .orderBy('e.id')
      .execute();
    return rows.map((r) => ({ kind: r.kind, purpose: r.purpose, accountId: r.account_id, currency: r.currency, amount: r.amount_minor }));
  }

  return { customerWithAccount, clabeAccount, balance, advance, eventTypes, postings };
}
