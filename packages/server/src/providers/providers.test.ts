import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createProviders } from './index.js';

const sandbox = () => createProviders(loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent' }));
const production = () =>
  createProviders(loadConfig({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://unused.invalid/moneta', MONETA_ENCRYPTION_KEY: '11'.repeat(32), LOG_LEVEL: 'silent' }));

describe('the sandbox shortcuts are providers, chosen by mode', () => {
  it('the sandbox takes the stand-in signatures, sends its fixed code and takes unsigned tokens from unconfigured issuers', () => {
    const providers = sandbox();
    expect(providers.signatures.acceptsWithoutKey('sandbox-valid-signature')).toBe(true);
    expect(providers.signatures.acceptsWithoutKey('sandbox-valid-passkey-signature')).toBe(true);
    expect(providers.signatures.acceptsWithoutKey('eyJwdWJsaWNLZXkiOiIwMiJ9')).toBe(false);
    expect(providers.otp.issue({ otpLength: 8, alphanumeric: true })).toBe('000000');
    expect(providers.oidcTrust.acceptsUnsignedFromUntrusted).toBe(true);
  });

  it('production takes no signature without a key, sends random codes of the platform format and only signed tokens', () => {
    const providers = production();
    expect(providers.signatures.acceptsWithoutKey('sandbox-valid-signature')).toBe(false);
    expect(providers.signatures.acceptsWithoutKey('sandbox-valid-passkey-signature')).toBe(false);
    const digits = Array.from({ length: 20 }, () => providers.otp.issue({ otpLength: 6, alphanumeric: false }));
    for (const code of digits) expect(code).toMatch(/^[0-9]{6}$/);
    expect(new Set(digits).size).toBeGreaterThan(1);
    expect(providers.otp.issue({ otpLength: 9, alphanumeric: true })).toMatch(/^[2-9A-HJ-NP-Z]{9}$/);
    expect(providers.oidcTrust.acceptsUnsignedFromUntrusted).toBe(false);
  });
});
