import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp } from '../../../../test/harness.js';
import type { ApiError } from '../../../../test/wire-types.js';

/** Production checks every URL a platform gives the service to fetch when the platform gives it, field by field. */
let prod: TestApp;
beforeAll(async () => {
  prod = await createTestApp({ MONETA_MODE: 'production', DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused', MONETA_ENCRYPTION_KEY: '0'.repeat(64) });
});
afterAll(async () => {
  await prod?.close();
});

async function refusedFields(oidcIssuers: unknown[]): Promise<string[]> {
  const res = await prod.api<ApiError>(prod.platform, 'PATCH', '/config', { embeddedWalletConfig: { oidcIssuers } });
  expect(res.status, res.text).toBe(400);
  expect(expectErrorShape(res).code).toBe('INVALID_INPUT');
  return res.body.details!.errors!.map((error) => error.field);
}

describe('OIDC issuers in production', () => {
  it('refuses an issuer and a key-set URL on loopback, each with its own field error in one answer', async () => {
    const fields = await refusedFields([{ issuer: 'https://127.0.0.1:8443/idp', audiences: ['client-a'], jwksUrl: 'https://127.0.0.1:8443/jwks' }]);
    expect(fields.sort()).toEqual(['embeddedWalletConfig.oidcIssuers.0.issuer', 'embeddedWalletConfig.oidcIssuers.0.jwksUrl']);
  });

  it('refuses localhost names, private, link-local and plain-http URLs wherever they appear', async () => {
    const fields = await refusedFields([
      { issuer: 'https://localhost/idp', audiences: ['client-a'] },
      { issuer: 'https://idp.example.com', audiences: ['client-a'], jwksUrl: 'https://169.254.169.254/latest/meta-data' },
      { issuer: 'http://idp.example.com', audiences: ['client-a'], jwksUrl: 'https://[::ffff:10.0.0.1]/keys' },
    ]);
    expect(fields.sort()).toEqual([
      'embeddedWalletConfig.oidcIssuers.0.issuer',
      'embeddedWalletConfig.oidcIssuers.1.jwksUrl',
      'embeddedWalletConfig.oidcIssuers.2.issuer',
      'embeddedWalletConfig.oidcIssuers.2.jwksUrl',
    ]);
  });

  it('accepts public https issuers without fetching anything', async () => {
    const res = await prod.api(prod.platform, 'PATCH', '/config', {
      embeddedWalletConfig: { oidcIssuers: [{ issuer: 'https://accounts.example.com', audiences: ['client-a'], jwksUrl: 'https://keys.example.com/jwks' }, { issuer: 'https://idp.example.com', audiences: ['client-b'] }] },
    });
    expect(res.status, res.text).toBe(200);
  });
});
