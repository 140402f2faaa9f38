import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';

/**
 * Production mode: SCA codes are random and really sent through the messaging interface (an HTTP
 * SMS gateway on loopback, over real HTTP), and the sandbox's 123456 is not taken anywhere.
 */
const texts: { to: string; body: string }[] = [];
let sms: ReturnType<typeof createServer>;
let t: TestApp;
let p: TestPlatform;

const api = <T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown) => httpApi(t)<T>(p, method, path, body);

/** Runs the delivery jobs, as the worker would, and returns the code in the last text to `to`. */
async function codeSentTo(to: string): Promise<string> {
  await t.container.jobs.runDue();
  const text = texts.filter((m) => m.to === to).at(-1);
  const code = text?.body.match(/^([0-9]{6}) /)?.[1];
  if (!code) throw new Error(`no code sent to ${to}: ${JSON.stringify(texts)}`);
  return code;
}

beforeAll(async () => {
  sms = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      texts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; body: string });
      res.writeHead(202).end('{}');
    });
  });
  await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
  t = await createTestApp(
    {
      MONETA_MODE: 'production',
      DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused.invalid/none',
      MONETA_ENCRYPTION_KEY: 'c'.repeat(64),
      MONETA_SMS_URL: `http://127.0.0.1:${(sms.address() as AddressInfo).port}/messages`,
      MONETA_OUTBOUND_ALLOW: '127.0.0.1/32',
    },
    { listen: true },
  );
  p = t.platform;
});
afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => sms?.close(() => resolve()));
});

async function customer(phoneNumber: string): Promise<string> {
  const res = await api<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Paula Produktion', region: 'DE', currencies: ['USD'], phoneNumber });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe('SCA codes in production', () => {
  it('an SMS login code arrives by the gateway and opens the session; 123456 does not', async () => {
    const customerId = await customer('+4915100000001');
    const q = `?customerId=${customerId}`;
    const start = await api<{ challengeId: string }>('POST', `/sca/login/start${q}`, { factor: 'SMS_OTP' });
    expect(start.status, start.text).toBe(200);
    const code = await codeSentTo('+4915100000001');
    const body = { factor: 'SMS_OTP', endUserIpAddress: '198.51.100.4', challengeId: start.body.challengeId };
    if (code !== '123456') expect(errorOf(await api('POST', `/sca/login/complete${q}`, { ...body, code: '123456' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const done = await api<{ status: string }>('POST', `/sca/login/complete${q}`, { ...body, code });
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('SUCCESS');
  });

  it('a TOTP factor takes only its app’s codes', async () => {
    const customerId = await customer('+4915100000002');
    const q = `?customerId=${customerId}`;
    const start = await api<{ secretBase32Encoded: string; secret: string }>('POST', `/sca/factors${q}`, { type: 'TOTP' });
    expect(errorOf(await api('POST', `/sca/factors/confirm${q}`, { type: 'TOTP', secret: start.body.secret, code: '123456' }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const confirm = await api('POST', `/sca/factors/confirm${q}`, { type: 'TOTP', secret: start.body.secret, code: await generate({ secret: start.body.secretBase32Encoded }) });
    expect(confirm.status, confirm.text).toBe(200);
  });

  it('a trust change is confirmed with the code sent for it, not with an earlier one', async () => {
    const customerId = await customer('+4915100000003');
    const account = await api<{ id: string }>('POST', '/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: '4800000991', bankName: 'Prod Bank', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Paula Produktion', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } } },
    });
    expect(account.status, account.text).toBe(201);
    await api('POST', `/customers/external-accounts/${account.body.id}/trust`);
    const first = await codeSentTo('+4915100000003');
    await api('POST', `/customers/external-accounts/${account.body.id}/trust`);
    const second = await codeSentTo('+4915100000003');
    if (first !== second) expect(errorOf(await api('POST', `/customers/external-accounts/${account.body.id}/trust/confirm`, { code: first }))).toBe('INVALID_INPUT SCA_CODE_INVALID');
    const trusted = await api<{ trusted: boolean }>('POST', `/customers/external-accounts/${account.body.id}/trust/confirm`, { code: second });
    expect(trusted.body).toEqual({ trusted: true });
  });
});

describe('production without an SMS gateway', () => {
  it('a code that cannot be sent is refused up front (503 SMS_NOT_CONFIGURED), and nothing is issued', async () => {
    const bare = await createTestApp({ MONETA_MODE: 'production', DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused.invalid/none', MONETA_ENCRYPTION_KEY: 'd'.repeat(64) });
    try {
      const created = await bare.api<{ id: string }>(bare.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Nora Nosms', region: 'DE', currencies: ['USD'], phoneNumber: '+4915100000009' });
      const res = await bare.api(bare.platform, 'POST', `/sca/login/start?customerId=${created.body.id}`, { factor: 'SMS_OTP' });
      expect(res.status).toBe(503);
      expect(errorOf(res)).toBe('SERVICE_UNAVAILABLE SMS_NOT_CONFIGURED');
      expect(await bare.database.db.selectFrom('sca_challenges').select('id').execute()).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
