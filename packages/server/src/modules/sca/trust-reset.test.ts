import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'otplib';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Quote } from '../../../../../test/wire-types.js';

/** Issue 23: trusted beneficiaries (each change confirmed by a code) and the liveness-gated 2FA reset. */
let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

type Challenge = { scaChallenge: { id: string; factor: string; availableFactors: string[]; expiresAt: string } };

async function scaCustomer(region = 'DE', phone: string | null = '+4915112345678') {
  const res = await t.api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Tina Trust', region, currencies: ['USD'], ...(phone ? { phoneNumber: phone } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

const ea = (id: string, action: string, body?: unknown, who = p) => t.api<Challenge & { trusted: boolean }>(who, 'POST', `/customers/external-accounts/${id}/${action}`, body);
const q = (customerId: string) => `?customerId=${encodeURIComponent(customerId)}`;

async function trust(id: string): Promise<void> {
  const start = await ea(id, 'trust');
  expect(start.status, start.text).toBe(200);
  expect((await ea(id, 'trust/confirm', { challengeId: start.body.scaChallenge.id, code: '123456' })).body).toEqual({ trusted: true });
}

beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

describe('trusted beneficiaries', () => {
  it('trust and untrust are each confirmed by the code of their own challenge; a trusted account cannot be deleted (409 BENEFICIARY_TRUSTED)', async () => {
    const customerId = await scaCustomer();
    const account = await f.clabeAccount(customerId);
    const start = await ea(account, 'trust');
    expect(start.status, start.text).toBe(200);
    expect(start.body.scaChallenge).toMatchObject({ factor: 'SMS_OTP', availableFactors: ['SMS_OTP'] });
    expect(errorOf(await ea(account, 'trust/confirm', {}))).toBe('INVALID_INPUT PROOF_MISSING');
    expect(errorOf(await ea(account, 'trust/confirm', { challengeId: 'ScaChallenge:another', code: '123456' }))).toBe('INVALID_INPUT CHALLENGE_MISMATCH');
    expect(errorOf(await ea(account, 'trust/confirm', { code: '000000' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    // An untrust code does not confirm a trust.
    expect(errorOf(await ea(account, 'untrust/confirm', { code: '123456' }))).toBe('INVALID_INPUT SCA_CODE_EXPIRED');
    expect((await ea(account, 'trust/confirm', { challengeId: start.body.scaChallenge.id, code: '123456' })).body).toEqual({ trusted: true });
    expect(errorOf(await ea(account, 'trust/confirm', { code: '123456' }))).toBe('INVALID_INPUT SCA_CODE_EXPIRED');

    const deleted = await t.api(p, 'DELETE', `/customers/external-accounts/${account}`);
    expect(deleted.status).toBe(409);
    expect(errorOf(deleted)).toBe('BENEFICIARY_TRUSTED');
    expect((await t.api(p, 'GET', `/customers/external-accounts/${account}`)).status).toBe(200);

    await ea(account, 'untrust');
    expect((await ea(account, 'untrust/confirm', { code: '123456' })).body).toEqual({ trusted: false });
    expect((await t.api(p, 'DELETE', `/customers/external-accounts/${account}`)).status).toBe(204);
  });

  it('a trust change whose code was tried wrong three times must start again', async () => {
    const customerId = await scaCustomer('FR', '+33612345678');
    const account = await f.clabeAccount(customerId);
    await ea(account, 'trust');
    for (let i = 0; i < 2; i++) expect(errorOf(await ea(account, 'trust/confirm', { code: '000000' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    expect(errorOf(await ea(account, 'trust/confirm', { code: '000000' }))).toBe('INVALID_INPUT TOO_MANY_WRONG_CODES');
    expect(errorOf(await ea(account, 'trust/confirm', { code: '123456' }))).toBe('INVALID_INPUT TOO_MANY_WRONG_CODES');
    await trust(account);
  });

  it('with an authenticator app the challenge takes its TOTP code too', async () => {
    const customerId = await scaCustomer('IT', '+393331234567');
    const start = await t.api<{ secret: string; secretBase32Encoded: string }>(p, 'POST', `/sca/factors${q(customerId)}`, { type: 'TOTP' });
    const secret = start.body.secretBase32Encoded;
    expect((await t.api(p, 'POST', `/sca/factors/confirm${q(customerId)}`, { type: 'TOTP', secret, code: await generate({ secret }) })).status).toBe(200);
    const account = await f.clabeAccount(customerId);
    const trustStart = await ea(account, 'trust');
    expect(trustStart.body.scaChallenge.availableFactors).toEqual(['SMS_OTP', 'TOTP']);
    await f.advance(30);
    const clock = await t.api<{ now: string }>(p, 'GET', '/sandbox/clock');
    expect(clock.status).toBe(200);
    const code = await generate({ secret, epoch: Math.floor(new Date(clock.body.now).getTime() / 1000) });
    const res = await ea(account, 'trust/confirm', { code });
    expect(res.status, res.text).toBe(200);
  });

  it('a trusted beneficiary is paid without a challenge while the customer’s SCA session is live', async () => {
    const customerId = await scaCustomer('ES', '+34612345678');
    const account = (await t.api<{ data: { id: string }[] }>(p, 'GET', `/internal-account?customerId=${customerId}`)).body.data[0]!.id;
    await t.api(p, 'POST', `/sandbox/internal-accounts/${account}/fund`, { amount: 50_000 });
    const trusted = await f.clabeAccount(customerId);
    await trust(trusted);
    const pay = () =>
      t.api<Quote>(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: account }, destination: { destinationType: 'ACCOUNT', accountId: trusted }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true });
    // No session yet: the trust alone does not exempt.
    expect((await pay()).body.status).toBe('PENDING_AUTHORIZATION');
    const login = await t.api<{ challengeId: string }>(p, 'POST', `/sca/login/start${q(customerId)}`, { factor: 'SMS_OTP' });
    expect((await t.api(p, 'POST', `/sca/login/complete${q(customerId)}`, { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.9', challengeId: login.body.challengeId, code: '123456' })).status).toBe(200);
    expect((await pay()).body.status).toBe('PROCESSING');
    // Another beneficiary of the same customer still needs the challenge.
    const other = await f.clabeAccount(customerId);
    const toOther = await t.api<Quote>(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: account }, destination: { destinationType: 'ACCOUNT', accountId: other }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000, immediatelyExecute: true });
    expect(toOther.body.status).toBe('PENDING_AUTHORIZATION');
  });

  it('refuses accounts of non-SCA customers (409), platform accounts and other platforms’ accounts (404)', async () => {
    const us = await t.api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Uma US', region: 'US', currencies: ['USD'] });
    const usAccount = await f.clabeAccount(us.body.id);
    expect(errorOf(await ea(usAccount, 'trust'))).toBe('CONFLICT SCA_NOT_REQUIRED');
    const de = await f.clabeAccount(await scaCustomer('AT', '+436641234567'));
    const other = await t.newPlatform('Other');
    expect(errorOf(await ea(de, 'trust', undefined, other))).toBe('REFERENCE_NOT_FOUND EXTERNAL_ACCOUNT_NOT_FOUND');
    expect(errorOf(await ea(de, 'untrust/confirm', { code: '123456' }, other))).toBe('REFERENCE_NOT_FOUND EXTERNAL_ACCOUNT_NOT_FOUND');
  });

  it('a customer with no usable factor cannot start a trust change', async () => {
    const account = await f.clabeAccount(await scaCustomer('NL', null));
    expect(errorOf(await ea(account, 'trust'))).toBe('INVALID_INPUT FACTOR_NOT_ENROLLED');
  });
});

describe('2FA reset', () => {
  type Status = { status: string; factor: string; enrollmentStatus: string | null; expiresAt: string; completedAt: string | null };
  const liveness = (resetId: string, result: string) => t.api<Status>(p, 'POST', `/sandbox/sca/factors/reset/${resetId}/liveness`, { result });

  it('a TOTP reset waits for liveness, then clears the factor for re-enrolment (enrollmentStatus PENDING → COMPLETED)', async () => {
    const customerId = await scaCustomer('SE', '+46701234567');
    const start = await t.api<{ secretBase32Encoded: string }>(p, 'POST', `/sca/factors${q(customerId)}`, { type: 'TOTP' });
    await t.api(p, 'POST', `/sca/factors/confirm${q(customerId)}`, { type: 'TOTP', secret: start.body.secretBase32Encoded, code: '123456' });
    const reset = await t.api<{ resetId: string; livenessAccessToken: string; expiresAt: string }>(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'TOTP' });
    expect(reset.status, reset.text).toBe(201);
    expect(reset.body.resetId).toMatch(/^TwoFactorReset:/);
    const stored = await t.database.db.selectFrom('sca_resets').select('liveness_token_hash').where('id', '=', reset.body.resetId).executeTakeFirstOrThrow();
    expect(stored.liveness_token_hash).not.toBe(reset.body.livenessAccessToken);
    const status = () => t.api<Status>(p, 'GET', `/sca/factors/reset/${reset.body.resetId}${q(customerId)}`);
    expect((await status()).body).toMatchObject({ status: 'INITIATED', factor: 'TOTP', enrollmentStatus: 'PENDING', completedAt: null });
    expect(errorOf(await t.api(p, 'POST', `/sca/factors/reset/${reset.body.resetId}/complete${q(customerId)}`))).toBe('INVALID_INPUT RESET_NOT_READY');
    expect((await liveness(reset.body.resetId, 'PENDING_REVIEW')).body.status).toBe('PENDING_REVIEW');
    expect((await liveness(reset.body.resetId, 'PASSED')).body.status).toBe('LIVENESS_PASSED');
    expect((await t.api(p, 'POST', `/sca/factors/reset/${reset.body.resetId}/complete${q(customerId)}`)).status).toBe(204);
    const done = await status();
    expect(done.body).toMatchObject({ status: 'COMPLETED', enrollmentStatus: 'PENDING' });
    expect(done.body.completedAt).not.toBeNull();
    expect((await t.api<{ factors: { factor: string }[] }>(p, 'GET', `/sca/factors${q(customerId)}`)).body.factors.map((x) => x.factor)).toEqual(['SMS_OTP']);
    const again = await t.api<{ secretBase32Encoded: string }>(p, 'POST', `/sca/factors${q(customerId)}`, { type: 'TOTP' });
    await t.api(p, 'POST', `/sca/factors/confirm${q(customerId)}`, { type: 'TOTP', secret: again.body.secretBase32Encoded, code: '123456' });
    expect((await status()).body.enrollmentStatus).toBe('COMPLETED');
  });

  it('an SMS_OTP reset enrols the new number given on completion; a rejected or expired reset cannot complete', async () => {
    const customerId = await scaCustomer('DK', '+4520123456');
    const reset = await t.api<{ resetId: string }>(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' });
    await liveness(reset.body.resetId, 'PASSED');
    const complete = (body?: unknown) => t.api(p, 'POST', `/sca/factors/reset/${reset.body.resetId}/complete${q(customerId)}`, body);
    expect(errorOf(await complete())).toBe('INVALID_INPUT MOBILE_REQUIRED');
    expect((await complete({ mobile: { countryCode: '+45', number: '29998877' } })).status).toBe(204);
    const factors = await t.api<{ factors: { factor: string; name?: string }[] }>(p, 'GET', `/sca/factors${q(customerId)}`);
    expect(factors.body.factors).toEqual([{ factor: 'SMS_OTP', name: '+4529998877' }]);
    expect((await t.api(p, 'GET', `/sca/factors/reset/${reset.body.resetId}${q(customerId)}`)).body).toMatchObject({ status: 'COMPLETED', enrollmentStatus: null });

    const rejected = await t.api<{ resetId: string }>(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' });
    expect((await liveness(rejected.body.resetId, 'REJECTED')).body.status).toBe('REJECTED');
    expect(errorOf(await liveness(rejected.body.resetId, 'PASSED'))).toBe('INVALID_INPUT RESET_NOT_READY');
    const expiring = await t.api<{ resetId: string }>(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' });
    await f.advance(3601);
    expect((await t.api<Status>(p, 'GET', `/sca/factors/reset/${expiring.body.resetId}${q(customerId)}`)).body.status).toBe('EXPIRED');
  });

  it('resets of a factor not enrolled are refused; at most 5 start per 24 hours (429 with Retry-After); unknown resets are 404', async () => {
    const customerId = await scaCustomer('PL', '+48512345678');
    expect(errorOf(await t.api(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'TOTP' }))).toBe('INVALID_INPUT FACTOR_NOT_ENROLLED');
    for (let i = 0; i < 5; i++) expect((await t.api(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' })).status).toBe(201);
    const sixth = await t.api(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' });
    expect(errorOf(sixth)).toBe('RATE_LIMITED TOO_MANY_RESETS');
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(80_000);
    const unknown = 'TwoFactorReset:01a20061-044a-7399-9737-e82f3a74e590';
    expect(errorOf(await t.api(p, 'GET', `/sca/factors/reset/${unknown}${q(customerId)}`))).toBe('REFERENCE_NOT_FOUND TWO_FACTOR_RESET_NOT_FOUND');
    await f.advance(24 * 3600 + 1);
    expect((await t.api(p, 'POST', `/sca/factors/reset${q(customerId)}`, { factor: 'SMS_OTP' })).status).toBe(201);
  });
});
