import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { SoftPasskey } from '../wallets/soft-passkey.js';

/** Issue 23, strong customer authentication: factors, login sessions, security events (sandbox: every code is also 123456). */
let t: TestApp;
let p: TestPlatform;

interface Factors {
  factors: { factor: string; credentialId?: string; name?: string }[];
}

async function customer(region: string, phoneNumber?: string): Promise<string> {
  const res = await t.api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Erika Europa', region, currencies: ['USD'], email: 'erika@example.com', ...(phoneNumber ? { phoneNumber } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const sca = <T = unknown>(method: 'GET' | 'POST' | 'DELETE', path: string, customerId: string, body?: unknown) => t.api<T>(p, method, `${path}?customerId=${encodeURIComponent(customerId)}`, body);

async function platformNow(): Promise<Date> {
  const row = await t.database.db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', p.id).executeTakeFirstOrThrow();
  return new Date(Date.now() + Number(row.clock_offset_ms));
}

async function totpAt(secret: string, at?: Date): Promise<string> {
  return generate({ secret, epoch: Math.floor((at ?? (await platformNow())).getTime() / 1000) });
}

async function enrolTotp(customerId: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const start = await sca<{ secretBase32Encoded: string; secret: string }>('POST', '/sca/factors', customerId, { type: 'TOTP' });
  expect(start.status, start.text).toBe(200);
  const confirm = await sca<{ recoveryCodes: string[] }>('POST', '/sca/factors/confirm', customerId, { type: 'TOTP', secret: start.body.secret, code: await totpAt(start.body.secretBase32Encoded) });
  expect(confirm.status, confirm.text).toBe(200);
  return { secret: start.body.secretBase32Encoded, recoveryCodes: confirm.body.recoveryCodes };
}

async function advance(seconds: number): Promise<void> {
  expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds })).status).toBe(200);
}

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => t?.close());

describe('who is an SCA customer', () => {
  it('a customer outside the EEA gets 409 on every SCA call; an unknown customer 404', async () => {
    const us = await customer('US', '+14155550100');
    for (const [method, path, body] of [
      ['GET', '/sca/factors', undefined],
      ['POST', '/sca/factors', { type: 'TOTP' }],
      ['POST', '/sca/login/start', { factor: 'SMS_OTP' }],
      ['POST', '/sca/record-event', { eventType: 'FAILED_LOGIN_ATTEMPT' }],
      ['POST', '/sca/factors/reset', { factor: 'SMS_OTP' }],
    ] as const) {
      const res = await sca(method, path, us, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(errorOf(res)).toBe('CONFLICT SCA_NOT_REQUIRED');
    }
    expect(errorOf(await sca('GET', '/sca/factors', 'Customer:01a20061-044a-7399-9737-e82f3a74e590'))).toBe('USER_NOT_FOUND');
  });

  it('an EEA customer with a phone has SMS_OTP from the start, nothing else', async () => {
    const de = await customer('DE', '+4915112345678');
    const res = await sca<Factors>('GET', '/sca/factors', de);
    expect(res.status).toBe(200);
    expect(res.body.factors).toEqual([{ factor: 'SMS_OTP', name: '+4915112345678' }]);
  });
});

describe('TOTP factors (otplib, RFC 6238)', () => {
  it('enrols with the otpauth URI and the first code, keeps the secret sealed, returns recovery codes once', async () => {
    const de = await customer('FR', '+33612345678');
    const start = await sca<{ type: string; secret: string; secretBase32Encoded: string; totpUri: string }>('POST', '/sca/factors', de, { type: 'TOTP' });
    expect(start.status).toBe(200);
    expect(start.body.totpUri).toMatch(/^otpauth:\/\/totp\//);
    expect(start.body.totpUri).toContain(`secret=${start.body.secretBase32Encoded}`);
    const stored = await t.database.db.selectFrom('sca_factors').selectAll().where('customer_id', '=', de as never).executeTakeFirstOrThrow();
    expect(stored.secret_sealed).not.toContain(start.body.secretBase32Encoded);
    expect(stored.status).toBe('PENDING');

    const wrong = await sca('POST', '/sca/factors/confirm', de, { type: 'TOTP', secret: start.body.secret, code: '000001' });
    expect(errorOf(wrong)).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const otherSecret = await sca('POST', '/sca/factors/confirm', de, { type: 'TOTP', secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', code: await totpAt(start.body.secretBase32Encoded) });
    expect(otherSecret.status).toBe(400);
    // The base32 form binds the confirmation as well as the raw one.
    const confirm = await sca<{ type: string; recoveryCodes: string[] }>('POST', '/sca/factors/confirm', de, { type: 'TOTP', secret: start.body.secretBase32Encoded, code: await totpAt(start.body.secretBase32Encoded) });
    expect(confirm.status, confirm.text).toBe(200);
    expect(confirm.body.recoveryCodes).toHaveLength(8);
    expect((await sca<Factors>('GET', '/sca/factors', de)).body.factors.map((f) => f.factor)).toEqual(['SMS_OTP', 'TOTP']);
    expect(errorOf(await sca('POST', '/sca/factors', de, { type: 'TOTP' }))).toBe('CONFLICT TOTP_ALREADY_ENROLLED');
  });

  it('a TOTP login opens a session; the same code (same time step) is refused the second time, an old one always', async () => {
    const de = await customer('IT', '+393331234567');
    const { secret } = await enrolTotp(de);
    // The confirmation used the current step: a login in that step with the same code is a replay.
    const now = await platformNow();
    const code = await totpAt(secret, now);
    const replayOfEnrolment = await sca('POST', '/sca/login/complete', de, { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code });
    expect(errorOf(replayOfEnrolment)).toBe('INVALID_INPUT SCA_CODE_INVALID');

    await advance(30);
    const fresh = await totpAt(secret);
    const start = await sca<{ factor: string }>('POST', '/sca/login/start', de, { factor: 'TOTP' });
    expect(start.body).toEqual({ factor: 'TOTP' });
    const login = await sca<{ status: string; sessionExpiresAt: string }>('POST', '/sca/login/complete', de, { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code: fresh });
    expect(login.status, login.text).toBe(200);
    expect(login.body.status).toBe('SUCCESS');
    const days = (new Date(login.body.sessionExpiresAt).getTime() - (await platformNow()).getTime()) / 86_400_000;
    expect(Math.round(days)).toBe(180);
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code: fresh }))).toBe('INVALID_INPUT SCA_CODE_INVALID');

    const expired = await totpAt(secret, new Date((await platformNow()).getTime() - 5 * 60_000));
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code: expired }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
  });

  it('a recovery code logs in once', async () => {
    const de = await customer('AT', '+436641234567');
    const { recoveryCodes } = await enrolTotp(de);
    const body = { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code: recoveryCodes[0] };
    expect((await sca('POST', '/sca/login/complete', de, body)).status).toBe(200);
    expect(errorOf(await sca('POST', '/sca/login/complete', de, body))).toBe('INVALID_INPUT SCA_CODE_INVALID');
  });

  it('login with a factor that is not enrolled is refused', async () => {
    const de = await customer('NL');
    expect(errorOf(await sca('POST', '/sca/login/start', de, { factor: 'SMS_OTP' }))).toBe('INVALID_INPUT FACTOR_NOT_ENROLLED');
    expect(errorOf(await sca('POST', '/sca/login/start', de, { factor: 'TOTP' }))).toBe('INVALID_INPUT FACTOR_NOT_ENROLLED');
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { factor: 'TOTP', endUserIpAddress: '203.0.113.42' }))).toBe('INVALID_INPUT PROOF_MISSING');
  });
});

describe('SMS_OTP login', () => {
  it('sends a code (kept hashed) for the challenge; the right code logs in once; a wrong, missing or foreign challenge is refused', async () => {
    const de = await customer('ES', '+34612345678');
    const start = await sca<{ factor: string; challengeId: string; expiresAt: string }>('POST', '/sca/login/start', de, { factor: 'SMS_OTP' });
    expect(start.status).toBe(200);
    expect(start.body.challengeId).toMatch(/^ScaChallenge:/);
    const row = await t.database.db.selectFrom('sca_challenges').selectAll().where('id', '=', start.body.challengeId).executeTakeFirstOrThrow();
    expect(row.code_hash).not.toContain('123456');
    const job = await t.database.db.selectFrom('jobs').select('payload').where('kind', '=', 'sca.send-code').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    const payload = job.payload as Record<string, string>;
    expect(Object.keys(payload).sort()).toEqual(['challengeId', 'sealedCode', 'to']);
    expect(payload.sealedCode).not.toContain('123456');

    const body = { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.42' };
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...body, code: '123456' }))).toBe('INVALID_INPUT CHALLENGE_MISMATCH');
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...body, code: '123456', challengeId: 'ScaChallenge:other' }))).toBe('INVALID_INPUT CHALLENGE_MISMATCH');
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...body, code: '654321', challengeId: start.body.challengeId }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const ok = await sca<{ status: string }>('POST', '/sca/login/complete', de, { ...body, code: '123456', challengeId: start.body.challengeId });
    expect(ok.status, ok.text).toBe(200);
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...body, code: '123456', challengeId: start.body.challengeId }))).toBe('INVALID_INPUT SCA_CODE_EXPIRED');
  });

  it('a code expires after 5 minutes; three wrong codes burn it until a new login starts', async () => {
    const de = await customer('PT', '+351912345678');
    const body = { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.42' };
    const first = await sca<{ challengeId: string }>('POST', '/sca/login/start', de, { factor: 'SMS_OTP' });
    await advance(301);
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...body, code: '123456', challengeId: first.body.challengeId }))).toBe('INVALID_INPUT SCA_CODE_EXPIRED');

    const second = await sca<{ challengeId: string }>('POST', '/sca/login/start', de, { factor: 'SMS_OTP' });
    const wrong = { ...body, code: '111111', challengeId: second.body.challengeId };
    expect(errorOf(await sca('POST', '/sca/login/complete', de, wrong))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    expect(errorOf(await sca('POST', '/sca/login/complete', de, wrong))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    expect(errorOf(await sca('POST', '/sca/login/complete', de, wrong))).toBe('INVALID_INPUT TOO_MANY_WRONG_CODES');
    // Even the right code no longer opens it: a new login must start.
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...wrong, code: '123456' }))).toBe('INVALID_INPUT TOO_MANY_WRONG_CODES');
    const third = await sca<{ challengeId: string }>('POST', '/sca/login/start', de, { factor: 'SMS_OTP' });
    expect((await sca('POST', '/sca/login/complete', de, { ...body, code: '123456', challengeId: third.body.challengeId })).status).toBe(200);
  });
});

describe('login security: lockout and security events', () => {
  it('five failed attempts lock the login for 15 minutes (423, details.lockedUntil); then it opens again', async () => {
    const de = await customer('BE', '+32470123456');
    await enrolTotp(de);
    const bad = { factor: 'TOTP', endUserIpAddress: '203.0.113.42', code: '000002' };
    for (let i = 0; i < 4; i++) expect(errorOf(await sca('POST', '/sca/login/complete', de, bad))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const locked = await sca<{ details: { lockedUntil: string; failedAttempts: number; suspended: boolean } }>('POST', '/sca/login/complete', de, bad);
    expect(locked.status).toBe(423);
    expect(errorOf(locked)).toBe('ACCOUNT_LOCKED');
    expect(locked.body.details.failedAttempts).toBe(5);
    expect(locked.body.details.suspended).toBe(false);
    expect(new Date(locked.body.details.lockedUntil).getTime() - (await platformNow()).getTime()).toBeGreaterThan(14 * 60_000);
    // While locked even the right code is refused.
    expect(errorOf(await sca('POST', '/sca/login/complete', de, { ...bad, code: '123456' }))).toBe('ACCOUNT_LOCKED');
    await advance(15 * 60 + 1);
    expect((await sca('POST', '/sca/login/complete', de, { ...bad, code: '123456' })).status).toBe(200);
  });

  it('FAILED_LOGIN_ATTEMPT escalates (5 → 15 min … 9 → suspended); a report while locked is 423; RESET_PASSWORD_COMPLETED clears it and revokes sessions', async () => {
    const de = await customer('SE', '+46701234567');
    const record = (eventType: string) => sca<{ eventType: string; failedAttempts: number; lockedUntil: string | null; suspended: boolean }>('POST', '/sca/record-event', de, { eventType });
    for (let i = 1; i <= 4; i++) expect((await record('FAILED_LOGIN_ATTEMPT')).body).toEqual({ eventType: 'FAILED_LOGIN_ATTEMPT', failedAttempts: i, lockedUntil: null, suspended: false });
    const fifth = await record('FAILED_LOGIN_ATTEMPT');
    expect(fifth.body.failedAttempts).toBe(5);
    expect(fifth.body.lockedUntil).not.toBeNull();
    expect(errorOf(await record('FAILED_LOGIN_ATTEMPT'))).toBe('ACCOUNT_LOCKED');
    for (const minutes of [15, 30, 60, 24 * 60]) {
      await advance(minutes * 60 + 1);
      await record('FAILED_LOGIN_ATTEMPT');
    }
    const state = await t.database.db.selectFrom('sca_customer_state').selectAll().where('customer_id', '=', de as never).executeTakeFirstOrThrow();
    expect(state.failed_attempts).toBe(9);
    expect(state.suspended).toBe(true);
    const suspended = await record('FAILED_LOGIN_ATTEMPT');
    expect(suspended.status).toBe(423);

    const cleared = await record('RESET_PASSWORD_COMPLETED');
    expect(cleared.body).toEqual({ eventType: 'RESET_PASSWORD_COMPLETED', failedAttempts: 0, lockedUntil: null, suspended: false });
    const events = await t.database.db.selectFrom('sca_security_events').select('event_type').where('customer_id', '=', de as never).execute();
    expect(events).toHaveLength(10);
  });
});

describe('passkey factors (WebAuthn)', () => {
  it('enrols one passkey (a second is 409 PASSKEY_ALREADY_ENROLLED), logs in with it, and is deleted by its credential id', async () => {
    const de = await customer('DK', '+4520123456');
    const start = await sca<{ type: string; options: { challenge: string }; allowedOrigins: string[]; relyingPartyId: string }>('POST', '/sca/factors', de, { type: 'PASSKEY' });
    expect(start.status, start.text).toBe(200);
    expect(start.body.relyingPartyId).toBe('moneta.test');
    const passkey = new SoftPasskey(start.body.relyingPartyId, start.body.allowedOrigins[0]!);
    const badOrigin = await sca('POST', '/sca/factors/confirm', de, { type: 'PASSKEY', origin: 'https://evil.example', credential: passkey.create(start.body.options) });
    expect(errorOf(badOrigin)).toBe('INVALID_INPUT PASSKEY_INVALID');
    const confirm = await sca<{ type: string; factor: { factor: string; credentialId: string } }>('POST', '/sca/factors/confirm', de, { type: 'PASSKEY', origin: passkey.origin, credential: passkey.create(start.body.options) });
    expect(confirm.status, confirm.text).toBe(200);
    expect(confirm.body.factor).toMatchObject({ factor: 'PASSKEY', credentialId: passkey.credentialId });
    expect(errorOf(await sca('POST', '/sca/factors', de, { type: 'PASSKEY' }))).toBe('PASSKEY_ALREADY_ENROLLED');

    const login = await sca<{ passkeyOptions: { challenge: string }; allowedOrigins: string[] }>('POST', '/sca/login/start', de, { factor: 'PASSKEY' });
    expect(login.status, login.text).toBe(200);
    const wrongOrigin = await sca('POST', '/sca/login/complete', de, { factor: 'PASSKEY', endUserIpAddress: '203.0.113.42', origin: 'https://evil.example', passkeyAssertion: passkey.get(login.body.passkeyOptions, 'https://evil.example') });
    expect(errorOf(wrongOrigin)).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const done = await sca('POST', '/sca/login/complete', de, { factor: 'PASSKEY', endUserIpAddress: '203.0.113.42', origin: passkey.origin, passkeyAssertion: passkey.get(login.body.passkeyOptions) });
    expect(done.status, done.text).toBe(200);

    expect(errorOf(await sca('DELETE', '/sca/factors/not-a-credential', de))).toBe('REFERENCE_NOT_FOUND SCA_FACTOR_NOT_FOUND');
    expect((await sca('DELETE', `/sca/factors/${passkey.credentialId}`, de)).status).toBe(204);
    expect((await sca<Factors>('GET', '/sca/factors', de)).body.factors.map((f) => f.factor)).toEqual(['SMS_OTP']);
  });
});
