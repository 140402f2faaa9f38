import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';
import type { SignedRequestChallenge } from '../../../../../test/wire-types.js';
import { otpVerify, signedRetry, stamp, type Caller } from './client-flows.js';
import { sandboxOidcToken } from './fixtures.js';

/**
 * Production mode: codes are random and really delivered (a real SMTP server and an HTTP SMS
 * gateway on loopback), and none of the sandbox's shortcuts exist.
 */
const mails: string[] = [];
const texts: { authorization: string | undefined; body: { to: string; body: string } }[] = [];
let smtp: SMTPServer;
let sms: ReturnType<typeof createServer>;
let t: TestApp;
let p: TestPlatform;
let signer: string;

const caller: Caller = async (method, path, body, headers) => {
  const res = await httpApi(t)(p, method, path, body, headers);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status} ${res.text}`);
  return res;
};

/** The code in the last email: quoted-printable or not, it is the only line of digits. */
function codeInMail(raw: string): string {
  const code = raw.replace(/=\r?\n/g, '').match(/^\s*([0-9]{6})\s*$/m)?.[1];
  if (!code) throw new Error(`no code in the email:\n${raw}`);
  return code;
}

beforeAll(async () => {
  smtp = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    closeTimeout: 500,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push(Buffer.concat(chunks).toString('utf8'));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()));
  sms = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      texts.push({ authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; body: string } });
      res.writeHead(202).end('{}');
    });
  });
  await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
  t = await createTestApp({
    MONETA_MODE: 'production',
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused.invalid/none',
    MONETA_ENCRYPTION_KEY: 'b'.repeat(64),
    MONETA_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    MONETA_SMS_URL: `http://127.0.0.1:${(sms.address() as AddressInfo).port}/messages`,
    MONETA_SMS_TOKEN: 'sms-gateway-token',
    // The gateway is on loopback: an operator's private gateway must be allowed by name.
    MONETA_OUTBOUND_ALLOW: '127.0.0.1/32',
  }, { listen: true });
  p = t.platform;
  expect((await httpApi(t)(p, 'PATCH', '/config', { embeddedWalletConfig: { appName: 'Prod Wallet', otpLength: 6 } })).status).toBe(200);
  signer = ((await httpApi(t)<{ publicKey: string }>(p, 'GET', '/auth/bundle-signing-key')).body).publicKey;
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  await new Promise<void>((resolve) => sms?.close(() => resolve()));
});

describe('embedded-wallet codes in production', () => {
  it('emails a random code over SMTP and texts one through the SMS gateway; the sandbox code and signature do not work', async () => {
    const customer = await httpApi(t)<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'prod-holder', region: 'US', email: 'holder@prod.test', phoneNumber: '+15555550199', fullName: 'Prod Holder' });
    expect(customer.status, customer.text).toBe(201);
    const wallet = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
    const credentialId = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet)}`)).body.data[0]!.id;

    const challenged = await httpApi(t)<{ otpEncryptionTargetBundle: string }>(p, 'POST', `/auth/credentials/${credentialId}/challenge`, {});
    expect(challenged.status, challenged.text).toBe(200);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('holder@prod.test');
    expect(mails[0]).toContain('Prod Wallet');
    const code = codeInMail(mails[0]!);
    // The sandbox's code is not this installation's.
    if (code !== '000000') {
      const key = generateP256KeyPair();
      const sandboxCode = await httpApi(t)(p, 'POST', `/auth/credentials/${credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', challenged.body.otpEncryptionTargetBundle, key.publicKey, signer) });
      expect(errorOf(sandboxCode)).toBe('UNAUTHORIZED OTP_INVALID');
    }
    const session = await otpVerify(caller, credentialId, challenged.body.otpEncryptionTargetBundle, signer, { code });

    // A wallet action: the sandbox signature is refused, a real stamp works.
    const first = await httpApi(t)<SignedRequestChallenge>(p, 'PATCH', `/internal-accounts/${wallet}`, { privateEnabled: true });
    expect(first.status).toBe(202);
    const sandboxSigned = await httpApi(t)(p, 'PATCH', `/internal-accounts/${wallet}`, { privateEnabled: true }, { 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': first.body.requestId });
    expect(sandboxSigned.status).toBe(401);
    const signed = await httpApi(t)(p, 'PATCH', `/internal-accounts/${wallet}`, { privateEnabled: true }, { 'service-wallet-signature': await stamp(session, first.body.payloadToSign), 'request-id': first.body.requestId });
    expect(signed.status, signed.text).toBe(200);

    // An SMS credential: added with the session's signature, its code texted to the customer's phone.
    const body = { type: 'SMS_OTP', accountId: wallet };
    const added = await signedRetry(caller, session, 'POST', '/auth/credentials', body, await caller('POST', '/auth/credentials', body));
    expect(added.status).toBe(201);
    expect(texts).toHaveLength(1);
    expect(texts[0]!.authorization).toBe('Bearer sms-gateway-token');
    expect(texts[0]!.body.to).toBe('+15555550199');
    const smsCode = texts[0]!.body.body.match(/^([0-9]{6}) is your Prod Wallet code/)?.[1];
    expect(smsCode).toBeDefined();
    const smsCredential = added.body as { id: string; otpEncryptionTargetBundle: string };
    const smsSession = await otpVerify(caller, smsCredential.id, smsCredential.otpEncryptionTargetBundle, signer, { code: smsCode!, type: 'SMS_OTP' });
    expect(smsSession.sessionId).toMatch(/^Session:/);

    // Unsigned OIDC tokens of unconfigured issuers are a sandbox shortcut only.
    const oauth = await httpApi(t)(p, 'POST', '/auth/credentials', { type: 'OAUTH', accountId: wallet, oidcToken: sandboxOidcToken('someone', Math.floor(Date.now() / 1000)) });
    expect(errorOf(oauth)).toBe('UNAUTHORIZED OIDC_TOKEN_INVALID');
  });

  it('a code that cannot be delivered leaves nothing behind and says so (500 OTP_DELIVERY_FAILED)', async () => {
    const customer = await httpApi(t)<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'prod-holder-2', region: 'US', email: 'second@prod.test', fullName: 'Second Holder' });
    const wallet = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/internal-account?customerId=${encodeURIComponent(customer.body.id)}&type=EMBEDDED_WALLET`)).body.data[0]!.id;
    const credentialId = (await httpApi(t)<{ data: { id: string }[] }>(p, 'GET', `/auth/credentials?accountId=${encodeURIComponent(wallet)}`)).body.data[0]!.id;
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    const failed = await httpApi(t)(p, 'POST', `/auth/credentials/${credentialId}/challenge`, {});
    expect(failed.status).toBe(500);
    expect(errorOf(failed)).toBe('INTERNAL_ERROR OTP_DELIVERY_FAILED');
    expect(failed.text).not.toMatch(/[0-9]{6}/);
    // Not counted as an issuance: asking again is not rate limited (it fails again only because SMTP is down).
    expect(errorOf(await httpApi(t)(p, 'POST', `/auth/credentials/${credentialId}/challenge`, {}))).toBe('INTERNAL_ERROR OTP_DELIVERY_FAILED');
  });
});
