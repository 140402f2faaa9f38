import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import type { FixtureResponse } from '../../contract/module.js';
import { otpLogin, type Caller } from './client-flows.js';

let t: TestApp;
let p: TestPlatform;
let signer: string;

interface AuthMethod {
  id: string;
  type: string;
  otpEncryptionTargetBundle?: string;
}
interface LockDetails {
  reason: string;
  failedAttempts: number;
  lockedUntil: string | null;
  suspended: boolean;
  retryAfterSeconds?: number;
}
interface LockEvent {
  type: string;
  data: { id: string; type: string; failedAttempts: number; lockedUntil: string | null; suspended: boolean };
}

async function api<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, who: TestPlatform = p): Promise<ApiResponse<T>> {
  return t.api<T>(who, method, path, body);
}

const caller: Caller = async (method, path, body, headers): Promise<FixtureResponse> => {
  const res = await t.api(p, method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
  return res;
};

let seq = 0;
/** A wallet holder's EMAIL_OTP credential. */
async function otpCredential(): Promise<string> {
  seq++;
  const customer = await api<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `lockout-${seq}`, region: 'US', email: `lockout${seq}@wallet.test`, fullName: 'Locked Out' });
  expect(customer.status, customer.text).toBe(201);
  const accounts = await api<{ data: { id: string }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`);
  const credentials = await api<{ data: AuthMethod[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(accounts.body.data[0]!.id)}`);
  return credentials.body.data[0]!.id;
}

async function advance(seconds: number): Promise<void> {
  const res = await api('POST', '/sandbox/clock/advance', { seconds });
  expect(res.status, res.text).toBe(200);
}

async function now(): Promise<number> {
  return Date.parse((await api<{ now: string }>('GET', '/sandbox/clock')).body.now);
}

/** A new code for the credential: its target bundle. */
async function challenge(credentialId: string): Promise<string> {
  const res = await api<AuthMethod>('POST', `/auth/credentials/${credentialId}/challenge`, {});
  expect(res.status, res.text).toBe(200);
  return res.body.otpEncryptionTargetBundle!;
}

async function answer(credentialId: string, bundle: string, code: string): Promise<ApiResponse> {
  const encryptedOtpBundle = await encryptOtpCodeToBundle(code, bundle, generateP256KeyPair().publicKey, signer);
  return api('POST', `/auth/credentials/${credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle });
}

/** Wrong codes (the sandbox's code is always 000000), their answers as `CODE REASON`. */
async function wrongCodes(credentialId: string, bundle: string, count: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < count; i++) answers.push(errorOf(await answer(credentialId, bundle, '123456')));
  return answers;
}

function lockOf(res: ApiResponse): LockDetails {
  return (res.body as { details: LockDetails }).details;
}

async function eventsOf(type: 'AUTH_METHOD.LOCKED' | 'AUTH_METHOD.UNLOCKED', credentialId: string, who: TestPlatform = p): Promise<LockEvent[]> {
  const res = await api<{ data: LockEvent[] }>('GET', `/webhooks/events?type=${type}&sortOrder=asc&limit=100`, undefined, who);
  expect(res.status, res.text).toBe(200);
  return res.body.data.filter((e) => e.data.id === credentialId);
}

/** Locks a fresh credential with five wrong codes (two codes, across a re-issue). */
async function lockedCredential(): Promise<string> {
  const credentialId = await otpCredential();
  expect(await wrongCodes(credentialId, await challenge(credentialId), 3)).toEqual(Array(3).fill('UNAUTHORIZED OTP_INVALID'));
  await advance(31);
  expect(await wrongCodes(credentialId, await challenge(credentialId), 2)).toEqual(['UNAUTHORIZED OTP_INVALID', 'RATE_LIMITED CREDENTIAL_LOCKED']);
  return credentialId;
}

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  p = t.platform;
  expect((await api('PATCH', '/config', { embeddedWalletConfig: { appName: 'Lockout Wallet' } })).status).toBe(200);
  signer = (await api<{ publicKey: string }>('GET', '/auth/bundle-signing-key')).body.publicKey;
});
afterAll(async () => t?.close());

describe('the lasting OTP lockout', () => {
  it('five wrong codes in a row, across re-issued codes, lock the credential for 15 minutes: even the right code and a new challenge get 429 with Retry-After', async () => {
    const credentialId = await otpCredential();
    const first = await challenge(credentialId);
    expect(await wrongCodes(credentialId, first, 3)).toEqual(Array(3).fill('UNAUTHORIZED OTP_INVALID'));
    await advance(31);
    const second = await challenge(credentialId);
    expect(await wrongCodes(credentialId, second, 1)).toEqual(['UNAUTHORIZED OTP_INVALID']);
    const before = await now();
    const locking = await answer(credentialId, second, '654321');
    const after = await now();
    expect(locking.status).toBe(429);
    expect(errorOf(locking)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
    expect(locking.headers['retry-after']).toBe('900');
    const lock = lockOf(locking);
    expect(lock).toEqual({ reason: 'CREDENTIAL_LOCKED', failedAttempts: 5, suspended: false, lockedUntil: lock.lockedUntil, retryAfterSeconds: 900 });
    expect(Date.parse(lock.lockedUntil!)).toBeGreaterThanOrEqual(before + 900_000);
    expect(Date.parse(lock.lockedUntil!)).toBeLessThanOrEqual(after + 900_000);

    const rightCode = await answer(credentialId, second, '000000');
    expect(errorOf(rightCode)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
    await advance(600);
    const reissue = await api('POST', `/auth/credentials/${credentialId}/challenge`, {});
    expect(errorOf(reissue)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
    expect(reissue.headers['retry-after']).toBe('300');
    expect(lockOf(reissue).failedAttempts).toBe(5);

    const locked = await eventsOf('AUTH_METHOD.LOCKED', credentialId);
    expect(locked.map((e) => e.data)).toEqual([expect.objectContaining({ id: credentialId, type: 'EMAIL_OTP', failedAttempts: 5, suspended: false, lockedUntil: lock.lockedUntil })]);

    // Once the lock lifts, the code it interrupted is spent: a new one is asked for, and it works.
    await advance(301);
    expect(errorOf(await answer(credentialId, second, '000000'))).toBe('UNAUTHORIZED OTP_EXPIRED');
    expect((await answer(credentialId, await challenge(credentialId), '000000')).status).toBe(202);
  });

  it('each further wrong code locks longer (30 minutes, 1 hour, 24 hours); the ninth locks until the platform unlocks it, with no Retry-After', async () => {
    const credentialId = await lockedCredential();
    const retryAfters: (string | undefined)[] = [];
    for (const lockSeconds of [900, 1800, 3600, 86_400]) {
      await advance(lockSeconds + 1);
      const res = await answer(credentialId, await challenge(credentialId), '111111');
      expect(errorOf(res)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
      retryAfters.push(res.headers['retry-after'] as string | undefined);
    }
    expect(retryAfters).toEqual(['1800', '3600', '86400', undefined]);

    await advance(365 * 24 * 3600);
    const stillLocked = await api('POST', `/auth/credentials/${credentialId}/challenge`, {});
    expect(errorOf(stillLocked)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
    expect(stillLocked.headers['retry-after']).toBeUndefined();
    expect(lockOf(stillLocked)).toEqual({ reason: 'CREDENTIAL_LOCKED', failedAttempts: 9, suspended: true, lockedUntil: null });

    const locks = (await eventsOf('AUTH_METHOD.LOCKED', credentialId)).map((e) => e.data);
    expect(locks.map((l) => [l.failedAttempts, l.suspended])).toEqual([[5, false], [6, false], [7, false], [8, false], [9, true]]);
    expect(locks[4]!.lockedUntil).toBeNull();
  });

  it('the platform unlocks a credential: the lock lifts, the count starts again, AUTH_METHOD.UNLOCKED is sent; another platform gets 404', async () => {
    const credentialId = await lockedCredential();
    const other = await t.newPlatform('Lockout stranger');
    const stranger = await api('POST', `/auth/credentials/${credentialId}/unlock`, undefined, other);
    expect(errorOf(stranger)).toBe('REFERENCE_NOT_FOUND CREDENTIAL_NOT_FOUND');
    expect(errorOf(await api('POST', `/auth/credentials/${credentialId}/challenge`, {}))).toBe('RATE_LIMITED CREDENTIAL_LOCKED');

    const unlocked = await api<AuthMethod & Record<string, unknown>>('POST', `/auth/credentials/${credentialId}/unlock`);
    expect(unlocked.status, unlocked.text).toBe(200);
    expect(unlocked.body).toMatchObject({ id: credentialId, type: 'EMAIL_OTP' });
    expect(Object.keys(unlocked.body).sort()).toEqual(['accountId', 'createdAt', 'id', 'nickname', 'type', 'updatedAt']);
    const events = await eventsOf('AUTH_METHOD.UNLOCKED', credentialId);
    expect(events.map((e) => e.data)).toEqual([expect.objectContaining({ id: credentialId, failedAttempts: 0, suspended: false, lockedUntil: null })]);
    expect(await eventsOf('AUTH_METHOD.UNLOCKED', credentialId, other)).toEqual([]);

    // The count started again: four wrong codes lock nothing, the fifth does.
    await advance(31);
    const bundle = await challenge(credentialId);
    expect(await wrongCodes(credentialId, bundle, 4)).toEqual(Array(4).fill('UNAUTHORIZED OTP_INVALID'));
    expect(await wrongCodes(credentialId, bundle, 1)).toEqual(['RATE_LIMITED CREDENTIAL_LOCKED']);

    // Unlocking what is not locked changes nothing worth announcing.
    expect((await api('POST', `/auth/credentials/${credentialId}/unlock`)).status).toBe(200);
    expect((await api('POST', `/auth/credentials/${credentialId}/unlock`)).status).toBe(200);
    expect(await eventsOf('AUTH_METHOD.UNLOCKED', credentialId)).toHaveLength(2);
    await advance(31);
    expect((await otpLogin(caller, credentialId)).sessionId).toMatch(/^Session:/);
  });

  it('a correct code resets the count: four wrong codes, a success, then four more lock nothing', async () => {
    const credentialId = await otpCredential();
    const first = await challenge(credentialId);
    expect(await wrongCodes(credentialId, first, 4)).toEqual(Array(4).fill('UNAUTHORIZED OTP_INVALID'));
    expect((await answer(credentialId, first, '000000')).status).toBe(202);
    await advance(31);
    const second = await challenge(credentialId);
    expect(await wrongCodes(credentialId, second, 4)).toEqual(Array(4).fill('UNAUTHORIZED OTP_INVALID'));
    expect(await eventsOf('AUTH_METHOD.LOCKED', credentialId)).toEqual([]);
    const fifth = await answer(credentialId, second, '222222');
    expect(lockOf(fifth)).toMatchObject({ failedAttempts: 5, suspended: false });
  });
});
