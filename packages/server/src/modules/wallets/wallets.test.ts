import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptExportBundle, encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';
import type { SignedRequestChallenge } from '../../../../../test/wire-types.js';
import { clabeEndingWith, mexicanBeneficiary, usBankAccount } from '../external-accounts/fixtures.js';
import { openSessionKey, otpLogin, otpVerify, signedRetry, stamp, type Caller } from './client-flows.js';

let t: TestApp;
let p: TestPlatform;
let signer: string;
/** Every call over real HTTP (loopback). */
let http: ReturnType<typeof httpApi>;

interface AuthMethod {
  id: string;
  accountId: string;
  type: string;
  nickname: string;
  credentialId?: string;
  otpEncryptionTargetBundle?: string;
}
interface AuthSession extends AuthMethod {
  expiresAt: string;
  encryptedSessionSigningKey?: string;
}

function caller(platform: TestPlatform): Caller {
  return async (method, path, body, headers) => {
    const res = await http(platform, method, path, body, headers);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
    return res;
  };
}

async function api<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>> {
  return http<T>(p, method, path, body, headers);
}

let seq = 0;
/** A customer of a wallet-enabled platform, with the wallet it was given and that wallet's EMAIL_OTP credential. */
async function walletHolder(extra: Record<string, unknown> = {}, currency = 'USDB'): Promise<{ customerId: string; walletId: string; credentialId: string; email: string }> {
  seq++;
  const email = `holder${seq}@wallet.test`;
  const customer = await api<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `holder-${seq}`, region: 'US', email, fullName: 'Wallet Holder', ...extra });
  expect(customer.status, customer.text).toBe(201);
  const accounts = await api<{ data: { id: string; type: string; balance: { currency: { code: string } } }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`);
  expect(accounts.body.data).toHaveLength(1);
  expect(accounts.body.data[0]!.balance.currency.code).toBe(currency);
  const walletId = accounts.body.data[0]!.id;
  const credentials = await api<{ data: AuthMethod[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
  expect(credentials.body.data.map((c) => [c.type, c.nickname])).toEqual([['EMAIL_OTP', email]]);
  return { customerId: customer.body.id, walletId, credentialId: credentials.body.data[0]!.id, email };
}

async function signedPatch(walletId: string, body: unknown, key: { privateKey: string; publicKey: string }): Promise<ApiResponse<{ privateEnabled: boolean }>> {
  const first = await api<SignedRequestChallenge>('PATCH', `/internal-accounts/${walletId}`, body);
  expect(first.status, first.text).toBe(202);
  return api('PATCH', `/internal-accounts/${walletId}`, body, { 'service-wallet-signature': await stamp(key, first.body.payloadToSign), 'request-id': first.body.requestId });
}

async function advance(seconds: number): Promise<void> {
  const res = await api('POST', '/sandbox/clock/advance', { seconds });
  expect(res.status, res.text).toBe(200);
}

async function privateEnabled(walletId: string): Promise<boolean> {
  const row = await t.database.db.selectFrom('wallets').select('private_enabled').where('account_id', '=', walletId as never).executeTakeFirstOrThrow();
  return row.private_enabled;
}

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }, { listen: true });
  p = t.platform;
  http = httpApi(t);
  const config = await api('PATCH', '/config', { embeddedWalletConfig: { appName: 'Test Wallet' } });
  expect(config.status, config.text).toBe(200);
  signer = ((await api<{ publicKey: string }>('GET', '/auth/bundle-signing-key')).body).publicKey;
});
afterAll(async () => t?.close());

describe('embedded wallets', () => {
  it('a customer of a wallet-enabled platform gets an EMBEDDED_WALLET account with an EMAIL_OTP credential tied to its email', async () => {
    const holder = await walletHolder();
    const sessions = await api<{ data: unknown[] }>('GET', `/auth/sessions?accountId=${encodeURIComponent(holder.walletId)}`);
    expect(sessions.body.data).toEqual([]);
    // An account the platform does not have lists nothing rather than leaking.
    const other = await api<{ data: unknown[] }>('GET', `/auth/credentials?accountId=InternalAccount:01a20061-044a-7399-9737-e82f3a74e590`);
    expect(other.status).toBe(200);
    expect(other.body.data).toEqual([]);
  });

  it('OTP login with @turnkey/crypto: the code encrypted to the pinned bundle, the verification token stamped, and the client key becomes the session key', async () => {
    const holder = await walletHolder();
    for (const compressedKeyInBundle of [true, false]) {
      const session = await otpLogin(caller(p), holder.credentialId, { compressedKeyInBundle });
      expect(session.sessionId).toMatch(/^Session:/);
      const listed = await api<{ data: AuthSession[] }>('GET', `/auth/sessions?accountId=${encodeURIComponent(holder.walletId)}`);
      expect(listed.body.data.map((s) => s.id)).toContain(session.sessionId);
      expect(listed.body.data.every((s) => s.encryptedSessionSigningKey === undefined)).toBe(true);
      // The session signs a wallet action.
      const patched = await signedPatch(holder.walletId, { privateEnabled: compressedKeyInBundle }, session);
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body.privateEnabled).toBe(compressedKeyInBundle);
      await advance(31);
    }
  });

  it('a wrong code is 401 OTP_INVALID and counts; a code works once; five wrong codes in a row lock the credential (429)', async () => {
    const holder = await walletHolder();
    const challenged = await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {});
    expect(challenged.status, challenged.text).toBe(200);
    const bundle = challenged.body.otpEncryptionTargetBundle!;
    const key = generateP256KeyPair();
    const wrong = await encryptOtpCodeToBundle('123456', bundle, key.publicKey, signer);
    const refused = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: wrong });
    expect(errorOf(refused)).toBe('UNAUTHORIZED OTP_INVALID');
    const right = await encryptOtpCodeToBundle('000000', bundle, key.publicKey, signer);
    const first = await api<SignedRequestChallenge>('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: right });
    expect(first.status, first.text).toBe(202);
    expect(first.body.type).toBe('EMAIL_OTP');
    // The same bundle again: the code is spent.
    const again = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: right });
    expect(errorOf(again)).toBe('UNAUTHORIZED OTP_EXPIRED');

    await advance(31);
    const fresh = (await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).body.otpEncryptionTargetBundle!;
    const bad = await encryptOtpCodeToBundle('999999', fresh, key.publicKey, signer);
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) codes.push(errorOf(await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: bad })));
    // The success above reset the count: the fifth wrong code in a row locks (wallet-lockout.test.ts has the rest).
    expect(codes).toEqual(['UNAUTHORIZED OTP_INVALID', 'UNAUTHORIZED OTP_INVALID', 'UNAUTHORIZED OTP_INVALID', 'UNAUTHORIZED OTP_INVALID', 'RATE_LIMITED CREDENTIAL_LOCKED', 'RATE_LIMITED CREDENTIAL_LOCKED']);
    // Even the right code no longer opens this issuance.
    const late = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', fresh, key.publicKey, signer) });
    expect(errorOf(late)).toBe('RATE_LIMITED CREDENTIAL_LOCKED');
  });

  it('a new code supersedes the previous one: the old bundle no longer opens, even with the right code', async () => {
    const holder = await walletHolder();
    const old = (await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).body.otpEncryptionTargetBundle!;
    await advance(31);
    const fresh = (await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).body.otpEncryptionTargetBundle!;
    expect(fresh).not.toBe(old);
    const key = generateP256KeyPair();
    const stale = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', old, key.publicKey, signer) });
    expect(errorOf(stale)).toBe('UNAUTHORIZED OTP_INVALID');
    const current = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', fresh, key.publicKey, signer) });
    expect(current.status).toBe(202);
  });

  it('empty signature headers count as absent: the code is checked as on a first call, not a signed retry', async () => {
    const holder = await walletHolder();
    const bundle = (await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).body.otpEncryptionTargetBundle!;
    const key = generateP256KeyPair();
    const right = await encryptOtpCodeToBundle('000000', bundle, key.publicKey, signer);
    const first = await api<SignedRequestChallenge>('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: right }, { 'request-id': '', 'service-wallet-signature': ' ' });
    expect(first.status, first.text).toBe(202);
    expect(first.body.type).toBe('EMAIL_OTP');
    const again = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: right }, { 'request-id': '' });
    expect(errorOf(again)).toBe('UNAUTHORIZED OTP_EXPIRED');
    // A wallet change: an empty Request-Id beside a signature is a missing request id, not a new challenge.
    const path = `/internal-accounts/${holder.walletId}`;
    expect(errorOf(await api('PATCH', path, { privateEnabled: true }, { 'service-wallet-signature': 'x', 'request-id': '' }))).toBe('REQUEST_ID_MISSING');
  });

  it('re-issuing a challenge faster than every 30 seconds is 429 with Retry-After; an expired code is refused', async () => {
    const holder = await walletHolder();
    expect((await api('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).status).toBe(200);
    const fast = await api('POST', `/auth/credentials/${holder.credentialId}/challenge`, {});
    expect(fast.status).toBe(429);
    expect(errorOf(fast)).toBe('RATE_LIMITED');
    expect(Number(fast.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(fast.headers['retry-after'])).toBeLessThanOrEqual(30);
    await advance(31);
    const bundle = (await api<AuthMethod>('POST', `/auth/credentials/${holder.credentialId}/challenge`, {})).body.otpEncryptionTargetBundle!;
    await advance(301);
    const key = generateP256KeyPair();
    const expired = await api('POST', `/auth/credentials/${holder.credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', bundle, key.publicKey, signer) });
    expect(errorOf(expired)).toBe('UNAUTHORIZED OTP_EXPIRED');
  });

  it('every failure of the signed retry is refused and changes nothing', async () => {
    const holder = await walletHolder();
    const session = await otpLogin(caller(p), holder.credentialId);
    const body = { privateEnabled: true };
    const path = `/internal-accounts/${holder.walletId}`;
    const first = await api<SignedRequestChallenge>('PATCH', path, body);
    expect(first.status).toBe(202);
    const good = await stamp(session, first.body.payloadToSign);
    const stranger = generateP256KeyPair();
    const cases: [Record<string, string>, unknown, string][] = [
      [{ 'request-id': first.body.requestId }, body, 'WALLET_SIGNATURE_MISSING'],
      [{ 'service-wallet-signature': good }, body, 'REQUEST_ID_MISSING'],
      [{ 'service-wallet-signature': 'not base64url json', 'request-id': first.body.requestId }, body, 'WALLET_SIGNATURE_MALFORMED'],
      [{ 'service-wallet-signature': good, 'request-id': first.body.requestId }, { privateEnabled: false }, 'WALLET_SIGNATURE_BODY_MISMATCH'],
      [{ 'service-wallet-signature': await stamp(stranger, first.body.payloadToSign), 'request-id': first.body.requestId }, body, 'WALLET_SIGNATURE_INVALID SIGNATURE_INVALID'],
      [{ 'service-wallet-signature': await stamp(session, first.body.payloadToSign + ' '), 'request-id': first.body.requestId }, body, 'WALLET_SIGNATURE_INVALID SIGNATURE_INVALID'],
      [{ 'service-wallet-signature': good, 'request-id': 'Request:01a20061-044a-7399-9737-e82f3a74e590' }, body, 'WALLET_SIGNATURE_INVALID REQUEST_UNKNOWN'],
    ];
    for (const [headers, sent, code] of cases) {
      expect(errorOf(await api('PATCH', path, sent, headers)), code).toBe(code);
      expect(await privateEnabled(holder.walletId)).toBe(false);
    }
    expect((await api('PATCH', path, body, { 'service-wallet-signature': good, 'request-id': first.body.requestId })).status).toBe(200);
    // A replay of the same signed retry.
    expect(errorOf(await api('PATCH', path, body, { 'service-wallet-signature': good, 'request-id': first.body.requestId }))).toBe('WALLET_SIGNATURE_INVALID REQUEST_USED');
    // A challenge answered after its 5 minutes is refused, even by a live session.
    const slow = await api<SignedRequestChallenge>('PATCH', path, { privateEnabled: false });
    await advance(301);
    expect(errorOf(await api('PATCH', path, { privateEnabled: false }, { 'service-wallet-signature': await stamp(session, slow.body.payloadToSign), 'request-id': slow.body.requestId }))).toBe('WALLET_SIGNATURE_INVALID REQUEST_EXPIRED');
    expect(await privateEnabled(holder.walletId)).toBe(true);
    // Once the session has expired (15 minutes), its key signs nothing.
    await advance(15 * 60 + 1);
    const later = await api<SignedRequestChallenge>('PATCH', path, { privateEnabled: false });
    const expired = await api('PATCH', path, { privateEnabled: false }, { 'service-wallet-signature': await stamp(session, later.body.payloadToSign), 'request-id': later.body.requestId });
    expect(errorOf(expired)).toBe('WALLET_SIGNATURE_INVALID SIGNATURE_INVALID');
    expect(await privateEnabled(holder.walletId)).toBe(true);
    // sandbox-valid-signature works in the sandbox.
    const sandboxSigned = await api<{ privateEnabled: boolean }>('PATCH', path, { privateEnabled: false }, { 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': later.body.requestId });
    expect(sandboxSigned.body.privateEnabled).toBe(false);
  });

  it('export seals the wallet secret to the client key: decryptExportBundle opens it with our signer pinned', async () => {
    const holder = await walletHolder();
    const session = await otpLogin(caller(p), holder.credentialId);
    const secrets: string[] = [];
    for (let i = 0; i < 2; i++) {
      const target = generateP256KeyPair();
      const body = { clientPublicKey: target.publicKeyUncompressed };
      const first = await api<SignedRequestChallenge>('POST', `/internal-accounts/${holder.walletId}/export`, body);
      expect(first.status).toBe(202);
      expect(first.body.payloadToSign).toContain(target.publicKeyUncompressed);
      const exported = (await signedRetry(caller(p), session, 'POST', `/internal-accounts/${holder.walletId}/export`, body, first)).body as { id: string; encryptedWalletCredentials: string };
      expect(exported.id).toBe(holder.walletId);
      secrets.push(
        await decryptExportBundle({ exportBundle: exported.encryptedWalletCredentials, embeddedKey: target.privateKey, organizationId: holder.walletId, dangerouslyOverrideSignerPublicKey: signer, keyFormat: 'HEXADECIMAL', returnMnemonic: false }),
      );
    }
    expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(secrets[1]).toBe(secrets[0]);
  });

  it('a second credential needs a session’s signature; one SMS_OTP per wallet; revoking needs another credential’s session and never the last', async () => {
    const holder = await walletHolder({ phoneNumber: '+15555550123' });
    const session = await otpLogin(caller(p), holder.credentialId);
    const body = { type: 'SMS_OTP', accountId: holder.walletId };
    const first = await api<SignedRequestChallenge>('POST', '/auth/credentials', body);
    expect(first.status, first.text).toBe(202);
    expect(first.body.type).toBe('SMS_OTP');
    const created = await signedRetry(caller(p), session, 'POST', '/auth/credentials', body, first);
    expect(created.status).toBe(201);
    const sms = created.body as AuthMethod;
    expect(sms.nickname).toBe('+15555550123');
    expect(sms.otpEncryptionTargetBundle).toBeDefined();
    expect(errorOf(await api('POST', '/auth/credentials', body))).toBe('SMS_OTP_CREDENTIAL_ALREADY_EXISTS');

    const smsSession = await otpVerify(caller(p), sms.id, sms.otpEncryptionTargetBundle!, signer, { type: 'SMS_OTP' });
    // Revoking the email credential with its own session is refused; with the SMS one's it goes.
    const revoke = await api<SignedRequestChallenge>('DELETE', `/auth/credentials/${holder.credentialId}`);
    expect(revoke.status).toBe(202);
    const own = await api('DELETE', `/auth/credentials/${holder.credentialId}`, undefined, { 'service-wallet-signature': await stamp(session, revoke.body.payloadToSign), 'request-id': revoke.body.requestId });
    expect(errorOf(own)).toBe('WALLET_SIGNATURE_INVALID SIGNATURE_INVALID');
    const gone = await api('DELETE', `/auth/credentials/${holder.credentialId}`, undefined, { 'service-wallet-signature': await stamp(smsSession, revoke.body.payloadToSign), 'request-id': revoke.body.requestId });
    expect(gone.status, gone.text).toBe(204);
    const left = await api<{ data: AuthMethod[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(holder.walletId)}`);
    expect(left.body.data.map((c) => c.type)).toEqual(['SMS_OTP']);
    // Its sessions ended with it.
    const sessions = await api<{ data: AuthSession[] }>('GET', `/auth/sessions?accountId=${encodeURIComponent(holder.walletId)}`);
    expect(sessions.body.data.map((s) => s.id)).toEqual([smsSession.sessionId]);
    expect(errorOf(await api('DELETE', `/auth/credentials/${sms.id}`))).toBe('INVALID_INPUT LAST_CREDENTIAL');
  });

  it('refresh seals a new key to the new client key and ends the old session; revoke ends a session', async () => {
    const holder = await walletHolder();
    const session = await otpLogin(caller(p), holder.credentialId);
    const client = generateP256KeyPair();
    const body = { clientPublicKey: client.publicKeyUncompressed };
    const first = await api<SignedRequestChallenge>('POST', `/auth/sessions/${session.sessionId}/refresh`, body);
    expect(first.status).toBe(202);
    const refreshed = await signedRetry(caller(p), session, 'POST', `/auth/sessions/${session.sessionId}/refresh`, body, first);
    expect(refreshed.status).toBe(201);
    const next = refreshed.body as AuthSession;
    const key = openSessionKey(next.encryptedSessionSigningKey!, client.privateKey);
    const patched = await signedPatch(holder.walletId, { privateEnabled: true }, key);
    expect(patched.status, patched.text).toBe(200);
    // The old key signs nothing any more.
    const stale = await api<SignedRequestChallenge>('PATCH', `/internal-accounts/${holder.walletId}`, { privateEnabled: false });
    expect(errorOf(await api('PATCH', `/internal-accounts/${holder.walletId}`, { privateEnabled: false }, { 'service-wallet-signature': await stamp(session, stale.body.payloadToSign), 'request-id': stale.body.requestId }))).toBe(
      'WALLET_SIGNATURE_INVALID SIGNATURE_INVALID',
    );
    const revoke = await api<SignedRequestChallenge>('DELETE', `/auth/sessions/${next.id}`);
    expect((await api('DELETE', `/auth/sessions/${next.id}`, undefined, { 'service-wallet-signature': await stamp(key, revoke.body.payloadToSign), 'request-id': revoke.body.requestId })).status).toBe(204);
    expect(errorOf(await api('DELETE', `/auth/sessions/${next.id}`))).toBe('REFERENCE_NOT_FOUND SESSION_NOT_FOUND');
  });

  it('a customer email tied to an EMAIL_OTP credential changes only with the wallet’s signature, and the credential follows it', async () => {
    const holder = await walletHolder();
    const session = await otpLogin(caller(p), holder.credentialId);
    const body = { customerType: 'INDIVIDUAL', email: 'moved@wallet.test' };
    const first = await api<SignedRequestChallenge>('PATCH', `/customers/${holder.customerId}`, body);
    expect(first.status, first.text).toBe(202);
    const unchanged = await api<{ email: string }>('GET', `/customers/${holder.customerId}`);
    expect(unchanged.body.email).toBe(holder.email);
    const done = await signedRetry(caller(p), session, 'PATCH', `/customers/${holder.customerId}`, body, first);
    expect((done.body as { email: string }).email).toBe('moved@wallet.test');
    const credentials = await api<{ data: AuthMethod[] }>('GET', `/auth/credentials?accountId=${encodeURIComponent(holder.walletId)}`);
    expect(credentials.body.data[0]!.nickname).toBe('moved@wallet.test');
  });

  it('a quote from a wallet carries the payload to sign; it executes only with the wallet session’s stamp, never immediately', async () => {
    expect((await api('PATCH', '/config', { embeddedWalletConfig: { walletCurrency: 'USD' } })).status).toBe(200);
    const holder = await walletHolder({}, 'USD');
    const session = await otpLogin(caller(p), holder.credentialId);
    expect((await api('POST', `/sandbox/internal-accounts/${holder.walletId}/fund`, { amount: 100_000 })).status).toBe(200);
    const external = await api<{ id: string }>('POST', '/customers/external-accounts', { customerId: holder.customerId, currency: 'MXN', accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('100'), bankName: 'Banco', beneficiary: mexicanBeneficiary } });
    expect(external.status, external.text).toBe(201);
    const request = { source: { sourceType: 'ACCOUNT', accountId: holder.walletId }, destination: { destinationType: 'ACCOUNT', accountId: external.body.id }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 };
    expect(errorOf(await api('POST', '/quotes', { ...request, immediatelyExecute: true }))).toBe('INVALID_INPUT WALLET_SIGNATURE_REQUIRED');
    const quote = await api<{ id: string; status: string; paymentInstructions: { accountOrWalletInfo: { accountType: string; payloadToSign: string } }[] }>('POST', '/quotes', request);
    expect(quote.status, quote.text).toBe(201);
    const info = quote.body.paymentInstructions[0]!.accountOrWalletInfo;
    expect(info.accountType).toBe('EMBEDDED_WALLET');
    expect(JSON.parse(info.payloadToSign)).toMatchObject({ type: 'QUOTE_EXECUTE', quoteId: quote.body.id, sourceAccountId: holder.walletId });
    const balance = async () => (await api<{ balance: { amount: number } }>('GET', `/internal-accounts/${holder.walletId}`)).body.balance.amount;
    const stranger = generateP256KeyPair();
    expect(errorOf(await api('POST', `/quotes/${quote.body.id}/execute`))).toBe('WALLET_SIGNATURE_MISSING');
    expect(errorOf(await api('POST', `/quotes/${quote.body.id}/execute`, undefined, { 'service-wallet-signature': 'e30' }))).toBe('WALLET_SIGNATURE_MALFORMED');
    expect(errorOf(await api('POST', `/quotes/${quote.body.id}/execute`, undefined, { 'service-wallet-signature': await stamp(stranger, info.payloadToSign) }))).toBe('WALLET_SIGNATURE_INVALID SIGNATURE_INVALID');
    expect(await balance()).toBe(100_000);
    const executed = await api<{ status: string }>('POST', `/quotes/${quote.body.id}/execute`, undefined, { 'service-wallet-signature': await stamp(session, info.payloadToSign) });
    expect(executed.status, executed.text).toBe(200);
    expect(executed.body.status).toBe('PROCESSING');
    expect(await balance()).toBe(90_000);
    // A transfer out of the wallet is refused: only signed quotes move it.
    const usd = await api<{ id: string }>('POST', '/customers/external-accounts', { customerId: holder.customerId, currency: 'USD', accountInfo: usBankAccount() });
    const out = await api('POST', '/transfer-out', { source: { accountId: holder.walletId }, destination: { accountId: usd.body.id }, amount: 100 });
    expect(errorOf(out)).toBe('INVALID_INPUT WALLET_SIGNATURE_REQUIRED');
  });

  it('a card spends a wallet only through an ACTIVE delegated key, granted in three signed legs, within its limit; revoked, it spends nothing', async () => {
    const holder = await walletHolder({}, 'USD'); // the platform's wallets are in USD since the quote test
    const session = await otpLogin(caller(p), holder.credentialId);
    expect((await api('POST', `/sandbox/internal-accounts/${holder.walletId}/fund`, { amount: 100_000 })).status).toBe(200);
    const card = await api<{ id: string }>('POST', '/cards', { cardholderId: holder.customerId, form: 'VIRTUAL', fundingSources: [holder.walletId] });
    expect(card.status, card.text).toBe(201);
    await t.container.jobs.runDue();
    const spend = (amount: number) => api<{ status?: string; declineReason?: string; code?: string }>('POST', `/sandbox/cards/${card.body.id}/simulate/authorization`, { amount, currency: { code: 'USD' }, merchant: { descriptor: 'WALLET SHOP', mcc: '5814', country: 'US' } });
    const before = await spend(1_000);
    expect(before.text).not.toContain('"AUTHORIZED"');

    const body = { cardId: card.body.id, internalAccountId: holder.walletId, nickname: 'Card spending', spendingLimits: [{ currencyCode: 'USD', maxPerTransaction: 5_000 }] };
    const first = await api<SignedRequestChallenge>('POST', '/auth/delegated-keys', body);
    expect(first.status, first.text).toBe(202);
    const pending = await api<{ data: { status: string }[] }>('GET', `/auth/delegated-keys?accountId=${encodeURIComponent(holder.walletId)}`);
    expect(pending.body.data.map((k) => k.status)).toEqual(['PENDING']);
    const second = await signedRetry(caller(p), session, 'POST', '/auth/delegated-keys', body, first);
    expect(second.status).toBe(202);
    expect((second.body as SignedRequestChallenge).requestId).not.toBe(first.body.requestId);
    const stranger = generateP256KeyPair();
    expect(errorOf(await api('POST', '/auth/delegated-keys', body, { 'service-wallet-signature': await stamp(stranger, (second.body as SignedRequestChallenge).payloadToSign), 'request-id': (second.body as SignedRequestChallenge).requestId }))).toBe(
      'WALLET_SIGNATURE_INVALID SIGNATURE_INVALID',
    );
    const created = await signedRetry(caller(p), session, 'POST', '/auth/delegated-keys', body, second);
    expect(created.status, created.text).toBe(201);
    const key = created.body as { id: string; status: string; fundingSourceId: string; publicKey: string };
    expect(key.status).toBe('ACTIVE');
    expect(key.publicKey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect((await api<{ status: string }>('GET', `/auth/delegated-keys/${key.id}`)).body.status).toBe('ACTIVE');
    expect((await api<{ data: unknown[] }>('GET', `/auth/delegated-keys?fundingSourceId=${encodeURIComponent(key.fundingSourceId)}`)).body.data).toHaveLength(1);
    expect(errorOf(await api('POST', '/auth/delegated-keys', body))).toBe('CONFLICT DELEGATED_KEY_ACTIVE');

    const within = await spend(4_000);
    expect(within.body.status, within.text).toBe('AUTHORIZED');
    expect((await spend(6_000)).text).not.toContain('"AUTHORIZED"');
    expect((await api('DELETE', `/auth/delegated-keys/${key.id}`)).status).toBe(204);
    expect(errorOf(await api('DELETE', `/auth/delegated-keys/${key.id}`))).toBe('INVALID_INPUT DELEGATED_KEY_NOT_ACTIVE');
    expect((await spend(1_000)).text).not.toContain('"AUTHORIZED"');
    expect(errorOf(await api('GET', '/auth/delegated-keys'))).toBe('INVALID_INPUT');
  });
});
