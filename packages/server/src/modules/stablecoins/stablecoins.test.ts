import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { API_PREFIX, loadConfig } from '../../config.js';
import { buildApp } from '../../app.js';
import { reconcile } from '../../ledger/reconcile.js';
import { sparkAddress } from '../../sandbox/funding-instructions.js';
import type { ApiError, Customer, InternalAccount, List } from '../../../../../test/wire-types.js';
import { sparkTokenIdentifier } from './fixtures.js';

interface Link {
  id: string;
  provider: string;
  providerAccountId: string;
  providerEnvironment: string;
  status: string;
  lastVerifiedAt?: string;
}
interface Coin {
  id: string;
  stablecoinProviderAccountId: string;
  issuanceStatus: string;
  gridOperationsStatus: string;
  decimals: number;
  baseCurrency: string;
}
interface Operation {
  id: string;
  stablecoinId: string;
  operationType: string;
  status: string;
  amount: string;
  source: Record<string, unknown>;
  destination: Record<string, unknown>;
  fundingInstructions?: Record<string, unknown>;
  estimatedDelivery?: Record<string, unknown>;
  expiresAt?: string;
  failureReason?: string;
  providerStatus?: string;
}

let t: TestApp;
let p: TestPlatform;
let clients = 0;
let tokens = 0;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

const link = (who: TestPlatform, overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.api<Link>(who, 'POST', '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `client-${++clients}`, apiClientSecret: 'brale-secret-value', ...overrides }, headers);
const register = (who: TestPlatform, body: Record<string, unknown> = {}) =>
  t.api<Coin>(who, 'POST', '/stablecoins', { providerTokenIdentifier: `TK${++tokens}`, networkTokenIdentifier: sparkTokenIdentifier(), network: 'SPARK', ...body });
const balance = async (accountId: string, who: TestPlatform = p) => (await t.api<InternalAccount>(who, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount;

async function advance(seconds: number, who: TestPlatform = p) {
  await t.api(who, 'POST', '/sandbox/clock/advance', { seconds });
  await t.container.jobs.runDue();
}

/** A platform with one link, one coin, a Spark wallet and a USD bank account. */
async function issuer(who: TestPlatform) {
  const linked = await link(who);
  expect(linked.status, linked.text).toBe(201);
  const coin = await register(who, { stablecoinProviderAccountId: linked.body.id });
  expect(coin.status, coin.text).toBe(201);
  const wallet = await t.api<{ id: string; status: string }>(who, 'POST', '/platform/external-accounts', { currency: 'USDB', accountInfo: { accountType: 'SPARK_WALLET', address: sparkAddress() } });
  expect(wallet.status, wallet.text).toBe(201);
  const bank = await t.api<{ id: string }>(who, 'POST', '/platform/external-accounts', {
    currency: 'USD',
    accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: `7700${String(++clients).padStart(6, '0')}`, bankName: 'Issuer Bank', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Issuer Inc', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } } },
  });
  expect(bank.status, bank.text).toBe(201);
  return { linkId: linked.body.id, coinId: coin.body.id, walletId: wallet.body.id, bankId: bank.body.id };
}

async function fundedAccount(amount: number) {
  const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ivy Issuer', currencies: ['USD'] });
  const account = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
  if (amount > 0) expect((await t.api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount })).status).toBe(200);
  return account.id;
}

/** A new platform's own USD internal account, funded with `amount` cents. */
async function platformAccount(who: TestPlatform, amount: number) {
  const accounts = await t.api<List<InternalAccount>>(who, 'GET', '/platform/internal-accounts');
  const usd = accounts.body.data.find((a) => a.balance.currency.code === 'USD')!;
  if (amount > 0) expect((await t.api(who, 'POST', `/sandbox/internal-accounts/${usd.id}/fund`, { amount })).status).toBe(200);
  return usd.id;
}

const mintFromAccount = (who: TestPlatform, coinId: string, walletId: string, accountId: string, amount: string) =>
  t.api<Operation>(who, 'POST', `/stablecoins/${coinId}/mints`, { amount, fundingSource: { type: 'GRID_INTERNAL_ACCOUNT', accountId }, destination: { accountId: walletId } });

describe('provider account links', () => {
  it('links with verified credentials, never answers the secret and keeps it sealed; a replay with the same key links once', async () => {
    const secret = 'brale-super-secret-0123456789';
    const headers = { 'Idempotency-Key': `link-${Date.now()}` };
    const res = await link(p, { apiClientSecret: secret }, headers);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ provider: 'BRALE', providerEnvironment: 'SANDBOX', status: 'ACTIVE' });
    expect(res.body.id).toMatch(/^StablecoinProviderAccount:/);
    expect(res.body.lastVerifiedAt).toBeDefined();
    expect(res.text).not.toContain(secret);
    expect(res.text).not.toContain('apiClient');
    const replay = await t.api<Link>(p, 'POST', '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: `client-${clients}`, apiClientSecret: secret }, headers);
    expect(replay.body.id).toBe(res.body.id);
    const rows = await t.database.db.selectFrom('stablecoin_provider_accounts').selectAll().where('id', '=', res.body.id as never).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.credentials_sealed).not.toContain(secret);
    const got = await t.api<Link>(p, 'GET', `/stablecoin-provider-accounts/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    const listed = await t.api<List<Link>>(p, 'GET', '/stablecoin-provider-accounts?status=ACTIVE&provider=BRALE&limit=100');
    expect(listed.body.data.map((l) => l.id)).toContain(res.body.id);
    expect(listed.text).not.toContain(secret);
  });

  it('refuses credentials the provider does not accept, and stores nothing', async () => {
    const before = await t.database.db.selectFrom('stablecoin_provider_accounts').select('id').execute();
    const res = await link(p, { apiClientSecret: 'wrong-INVALID' });
    expect(res.status).toBe(400);
    expect(errorOf(res)).toBe('STABLECOIN_PROVIDER_ACCOUNT_INVALID');
    expect(res.text).not.toContain('wrong-INVALID');
    expect(await t.database.db.selectFrom('stablecoin_provider_accounts').select('id').execute()).toHaveLength(before.length);
  });

  it('credentials reaching several provider accounts must name one; a provider account is linked once while ACTIVE', async () => {
    const clientId = `client-${++clients}-multi`;
    const unnamed = await link(p, { apiClientId: clientId });
    expect(errorOf(unnamed)).toBe('STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED');
    const choices = (unnamed.body as unknown as ApiError).details!.choices as string[];
    expect(choices).toHaveLength(2);
    const stranger = await link(p, { apiClientId: clientId, providerAccountId: 'not-theirs' });
    expect(errorOf(stranger)).toBe('INVALID_INPUT');
    const named = await link(p, { apiClientId: clientId, providerAccountId: choices[1] });
    expect(named.status).toBe(201);
    expect(named.body.providerAccountId).toBe(choices[1]);
    const again = await link(p, { apiClientId: clientId, providerAccountId: choices[1] });
    expect(again.status).toBe(409);
    expect(errorOf(again)).toBe('CONFLICT PROVIDER_ACCOUNT_ALREADY_LINKED');
  });

  it('the periodic check marks revoked and invalid credentials; a revoked link refuses work until linked again with new credentials', async () => {
    const other = await t.newPlatform('revoking issuer');
    const clientId = `client-${++clients}`;
    const revoked = await link(other, { apiClientId: clientId, apiClientSecret: 'soon-revoked' });
    const expiring = await link(other, { apiClientSecret: 'soon-expires' });
    expect([revoked.body.status, expiring.body.status]).toEqual(['ACTIVE', 'ACTIVE']);
    await advance(3601, other);
    expect((await t.api<Link>(other, 'GET', `/stablecoin-provider-accounts/${revoked.body.id}`)).body.status).toBe('REVOKED');
    expect((await t.api<Link>(other, 'GET', `/stablecoin-provider-accounts/${expiring.body.id}`)).body.status).toBe('INVALID');
    expect(errorOf(await register(other, { stablecoinProviderAccountId: revoked.body.id }))).toBe('STABLECOIN_PROVIDER_ACCOUNT_REVOKED');
    expect(errorOf(await register(other, { stablecoinProviderAccountId: expiring.body.id }))).toBe('STABLECOIN_PROVIDER_ACCOUNT_INVALID');
    // No ACTIVE link and no choice: the status of those there are.
    expect(errorOf(await register(other))).toBe('STABLECOIN_PROVIDER_ACCOUNT_INVALID');
    const relinked = await link(other, { apiClientId: clientId, apiClientSecret: 'fresh-secret' });
    expect(relinked.status).toBe(201);
    expect(relinked.body).toMatchObject({ id: revoked.body.id, status: 'ACTIVE' });
    expect((await register(other)).status).toBe(201);
    // The re-linked credentials pass the next check; the old chain of checks stopped.
    await advance(3601, other);
    expect((await t.api<Link>(other, 'GET', `/stablecoin-provider-accounts/${revoked.body.id}`)).body.status).toBe('ACTIVE');
  });

  it("another platform's link is not found, and not listed", async () => {
    const other = await t.newPlatform('stranger');
    const mine = await link(p);
    const res = await t.api(other, 'GET', `/stablecoin-provider-accounts/${mine.body.id}`);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toBe('STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND');
    expect((await t.api<List<Link>>(other, 'GET', '/stablecoin-provider-accounts')).body.data).toEqual([]);
    expect(errorOf(await register(other, { stablecoinProviderAccountId: mine.body.id }))).toBe('STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND');
  });
});

describe('key rotation', () => {
  it('re-seals link credentials with the new key (cli reseal); the link keeps working with only the new key', async () => {
    const keyA = randomBytes(32);
    const keyB = randomBytes(32);
    const before = await createTestApp({}, { encryptionKey: keyA });
    try {
      const linked = await before.api<Link>(before.platform, 'POST', '/stablecoin-provider-accounts', { provider: 'BRALE', apiClientId: 'rotating-client', apiClientSecret: 'rotating-secret' });
      const rotating = await createTestApp({}, { encryptionKey: { current: keyB, previous: [keyA] }, database: before.database });
      expect(await rotating.container.stablecoins.links.reseal()).toBe(1);
      expect(await rotating.container.stablecoins.links.reseal()).toBe(0);
      await rotating.close();
      const after = await createTestApp({}, { encryptionKey: keyB, database: before.database });
      const coin = await after.api<Coin>(before.platform, 'POST', '/stablecoins', { providerTokenIdentifier: 'ROT', networkTokenIdentifier: sparkTokenIdentifier(), network: 'SPARK', stablecoinProviderAccountId: linked.body.id });
      expect(coin.status, coin.text).toBe(201);
      await after.close();
    } finally {
      await before.close();
    }
  });
});

describe('stablecoins', () => {
  it('registers through the one active link; several need a choice; none is not found', async () => {
    const fresh = await t.newPlatform('new issuer');
    expect(errorOf(await register(fresh))).toBe('STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND');
    const first = await link(fresh);
    const coin = await register(fresh, { providerTokenIdentifier: 'ACME' });
    expect(coin.status, coin.text).toBe(201);
    expect(coin.body).toMatchObject({
      name: 'ACME Dollar',
      symbol: 'ACME',
      baseCurrency: 'USD',
      decimals: 6,
      network: 'SPARK',
      issuanceStatus: 'PROVISIONED',
      gridOperationsStatus: 'NOT_ENABLED',
      provider: 'BRALE',
      providerEnvironment: 'SANDBOX',
      providerTokenIdentifier: 'ACME',
      stablecoinProviderAccountId: first.body.id,
    });
    expect(errorOf(await register(fresh, { providerTokenIdentifier: 'ACME' }))).toBe('CONFLICT STABLECOIN_ALREADY_REGISTERED');
    const unknown = await register(fresh, { providerTokenIdentifier: 'UNKNOWNX' });
    expect(errorOf(unknown)).toBe('INVALID_INPUT');
    await link(fresh);
    const ambiguous = await register(fresh);
    expect(errorOf(ambiguous)).toBe('STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED');
    expect((await t.api<Coin>(fresh, 'GET', `/stablecoins/${coin.body.id}`)).body).toEqual(coin.body);
    const listed = await t.api<List<Coin>>(fresh, 'GET', '/stablecoins?issuanceStatus=PROVISIONED&provider=BRALE');
    expect(listed.body.data.map((c) => c.id)).toEqual([coin.body.id]);
    expect((await t.api<List<Coin>>(fresh, 'GET', '/stablecoins?gridOperationsStatus=ENABLED')).body.data).toEqual([]);
    expect(errorOf(await t.api(p, 'GET', `/stablecoins/${coin.body.id}`))).toBe('REFERENCE_NOT_FOUND STABLECOIN_NOT_FOUND');
  });

  it('a token still in review at the provider cannot be minted', async () => {
    const { linkId, walletId } = await issuer(p);
    const coin = await register(p, { providerTokenIdentifier: 'SLOWREVIEW', stablecoinProviderAccountId: linkId });
    expect(coin.body.issuanceStatus).toBe('PENDING_REVIEW');
    const res = await t.api(p, 'POST', `/stablecoins/${coin.body.id}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId } });
    expect(errorOf(res)).toBe('CONFLICT STABLECOIN_NOT_PROVISIONED');
  });
});

describe('mints', () => {
  it("from the platform's internal account: debited into transit at once, sent to the provider when it completes", async () => {
    const who = await t.newPlatform('minting issuer');
    const { coinId, walletId } = await issuer(who);
    const accountId = await platformAccount(who, 5_000);
    const res = await mintFromAccount(who, coinId, walletId, accountId, '12340000');
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ operationType: 'MINT', status: 'PROCESSING', amount: '12340000', source: { type: 'GRID_INTERNAL_ACCOUNT', accountId }, destination: { accountId: walletId } });
    expect(await balance(accountId, who)).toBe(5_000 - 1_234);
    await advance(3, who);
    const done = await t.api<Operation>(who, 'GET', `/stablecoin-operations/${res.body.id}`);
    expect(done.body.status).toBe('COMPLETED');
    expect(await balance(accountId, who)).toBe(5_000 - 1_234);
    const entries = await t.database.db.selectFrom('ledger_entries').select('kind').where('description', '=', res.body.id).execute();
    expect(entries.map((e) => e.kind).sort()).toEqual(['STABLECOIN_MINT_DEBIT', 'STABLECOIN_MINT_SETTLED']);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('a failed mint is refunded exactly once, however often its job runs', async () => {
    const who = await t.newPlatform('failing issuer');
    const { coinId, walletId } = await issuer(who);
    const accountId = await platformAccount(who, 5_000);
    const res = await mintFromAccount(who, coinId, walletId, accountId, '10020000');
    expect(res.status).toBe(201);
    expect(await balance(accountId, who)).toBe(3_998);
    await advance(3, who);
    const failed = await t.api<Operation>(who, 'GET', `/stablecoin-operations/${res.body.id}`);
    expect(failed.body).toMatchObject({ status: 'FAILED', failureReason: 'PROVIDER_TRANSFER_FAILED' });
    expect(await balance(accountId, who)).toBe(5_000);
    // The job again (a worker that crashed after committing, say): nothing more moves.
    await t.database.db.transaction().execute(async (tx) => {
      const row = await tx.selectFrom('stablecoin_operations').select(['platform_id']).where('id', '=', res.body.id as never).executeTakeFirstOrThrow();
      const { openUnitOfWork } = await import('../../core/unit-of-work.js');
      const { uow, complete } = openUnitOfWork(tx, { platformId: row.platform_id, now: new Date(), actor: { type: 'OPERATOR' } });
      await t.container.stablecoins.poll(uow, { stablecoinOperationId: res.body.id });
      await complete();
    });
    expect(await balance(accountId, who)).toBe(5_000);
    const refunds = await t.database.db.selectFrom('ledger_entries').select('kind').where('description', '=', res.body.id).where('kind', '=', 'STABLECOIN_MINT_REFUND').execute();
    expect(refunds).toHaveLength(1);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('20 concurrent mints on an account that covers 7: exactly 7 are taken, none overspends', async () => {
    const who = await t.newPlatform('busy issuer');
    const { coinId, walletId } = await issuer(who);
    const accountId = await platformAccount(who, 7_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => mintFromAccount(who, coinId, walletId, accountId, '10000000')));
    const taken = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(taken).toHaveLength(7);
    expect(refused.map(errorOf)).toEqual(Array(13).fill('INVALID_AMOUNT INSUFFICIENT_FUNDS'));
    expect(await balance(accountId, who)).toBe(0);
    expect(await t.database.db.selectFrom('stablecoin_operations').select('id').where('debited_account_id', '=', accountId as never).execute()).toHaveLength(7);
    expect(await reconcile(t.database.db)).toEqual([]);
  });

  it('wire-funded: funding instructions and PENDING_FUNDING, then completed when the provider reports the funds', async () => {
    const { coinId, walletId } = await issuer(p);
    const res = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId }, description: 'Initial program funding mint' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDING_FUNDING', source: { type: 'WIRE' }, description: 'Initial program funding mint', fundingInstructions: { rail: 'WIRE', amount: '100', currency: 'USD' } });
    expect(res.body.expiresAt).toBeDefined();
    await advance(2);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body.status).toBe('PROCESSING');
    await advance(2);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body.status).toBe('COMPLETED');
  });

  it('a wire that never arrives expires at expiresAt', async () => {
    const { coinId, walletId } = await issuer(p);
    const res = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '10030000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId } });
    await advance(60);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body.status).toBe('PENDING_FUNDING');
    await advance(3 * 24 * 3600);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body).toMatchObject({ status: 'EXPIRED', failureReason: 'FUNDING_NOT_RECEIVED' });
  });

  it('ACH debit from a bank account: PENDING_PROVIDER, then COMPLETED', async () => {
    const { coinId, walletId, bankId } = await issuer(p);
    const res = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '2500000', fundingSource: { type: 'SAME_DAY_ACH_DEBIT', externalAccountId: bankId }, destination: { accountId: walletId } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDING_PROVIDER', source: { type: 'SAME_DAY_ACH_DEBIT', externalAccountId: bankId } });
    await advance(1);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body.status).toBe('PROCESSING');
    await advance(2);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${res.body.id}`)).body.status).toBe('COMPLETED');
  });

  it('bad input: every problem at once, and nothing changes', async () => {
    const { coinId, walletId, bankId } = await issuer(p);
    const res = await t.api<ApiError>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000001', fundingSource: { type: 'ACH_DEBIT', accountId: 'InternalAccount:00000000-0000-7000-8000-000000000000' }, destination: { accountId: walletId } });
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(res.body.details!.errors!.map((e) => e.field).sort()).toEqual(['amount', 'fundingSource.accountId', 'fundingSource.externalAccountId']);
    const wrongWallet = await t.api<ApiError>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'ACH_DEBIT', externalAccountId: walletId }, destination: { accountId: bankId } });
    expect(wrongWallet.body.details!.errors!.map((e) => e.field).sort()).toEqual(['destination.accountId', 'fundingSource.externalAccountId']);
    const internal = await t.api<ApiError>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: await fundedAccount(0) } });
    expect(internal.body.details!.errors!.map((e) => e.field)).toEqual(['destination.accountId']);
    const unavailable = await t.api(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '10050000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId } });
    expect(unavailable.status).toBe(503);
    expect(errorOf(unavailable)).toBe('SERVICE_UNAVAILABLE STABLECOIN_PROVIDER_UNAVAILABLE');
    const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Cora Customer', currencies: ['USD'] });
    const customerBank = await t.api<{ id: string }>(p, 'POST', '/customers/external-accounts', {
      customerId: customer.body.id,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: `7800${String(++clients).padStart(6, '0')}`, bankName: 'Cora Bank', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Cora Customer', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } } },
    });
    expect(customerBank.status, customerBank.text).toBe(201);
    const customersBank = await t.api<ApiError>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'ACH_DEBIT', externalAccountId: customerBank.body.id }, destination: { accountId: walletId } });
    expect(customersBank.body.details!.errors!.map((e) => e.field)).toEqual(['fundingSource.externalAccountId']);
    const customers = await fundedAccount(100_000);
    const notTheIssuers = await mintFromAccount(p, coinId, walletId, customers, '1000000');
    expect(errorOf(notTheIssuers)).toBe('INVALID_INPUT');
    expect((notTheIssuers.body as unknown as ApiError).details!.errors!.map((e) => e.field)).toEqual(['fundingSource.accountId']);
    expect(await balance(customers)).toBe(100_000);
    const short = await mintFromAccount(p, coinId, walletId, await platformAccount(p, 0), '10000000000');
    expect(errorOf(short)).toBe('INVALID_AMOUNT INSUFFICIENT_FUNDS');
    expect((await t.api<List<Operation>>(p, 'GET', `/stablecoins/${coinId}/operations`)).body.data).toEqual([]);
  });
});

describe('burns and operations', () => {
  it('an external-account burn shows the deposit address and the fiat estimate; provider-balance burns need no funding', async () => {
    const { coinId, bankId } = await issuer(p);
    const external = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/burns`, { amount: '5000000', source: { type: 'EXTERNAL_ACCOUNT' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bankId, rail: 'ACH_CREDIT' } });
    expect(external.status, external.text).toBe(201);
    expect(external.body).toMatchObject({
      operationType: 'BURN',
      status: 'PENDING_FUNDING',
      source: { type: 'EXTERNAL_ACCOUNT' },
      destination: { accountId: bankId, rail: 'ACH_CREDIT' },
      estimatedDelivery: { rail: 'ACH_CREDIT', amount: '500', currency: 'USD', timing: '1-3 business days' },
      fundingInstructions: { rail: 'SPARK', network: 'SPARK' },
    });
    expect(String(external.body.fundingInstructions!.address)).toMatch(/^sparkrt1/);
    const balanceBurn = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/burns`, { amount: '5000000', source: { type: 'PROVIDER_INTERNAL_BALANCE' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bankId, rail: 'RTP_CREDIT' } });
    expect(balanceBurn.body.status).toBe('PENDING_PROVIDER');
    expect(balanceBurn.body.fundingInstructions).toBeUndefined();
    const grid = await t.api(p, 'POST', `/stablecoins/${coinId}/burns`, { amount: '5000000', source: { type: 'GRID_INTERNAL_ACCOUNT', accountId: await fundedAccount(0) }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bankId, rail: 'WIRE' } });
    expect(errorOf(grid)).toBe('INVALID_INPUT');
    await advance(5);
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${external.body.id}`)).body.status).toBe('COMPLETED');
    expect((await t.api<Operation>(p, 'GET', `/stablecoin-operations/${balanceBurn.body.id}`)).body.status).toBe('COMPLETED');
  });

  it('lists a coin’s operations most recent first, by type, page by page; another platform finds none of them', async () => {
    const { coinId, walletId, bankId } = await issuer(p);
    const mint = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId } });
    const burn = await t.api<Operation>(p, 'POST', `/stablecoins/${coinId}/burns`, { amount: '1000000', source: { type: 'PROVIDER_INTERNAL_BALANCE' }, destination: { type: 'EXTERNAL_ACCOUNT', externalAccountId: bankId, rail: 'WIRE' } });
    const all = await t.api<List<Operation>>(p, 'GET', `/stablecoins/${coinId}/operations`);
    expect(all.body.data.map((o) => o.id)).toEqual([burn.body.id, mint.body.id]);
    expect(all.body.totalCount).toBe(2);
    const mints = await t.api<List<Operation>>(p, 'GET', `/stablecoins/${coinId}/operations?operationType=MINT`);
    expect(mints.body.data.map((o) => o.id)).toEqual([mint.body.id]);
    const first = await t.api<List<Operation>>(p, 'GET', `/stablecoins/${coinId}/operations?limit=1`);
    expect(first.body.hasMore).toBe(true);
    const second = await t.api<List<Operation>>(p, 'GET', `/stablecoins/${coinId}/operations?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.data.map((o) => o.id)).toEqual([mint.body.id]);
    const other = await t.newPlatform('nosy');
    expect(errorOf(await t.api(other, 'GET', `/stablecoin-operations/${mint.body.id}`))).toBe('REFERENCE_NOT_FOUND STABLECOIN_OPERATION_NOT_FOUND');
    expect(errorOf(await t.api(other, 'GET', `/stablecoins/${coinId}/operations`))).toBe('REFERENCE_NOT_FOUND STABLECOIN_NOT_FOUND');
    expect(errorOf(await t.api(other, 'POST', `/stablecoins/${coinId}/mints`, { amount: '1000000', fundingSource: { type: 'WIRE' }, destination: { accountId: walletId } }))).toBe('REFERENCE_NOT_FOUND STABLECOIN_NOT_FOUND');
  });
});

describe('production without a stablecoin provider', () => {
  it('answers 501 NOT_IMPLEMENTED and stores nothing (no sandbox shortcut)', async () => {
    const config = loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://unused.invalid/moneta', MONETA_ENCRYPTION_KEY: '12'.repeat(32), LOG_LEVEL: 'silent', PUBLIC_URL: 'http://moneta.test' });
    const production = await buildApp({ config, db: t.database.db, databaseKind: t.database.kind });
    try {
      await production.app.ready();
      const token = await production.container.tokens.insertToken(t.database.db, { platformId: p.id, name: 'prod', permissions: ['MANAGE'], now: new Date() });
      const before = await t.database.db.selectFrom('stablecoin_provider_accounts').select('id').execute();
      const res = await production.app.inject({
        method: 'POST',
        url: `${API_PREFIX}/stablecoin-provider-accounts`,
        headers: { authorization: basic(token.clientId, token.clientSecret!), 'content-type': 'application/json' },
        payload: JSON.stringify({ provider: 'BRALE', apiClientId: 'real-client', apiClientSecret: 'real-secret' }),
      });
      expect(res.statusCode).toBe(501);
      expect(res.json()).toMatchObject({ status: 501, code: 'NOT_IMPLEMENTED', details: { missing: 'STABLECOIN_PROVIDER' } });
      expect(res.body).not.toContain('real-secret');
      expect(await t.database.db.selectFrom('stablecoin_provider_accounts').select('id').execute()).toHaveLength(before.length);
    } finally {
      await production.app.close();
    }
  });
});
