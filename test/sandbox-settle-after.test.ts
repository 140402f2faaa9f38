import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../packages/server/src/config.js';
import { createTestApp, type TestApp } from './harness.js';
import type { Customer, ExternalAccount, InternalAccount, List, Transaction } from './wire-types.js';

/**
 * MONETA_SANDBOX_SETTLE_AFTER_MS: how long the sandbox rail takes to settle a transfer out (and a
 * payout) that goes through. The bench sets it past its measuring window, so a transfer's
 * settlement runs after the window as the one-round-trip ceiling's does, not inside it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ MONETA_SANDBOX_SETTLE_AFTER_MS: '60000' });
});
afterAll(async () => t?.close());

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'Sam Settle', birthDate: '1990-01-15', nationality: 'US', address: { line1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' } };

async function settle(seconds: number) {
  await t.api(t.platform, 'POST', '/sandbox/clock/advance', { seconds });
  await t.container.jobs.runDue();
}

describe('the sandbox settlement delay', () => {
  it('settles a transfer out after the configured delay, not the default 2 s', async () => {
    const p = t.platform;
    const customer = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Sam Settle', currencies: ['USD'] });
    const account = (await t.api<List<InternalAccount>>(p, 'GET', `/internal-account?customerId=${customer.body.id}`)).body.data[0]!;
    expect((await t.api(p, 'POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 5_000 })).status).toBe(200);
    const external = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
      customerId: customer.body.id,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '55550001', bankName: 'Chase', beneficiary },
    });
    expect(external.status).toBe(201);
    const sent = await t.api<Transaction>(p, 'POST', '/transfer-out', { source: { accountId: account.id }, destination: { accountId: external.body.id }, amount: 1_000 });
    expect(sent.body.status).toBe('PROCESSING');

    await settle(10);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${sent.body.id}`)).body.status).toBe('PROCESSING');
    await settle(55);
    expect((await t.api<Transaction>(p, 'GET', `/transactions/${sent.body.id}`)).body.status).toBe('COMPLETED');
  });

  it('is 2 s by default, a whole number of milliseconds up to an hour, and refused in production', () => {
    expect(loadConfig({}).sandboxSettleAfterMs).toBe(2_000);
    expect(loadConfig({ MONETA_SANDBOX_SETTLE_AFTER_MS: '0' }).sandboxSettleAfterMs).toBe(0);
    expect(() => loadConfig({ MONETA_SANDBOX_SETTLE_AFTER_MS: '1.5' })).toThrow(/MONETA_SANDBOX_SETTLE_AFTER_MS must be an integer between 0 and 3600000/);
    expect(() => loadConfig({ MONETA_SANDBOX_SETTLE_AFTER_MS: '3600001' })).toThrow(ConfigError);
    const production = { MONETA_MODE: 'production', DATABASE_URL: 'postgres://127.0.0.1/x', MONETA_ENCRYPTION_KEY: 'a'.repeat(64) };
    expect(() => loadConfig({ ...production, MONETA_SANDBOX_SETTLE_AFTER_MS: '5000' })).toThrow(/sandbox only/);
    expect(() => loadConfig(production)).not.toThrow();
  });
});
