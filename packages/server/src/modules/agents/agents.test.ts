import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { clabeEndingWith, httpApi, mexicanBeneficiary, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ExternalAccount, InternalAccount, List, Quote, Transaction } from '../../../../../test/wire-types.js';

let t: TestApp;
let p: TestPlatform;
let api: ReturnType<typeof httpApi>;
let f: ReturnType<typeof paymentFixtures>;

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  p = t.platform;
  api = httpApi(t);
  f = paymentFixtures(t, p, api);
});
afterAll(async () => t?.close());

interface AgentView {
  id: string;
  name: string;
  customerId: string;
  isPaused: boolean;
  isConnected: boolean;
  policy: Record<string, unknown>;
  usage: { dailyTransactionCount: number; dailySpend: number; monthlySpend: number; dailyResetDate: string; monthlyResetMonth: string };
}
interface ActionView {
  id: string;
  agentId: string;
  status: string;
  type: string;
  transaction?: Transaction;
  quote?: Quote;
  transferDetails?: { amount: number; currency: string; sourceAccountId: string; destinationAccountId: string };
  rejectionReason?: string;
  failureReason?: string;
}

const ALL = ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES', 'MANAGE_EXTERNAL_ACCOUNTS'];
const policyOf = (overrides: Record<string, unknown> = {}) => ({
  permissions: ALL,
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: 2_500, dailyTransactionLimit: 10 },
  ...overrides,
});

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ada Agent', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } };
let accountSeq = 0;
async function usAccount(customerId: string): Promise<string> {
  accountSeq += 1;
  const res = await api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: `77${String(accountSeq).padStart(6, '0')}100`, bankName: 'Chase', beneficiary },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A customer with a funded USD account and a bank account, and a connected agent for it. */
async function agentFor(policy = policyOf(), fund = 100_000) {
  const { customerId, accountId } = await f.customerWithAccount('USD', fund, 'Agatha Agent');
  const bank = await usAccount(customerId);
  const created = await api<{ agent: AgentView; deviceCode: { code: string; agentId: string; expiresAt: string; redeemed: boolean } }>(p, 'POST', '/agents', { name: 'Bookkeeper', customerId, policy });
  expect(created.status, created.text).toBe(201);
  const redeemed = await api<{ agentId: string; agentName: string; accessToken: string }>(null, 'POST', `/agents/device-codes/${created.body.deviceCode.code}/redeem`);
  expect(redeemed.status, redeemed.text).toBe(200);
  const bearer = { authorization: `Bearer ${redeemed.body.accessToken}` };
  const as = <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<ApiResponse<T>> => api<T>(null, method, path, body, bearer);
  return { customerId, accountId, bank, agentId: created.body.agent.id, code: created.body.deviceCode.code, token: redeemed.body.accessToken, as };
}

const out = (accountId: string, bank: string, amount: number) => ({ source: { accountId }, destination: { accountId: bank }, amount });

describe('onboarding with a device code', () => {
  it('creates an agent with a device code the agent redeems once for a token shown once; the platform sees it connected', async () => {
    const { customerId } = await f.customerWithAccount('USD', 0, 'Olive Onboard');
    const created = await api<{ agent: AgentView; deviceCode: { code: string; agentId: string; expiresAt: string; redeemed: boolean } }>(p, 'POST', '/agents', { name: 'Helper', customerId, policy: policyOf() });
    expect(created.status).toBe(201);
    expect(created.body.agent).toMatchObject({ name: 'Helper', customerId, isPaused: false, isConnected: false, usage: { dailySpend: 0, dailyTransactionCount: 0 } });
    expect(created.body.agent.id).toMatch(/^Agent:/);
    const { code } = created.body.deviceCode;
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect((await api(p, 'GET', `/agents/device-codes/${code}/status`)).body).toEqual({ code, redeemed: false });

    const redeemed = await api<{ agentId: string; agentName: string; accessToken: string; policy: unknown }>(null, 'POST', `/agents/device-codes/${code}/redeem`);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body).toMatchObject({ agentId: created.body.agent.id, agentName: 'Helper', policy: policyOf() });
    expect(redeemed.body.accessToken).toMatch(/^agt_/);
    expect((await api(p, 'GET', `/agents/device-codes/${code}/status`)).body).toEqual({ code, redeemed: true });
    expect(errorOf(await api(null, 'POST', `/agents/device-codes/${code}/redeem`))).toBe('INVALID_INPUT DEVICE_CODE_USED');
    expect((await api<AgentView>(p, 'GET', `/agents/${created.body.agent.id}`)).body.isConnected).toBe(true);
    // The token is stored hashed only.
    const rows = await t.database.db.selectFrom('agent_tokens').select('token_hash').execute();
    expect(rows.map((r) => r.token_hash)).not.toContain(redeemed.body.accessToken);

    // A new code invalidates the unredeemed one; an expired one is refused; an unknown one is 404.
    const first = (await api<{ code: string }>(p, 'POST', `/agents/${created.body.agent.id}/device-codes`)).body.code;
    const second = (await api<{ code: string }>(p, 'POST', `/agents/${created.body.agent.id}/device-codes`)).body.code;
    expect(errorOf(await api(null, 'POST', `/agents/device-codes/${first}/redeem`))).toBe('INVALID_INPUT DEVICE_CODE_USED');
    await f.advance(16 * 60);
    expect(errorOf(await api(null, 'POST', `/agents/device-codes/${second}/redeem`))).toBe('INVALID_INPUT DEVICE_CODE_EXPIRED');
    expect((await api(null, 'POST', '/agents/device-codes/AAAA-BBBB-CCCC/redeem')).status).toBe(404);
  });

  it('keeps bearer tokens and platform credentials apart', async () => {
    const a = await agentFor();
    expect((await a.as<AgentView>('GET', '/agents/me')).body.id).toBe(a.agentId);
    expect((await api(p, 'GET', '/agents/me')).status).toBe(401);
    expect((await a.as('GET', '/customers')).status).toBe(401);
    expect((await a.as('GET', `/agents/${a.agentId}`)).status).toBe(401);
    expect((await api(null, 'GET', '/agents/me', undefined, { authorization: 'Bearer agt_not-a-real-token-at-all-000000' })).status).toBe(401);
  });
});

describe('acting for its customer', () => {
  it('sees only its customer’s accounts and transactions, and 404s for another customer’s', async () => {
    const a = await agentFor();
    const other = await f.customerWithAccount('USD', 1_000, 'Someone Else');
    const accounts = await a.as<List<InternalAccount>>('GET', '/agents/me/internal-accounts');
    expect(accounts.body.data.map((x) => x.id)).toEqual([a.accountId]);
    const mine = await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 500));
    expect(mine.status, mine.text).toBe(201);
    expect(mine.body).toMatchObject({ status: 'APPROVED', type: 'TRANSFER_OUT', transferDetails: { amount: 500, currency: 'USD' } });
    expect(mine.body.transaction).toMatchObject({ status: 'PROCESSING', sentAmount: { amount: 500 } });
    const txs = await a.as<List<Transaction>>('GET', '/agents/me/transactions');
    expect(txs.body.data.every((x) => x.customerId === a.customerId)).toBe(true);
    expect(txs.body.data.map((x) => x.id)).toContain(mine.body.transaction!.id);

    const theirTx = (await api<List<Transaction>>(p, 'GET', `/transactions?customerId=${other.customerId}`)).body.data[0]!;
    expect((await a.as('GET', `/agents/me/transactions/${theirTx.id}`)).status).toBe(404);
    expect((await a.as('POST', '/agents/me/transfer-out', out(other.accountId, a.bank, 1))).status).toBe(404);
    const theirBank = await usAccount(other.customerId);
    expect((await a.as('GET', `/agents/me/external-accounts/${theirBank}`)).status).toBe(404);
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, theirBank, 1)))).toBe('INVALID_RECEIVER');
  });

  it('registers and deletes external accounts of its customer only, with MANAGE_EXTERNAL_ACCOUNTS', async () => {
    const a = await agentFor();
    const created = await a.as<ExternalAccount>('POST', '/agents/me/external-accounts', {
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('321'), bankName: 'BBVA', beneficiary: mexicanBeneficiary },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.customerId).toBe(a.customerId);
    expect((await a.as<List<ExternalAccount>>('GET', '/agents/me/external-accounts')).body.data.map((x) => x.id).sort()).toEqual([a.bank, created.body.id].sort());
    expect((await a.as('DELETE', `/agents/me/external-accounts/${created.body.id}`)).status).toBe(204);

    const limited = await agentFor(policyOf({ permissions: ['VIEW_TRANSACTIONS'] }));
    const refused = await limited.as('POST', '/agents/me/external-accounts', { currency: 'USD', accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '55500011100', beneficiary } });
    expect(errorOf(refused)).toBe('FORBIDDEN AGENT_PERMISSION_MISSING');
  });

  it('refuses every action without its permission, moving nothing', async () => {
    const a = await agentFor(policyOf({ permissions: ['CREATE_QUOTES'] }));
    const before = await f.balance(a.accountId);
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1)))).toBe('FORBIDDEN AGENT_PERMISSION_MISSING');
    expect(errorOf(await a.as('GET', '/agents/me/transactions'))).toBe('FORBIDDEN AGENT_PERMISSION_MISSING');
    const clabe = await f.clabeAccount(a.customerId);
    const quote = await a.as<Quote>('POST', '/agents/me/quotes', {
      source: { sourceType: 'ACCOUNT', accountId: a.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: clabe },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: 500,
    });
    expect(quote.status, quote.text).toBe(201);
    expect(errorOf(await a.as('POST', `/agents/me/quotes/${quote.body.id}/execute`))).toBe('FORBIDDEN AGENT_PERMISSION_MISSING');
    expect(await f.balance(a.accountId)).toBe(before);
  });
});

describe('limits and approvals', () => {
  it('allows a transaction at the per-transaction limit and refuses one over it; counts daily spend and refuses past the daily limit', async () => {
    const a = await agentFor(policyOf({ spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: 2_500, dailyTransactionLimit: 3 } }));
    const before = await f.balance(a.accountId);
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_001)))).toBe('VELOCITY_LIMIT_EXCEEDED PER_TRANSACTION_LIMIT');
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_000))).body.status).toBe('APPROVED');
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_000))).body.status).toBe('APPROVED');
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 501)))).toBe('VELOCITY_LIMIT_EXCEEDED DAILY_LIMIT');
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 500))).body.status).toBe('APPROVED');
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1)))).toBe('VELOCITY_LIMIT_EXCEEDED DAILY_TRANSACTION_LIMIT');
    expect(await f.balance(a.accountId)).toBe(before - 2_500);
    const agent = (await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body;
    expect(agent.usage).toMatchObject({ dailySpend: 2_500, dailyTransactionCount: 3, monthlySpend: 2_500 });
    // A new day starts from zero.
    await f.advance(24 * 3600);
    expect((await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body.usage).toMatchObject({ dailySpend: 0, dailyTransactionCount: 0 });
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_000))).body.status).toBe('APPROVED');
  });

  it('waits for approval above the threshold (at it, not); the platform approves (it proceeds) or rejects (with a reason the agent reads)', async () => {
    const a = await agentFor(policyOf({ approvalThresholds: { currency: 'USD', amount: 300 } }));
    const before = await f.balance(a.accountId);
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 300))).body.status).toBe('APPROVED');
    const pending = await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 301));
    expect(pending.body).toMatchObject({ status: 'PENDING_APPROVAL', type: 'TRANSFER_OUT' });
    expect(pending.body.transaction).toBeUndefined();
    expect(await f.balance(a.accountId)).toBe(before - 300);
    expect(await f.eventTypes(pending.body.id)).toEqual(['AGENT_ACTION.PENDING_APPROVAL']);
    const approvals = await api<List<ActionView>>(p, 'GET', `/agents/approvals?agentId=${a.agentId}`);
    expect(approvals.body.data.map((x) => x.id)).toEqual([pending.body.id]);

    const approved = await api<ActionView>(p, 'POST', `/agents/${a.agentId}/actions/${pending.body.id}/approve`);
    expect(approved.body).toMatchObject({ status: 'APPROVED', transaction: { status: 'PROCESSING', sentAmount: { amount: 301 } } });
    expect(await f.balance(a.accountId)).toBe(before - 601);
    expect(errorOf(await api(p, 'POST', `/agents/${a.agentId}/actions/${pending.body.id}/approve`))).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');

    const second = await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 400));
    const rejected = await api<ActionView>(p, 'POST', `/agents/${a.agentId}/actions/${second.body.id}/reject`, { reason: 'Not approved by finance' });
    expect(rejected.body).toMatchObject({ status: 'REJECTED', rejectionReason: 'Not approved by finance' });
    expect((await a.as<ActionView>('GET', `/agents/me/actions/${second.body.id}`)).body.rejectionReason).toBe('Not approved by finance');
    expect(await f.balance(a.accountId)).toBe(before - 601);
    // A rejected spend no longer counts.
    expect((await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body.usage.dailySpend).toBe(601);
  });

  it('runs quote executions through the policy: APPROVAL_REQUIRED waits, and /transactions/{id}/approve executes it', async () => {
    const a = await agentFor(policyOf({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const clabe = await f.clabeAccount(a.customerId);
    const quote = async () =>
      (
        await a.as<Quote>('POST', '/agents/me/quotes', {
          source: { sourceType: 'ACCOUNT', accountId: a.accountId },
          destination: { destinationType: 'ACCOUNT', accountId: clabe },
          lockedCurrencySide: 'SENDING',
          lockedCurrencyAmount: 500,
        })
      ).body;
    const q1 = await quote();
    const pending = await a.as<ActionView>('POST', `/agents/me/quotes/${q1.id}/execute`);
    expect(pending.body).toMatchObject({ status: 'PENDING_APPROVAL', type: 'EXECUTE_QUOTE', quote: { id: q1.id } });
    const approved = await api<Transaction>(p, 'POST', `/transactions/${q1.transactionId}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.status).toBe('PROCESSING');
    expect((await a.as<ActionView>('GET', `/agents/me/actions/${pending.body.id}`)).body.status).toBe('APPROVED');
    expect(errorOf(await api(p, 'POST', `/transactions/${q1.transactionId}/approve`))).toBe('TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL');

    const q2 = await quote();
    await a.as('POST', `/agents/me/quotes/${q2.id}/execute`);
    const rejected = await api<Transaction>(p, 'POST', `/transactions/${q2.transactionId}/reject`, { reason: 'no' });
    expect(rejected.body.status).toBe('PENDING');

    // Approved after the quote expired: the action FAILED and nothing moved.
    const q3 = await quote();
    const late = await a.as<ActionView>('POST', `/agents/me/quotes/${q3.id}/execute`);
    const before = await f.balance(a.accountId);
    await f.advance(301);
    const failed = await api<ActionView>(p, 'POST', `/agents/${a.agentId}/actions/${late.body.id}/approve`);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureReason: 'QUOTE_EXPIRED' });
    expect(await f.balance(a.accountId)).toBe(before);
    expect(errorOf(await a.as('POST', '/agents/me/quotes', { source: { sourceType: 'ACCOUNT', accountId: a.accountId }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 500, immediatelyExecute: true }))).toBe('INVALID_INPUT');
  });

  it('20 concurrent executions of one quote that needs approval make one action, counted once against the limits', async () => {
    const a = await agentFor(policyOf({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    const clabe = await f.clabeAccount(a.customerId);
    const q = (
      await a.as<Quote>('POST', '/agents/me/quotes', {
        source: { sourceType: 'ACCOUNT', accountId: a.accountId },
        destination: { destinationType: 'ACCOUNT', accountId: clabe },
        lockedCurrencySide: 'SENDING',
        lockedCurrencyAmount: 500,
      })
    ).body;
    const results = await Promise.all(Array.from({ length: 20 }, () => a.as<ActionView>('POST', `/agents/me/quotes/${q.id}/execute`)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results[0]!.body.status).toBe('PENDING_APPROVAL');
    const actions = await a.as<List<ActionView>>('GET', '/agents/me/actions?limit=100');
    expect(actions.body.data.filter((x) => x.type === 'EXECUTE_QUOTE')).toHaveLength(1);
    const usage = (await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body.usage;
    expect(usage).toMatchObject({ dailySpend: q.totalSendingAmount, dailyTransactionCount: 1 });
  });

  it('restricts accounts and overrides per account', async () => {
    const a = await agentFor(policyOf({ accountRestrictions: { allowedAccountIds: [] } }));
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1)))).toBe('FORBIDDEN ACCOUNT_NOT_ALLOWED');
    await api(p, 'PATCH', `/agents/${a.agentId}/policy`, { accountRestrictions: { allowedAccountIds: null, accountRules: [{ accountId: a.accountId, perTransactionLimit: 50, executionMode: 'APPROVAL_REQUIRED' }] } });
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 51)))).toBe('VELOCITY_LIMIT_EXCEEDED PER_TRANSACTION_LIMIT');
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 50))).body.status).toBe('PENDING_APPROVAL');
  });
});

describe('lifecycle', () => {
  it('pauses (its token refused at once), resumes, updates its policy, and deletes (token dead)', async () => {
    const a = await agentFor();
    expect((await api<AgentView>(p, 'PATCH', `/agents/${a.agentId}`, { isPaused: true })).body.isPaused).toBe(true);
    expect(errorOf(await a.as('GET', '/agents/me'))).toBe('FORBIDDEN AGENT_PAUSED');
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1)))).toBe('FORBIDDEN AGENT_PAUSED');
    await api(p, 'PATCH', `/agents/${a.agentId}`, { isPaused: false, name: 'Renamed' });
    expect((await a.as<AgentView>('GET', '/agents/me')).body.name).toBe('Renamed');
    const updated = await api<AgentView>(p, 'PATCH', `/agents/${a.agentId}/policy`, { spendingLimits: { perTransactionLimit: 5 } });
    expect(updated.body.policy).toMatchObject({ spendingLimits: { currency: 'USD', perTransactionLimit: 5, dailyLimit: 2_500 } });
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 6)))).toBe('VELOCITY_LIMIT_EXCEEDED PER_TRANSACTION_LIMIT');
    const listed = await api<List<AgentView>>(p, 'GET', `/agents?customerId=${a.customerId}&isConnected=true`);
    expect(listed.body.data.map((x) => x.id)).toEqual([a.agentId]);
    expect((await api(p, 'DELETE', `/agents/${a.agentId}`)).status).toBe(204);
    expect((await a.as('GET', '/agents/me')).status).toBe(401);
    expect((await api(p, 'GET', `/agents/${a.agentId}`)).status).toBe(404);
  });
});

describe('concurrency', () => {
  it('20 concurrent spends never pass the daily limit, and usage, actions and balances agree', async () => {
    const a = await agentFor(policyOf({ spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, dailyLimit: 5_000 } }), 100_000);
    const before = await f.balance(a.accountId);
    const results = await Promise.all(Array.from({ length: 20 }, () => a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_000))));
    const approved = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 403);
    expect(approved.length).toBe(5);
    expect(refused.length).toBe(15);
    expect(refused.every((r) => errorOf(r) === 'VELOCITY_LIMIT_EXCEEDED DAILY_LIMIT')).toBe(true);
    expect((await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body.usage).toMatchObject({ dailySpend: 5_000, dailyTransactionCount: 5 });
    expect(await f.balance(a.accountId)).toBe(before - 5_000);
    const actions = await a.as<List<ActionView>>('GET', '/agents/me/actions?limit=100');
    expect(actions.body.data.filter((x) => x.status === 'APPROVED').length).toBe(5);
  });
});

describe('the rest of the refusals', () => {
  it('refuses amounts that are not positive, moving nothing', async () => {
    const a = await agentFor(policyOf({ defaultExecutionMode: 'APPROVAL_REQUIRED' }));
    for (const amount of [0, -1, -2148030411643673]) {
      const res = await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, amount));
      expect(res.status, res.text).toBe(400);
    }
    expect((await api<AgentView>(p, 'GET', `/agents/${a.agentId}`)).body.usage.dailyTransactionCount).toBe(0);
  });

  it('refuses past the monthly limit, an unknown action, and agent management without MANAGE', async () => {
    const a = await agentFor(policyOf({ spendingLimits: { currency: 'USD', perTransactionLimit: 1_000, monthlyLimit: 1_500 } }));
    expect((await a.as<ActionView>('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 1_000))).body.status).toBe('APPROVED');
    expect(errorOf(await a.as('POST', '/agents/me/transfer-out', out(a.accountId, a.bank, 501)))).toBe('VELOCITY_LIMIT_EXCEEDED MONTHLY_LIMIT');
    expect(errorOf(await a.as('GET', '/agents/me/actions/AgentAction:01a20061-044a-7399-9737-e82f3a74e590'))).toBe('REFERENCE_NOT_FOUND AGENT_ACTION_NOT_FOUND');
    expect(errorOf(await api(p, 'POST', `/agents/${a.agentId}/actions/AgentAction:01a20061-044a-7399-9737-e82f3a74e590/approve`))).toBe('REFERENCE_NOT_FOUND AGENT_ACTION_NOT_FOUND');
    const transact = await t.newToken(p, ['TRANSACT']);
    expect(errorOf(await api(transact, 'POST', '/agents', { name: 'x', customerId: a.customerId, policy: policyOf() }))).toBe('FORBIDDEN');
    expect(errorOf(await api(transact, 'PATCH', `/agents/${a.agentId}/policy`, { defaultExecutionMode: 'AUTO' }))).toBe('FORBIDDEN');
  });
});
