import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../packages/server/src/config.js';
import { createTestApp, type TestApp } from './harness.js';
import type { Customer } from './wire-types.js';

/**
 * The bench's bare read route (MONETA_BENCH_CEILINGS=on): the indexed read of GET /customers/{id}
 * with nothing around it, served only when asked for and never in production.
 */
const withCeilings: TestApp = await createTestApp({ MONETA_BENCH_CEILINGS: 'on' });
const without: TestApp = await createTestApp();
afterAll(async () => Promise.all([withCeilings.close(), without.close()]));

describe('bench ceiling routes', () => {
  it('reads the same customer row GET /customers/{id} reads, without credentials', async () => {
    const created = await withCeilings.api<Customer>(withCeilings.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Read', email: 'bench@example.com' });
    expect(created.status).toBe(201);
    const bare = await withCeilings.app.inject({ method: 'GET', url: `/bench/customers/${created.body.id}` });
    expect(bare.statusCode).toBe(200);
    expect(bare.json()).toMatchObject({ id: created.body.id, platform_id: withCeilings.platform.id, customer_type: 'INDIVIDUAL' });
    const missing = await withCeilings.app.inject({ method: 'GET', url: '/bench/customers/Customer:00000000-0000-7000-8000-000000000000' });
    expect(missing.statusCode).toBe(404);
  });

  it('are not served unless MONETA_BENCH_CEILINGS is on', async () => {
    const created = await without.api<Customer>(without.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bench Read', email: 'bench@example.com' });
    const bare = await without.app.inject({ method: 'GET', url: `/bench/customers/${created.body.id}` });
    expect(bare.statusCode).toBe(404);
    expect(bare.body).not.toContain('Bench Read');
  });

  it('cannot be turned on in production, and take only on or off', () => {
    const production = { MONETA_MODE: 'production', MONETA_BENCH_CEILINGS: 'on', DATABASE_URL: 'postgres://127.0.0.1/x', MONETA_ENCRYPTION_KEY: 'a'.repeat(64) };
    expect(() => loadConfig(production)).toThrow(ConfigError);
    expect(() => loadConfig(production)).toThrow(/sandbox only/);
    expect(() => loadConfig({ MONETA_BENCH_CEILINGS: 'yes' })).toThrow(/must be "on" or "off"/);
    expect(loadConfig({ MONETA_BENCH_CEILINGS: 'on' }).benchCeilings).toBe(true);
    expect(loadConfig({}).benchCeilings).toBe(false);
  });
});
