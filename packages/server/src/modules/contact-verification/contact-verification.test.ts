import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi } from '../../../../../test/payments-fixtures.js';

interface CustomerBody {
  id: string;
  contactVerification?: { email?: string; phone?: string };
}

const EU_CUSTOMER = { customerType: 'INDIVIDUAL', region: 'FR', currencies: ['EUR'], fullName: 'Claire Dupont', email: 'claire@example.fr', phoneNumber: '+33612345678' };

async function newCustomer(t: TestApp, p: TestPlatform, label: string, fields: Record<string, unknown> = {}): Promise<string> {
  const created = await httpApi(t)<{ id: string }>(p, 'POST', '/customers', { ...EU_CUSTOMER, platformCustomerId: label, ...fields });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

describe('contact verification in the sandbox', () => {
  let t: TestApp;
  let p: TestPlatform;
  const api = <T = unknown>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown, who?: TestPlatform) => httpApi(t)<T>(who ?? p, method, path, body);

  beforeAll(async () => {
    t = await createTestApp({}, { listen: true });
    p = t.platform;
  });
  afterAll(async () => t?.close());

  it('an EEA customer verifies email then phone with the sandbox code, and only then gets a KYC link', async () => {
    const id = await newCustomer(t, p, 'eu-flow');
    const shown = async () => (await api<CustomerBody>('GET', `/customers/${id}`)).body.contactVerification;
    expect(await shown()).toEqual({ email: 'PENDING', phone: 'PENDING' });
    const kycBefore = await api('POST', `/customers/${id}/kyc-link`, {});
    expect(errorOf(kycBefore)).toBe('CONFLICT CONTACT_VERIFICATION_REQUIRED');
    expect((kycBefore.body as { details: { unverified: string[] } }).details.unverified).toEqual(['EMAIL', 'PHONE']);

    // The send takes an empty POST: no body, no content type.
    const sent = await fetch(`${t.baseUrl}/2025-10-13/customers/${id}/verify-email`, { method: 'POST', headers: { authorization: p.authorization } });
    expect(sent.status).toBe(204);
    expect(await sent.text()).toBe('');
    const email = await api<CustomerBody>('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' });
    expect(email.status, email.text).toBe(200);
    expect(email.body.id).toBe(id);
    expect(email.body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    expect(await shown()).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    const listed = await api<{ data: CustomerBody[] }>('GET', `/customers?platformCustomerId=eu-flow`);
    expect(listed.body.data.map((c) => c.contactVerification)).toEqual([{ email: 'VERIFIED', phone: 'PENDING' }]);
    expect(errorOf(await api('POST', `/customers/${id}/kyc-link`, {}))).toBe('CONFLICT CONTACT_VERIFICATION_REQUIRED');

    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    // The service-wide sandbox OTP is taken as well as the reference's 123456.
    const phone = await api<CustomerBody>('POST', `/customers/${id}/verify-phone/confirm`, { code: '000000' });
    expect(phone.status, phone.text).toBe(200);
    expect(phone.body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });

    const link = await api<{ kycUrl: string }>('POST', `/customers/${id}/kyc-link`, {});
    expect(link.status, link.text).toBe(201);
    expect((await api('GET', `/customers/kyc-link?customerId=${encodeURIComponent(id)}`)).status).toBe(200);

    // Verified contacts refuse a new send and a second confirm (a code is used once).
    expect(errorOf(await api('POST', `/customers/${id}/verify-email`))).toBe('CONFLICT CONTACT_ALREADY_VERIFIED');
    expect(errorOf(await api('POST', `/customers/${id}/verify-phone/confirm`, { code: '123456' }))).toBe('CONFLICT CONTACT_ALREADY_VERIFIED');

    // A new email is not verified: the channel is PENDING again and KYC waits.
    const patched = await api<CustomerBody>('PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', email: 'claire.new@example.fr' });
    expect(patched.status).toBe(200);
    expect(patched.body.contactVerification).toEqual({ email: 'PENDING', phone: 'VERIFIED' });
    expect(await shown()).toEqual({ email: 'PENDING', phone: 'VERIFIED' });
    expect(errorOf(await api('POST', `/customers/${id}/kyc-link`, {}))).toBe('CONFLICT CONTACT_VERIFICATION_REQUIRED');
    expect((await api('POST', `/customers/${id}/verify-email`)).status).toBe(204);
    expect((await api<CustomerBody>('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' })).body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });
  });

  it('a customer outside the EEA needs none: 409 on all four, and its KYC link is not held back', async () => {
    const id = await newCustomer(t, p, 'us-customer', { region: 'US', currencies: ['USD'], phoneNumber: '+14155550100' });
    for (const path of ['verify-email', 'verify-phone']) {
      expect(errorOf(await api('POST', `/customers/${id}/${path}`))).toBe('CONFLICT CONTACT_VERIFICATION_NOT_REQUIRED');
      expect(errorOf(await api('POST', `/customers/${id}/${path}/confirm`, { code: '123456' }))).toBe('CONFLICT CONTACT_VERIFICATION_NOT_REQUIRED');
    }
    expect((await api('POST', `/customers/${id}/kyc-link`, {})).status).toBe(201);
    expect((await api<CustomerBody>('GET', `/customers/${id}`)).body).not.toHaveProperty('contactVerification');
  });

  it('a confirm without a sent code, with an expired code, with a superseded code, and without the contact, is refused', async () => {
    const id = await newCustomer(t, p, 'eu-codes');
    expect(errorOf(await api('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' }))).toBe('INVALID_INPUT CODE_EXPIRED');

    expect((await api('POST', `/customers/${id}/verify-email`)).status).toBe(204);
    expect((await api('POST', '/sandbox/clock/advance', { seconds: 601 })).status).toBe(200);
    const expired = await api<{ details: { errors: { field: string }[] } }>('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' });
    expect(errorOf(expired)).toBe('INVALID_INPUT CODE_EXPIRED');
    expect(expired.body.details.errors.map((e) => e.field)).toEqual(['code']);

    // The code was sent to the old number: after a change of number it no longer works.
    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    expect((await api('PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', phoneNumber: '+33698765432' })).status).toBe(200);
    expect(errorOf(await api('POST', `/customers/${id}/verify-phone/confirm`, { code: '123456' }))).toBe('INVALID_INPUT CODE_EXPIRED');

    const noPhone = await newCustomer(t, p, 'eu-no-phone', { phoneNumber: undefined });
    expect(errorOf(await api('POST', `/customers/${noPhone}/verify-phone`))).toBe('CONFLICT CONTACT_MISSING');
    expect(errorOf(await api('POST', `/customers/${noPhone}/verify-phone/confirm`, { code: '123456' }))).toBe('CONFLICT CONTACT_MISSING');
  });

  it('five wrong codes burn the code (even the right one is then refused); a new send starts again', async () => {
    const id = await newCustomer(t, p, 'eu-attempts');
    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    for (let left = 4; left >= 0; left--) {
      const wrong = await api<{ details: { attemptsRemaining: number } }>('POST', `/customers/${id}/verify-phone/confirm`, { code: '654321' });
      expect(errorOf(wrong)).toBe('INVALID_INPUT CODE_INVALID');
      expect(wrong.body.details.attemptsRemaining).toBe(left);
    }
    expect(errorOf(await api('POST', `/customers/${id}/verify-phone/confirm`, { code: '123456' }))).toBe('INVALID_INPUT CODE_ATTEMPTS_EXCEEDED');
    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    expect((await api<CustomerBody>('POST', `/customers/${id}/verify-phone/confirm`, { code: '123456' })).body.contactVerification).toEqual({ email: 'PENDING', phone: 'VERIFIED' });
  });

  it('bad input, unknown and deleted customers, and another platform’s customer', async () => {
    const id = await newCustomer(t, p, 'eu-errors');
    const bad = await api<{ details: { errors: { field: string }[] } }>('POST', `/customers/${id}/verify-email/confirm`, { code: 7, extra: true });
    expect(errorOf(bad)).toBe('INVALID_INPUT');
    expect(bad.body.details.errors.map((e) => e.field).sort()).toEqual(['code', 'extra']);
    expect(errorOf(await api('POST', `/customers/${id}/verify-email/confirm`, {}))).toBe('INVALID_INPUT');

    const unknown = 'Customer:01a20061-044a-7399-9737-e82f3a74e590';
    expect(errorOf(await api('POST', `/customers/${unknown}/verify-email`))).toBe('USER_NOT_FOUND');
    expect(errorOf(await api('POST', `/customers/${unknown}/verify-phone/confirm`, { code: '123456' }))).toBe('USER_NOT_FOUND');

    const other = await t.newPlatform('contact-other');
    expect(errorOf(await api('POST', `/customers/${id}/verify-email`, undefined, other))).toBe('USER_NOT_FOUND');
    expect((await api('POST', `/customers/${id}/verify-email`)).status).toBe(204);
    expect(errorOf(await api('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' }, other))).toBe('USER_NOT_FOUND');
    // The other platform's try did not use the code up.
    expect((await api('POST', `/customers/${id}/verify-email/confirm`, { code: '123456' })).status).toBe(200);

    const removed = await newCustomer(t, p, 'eu-deleted');
    expect((await httpApi(t)(p, 'DELETE', `/customers/${removed}`)).status).toBe(200);
    expect(errorOf(await api('POST', `/customers/${removed}/verify-phone`))).toBe('CUSTOMER_DELETED');
  });

  it('codes are stored hashed, never as sent', async () => {
    const id = await newCustomer(t, p, 'eu-hashed');
    expect((await api('POST', `/customers/${id}/verify-email`)).status).toBe(204);
    const rows = await t.container.db.selectFrom('contact_verifications').selectAll().where('customer_id', '=', id as never).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain('123456');
    expect(rows[0]!.code_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

/** Production: random codes really delivered (a real SMTP server and an HTTP SMS gateway on loopback); the sandbox codes do not work. */
describe('contact verification in production', () => {
  const mails: string[] = [];
  const texts: { to: string; body: string }[] = [];
  let failNextText = false;
  let smtp: SMTPServer;
  let sms: ReturnType<typeof createServer>;
  let t: TestApp;

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
        if (failNextText) {
          failNextText = false;
          res.writeHead(500).end('{}');
          return;
        }
        texts.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; body: string });
        res.writeHead(202).end('{}');
      });
    });
    await new Promise<void>((resolve) => sms.listen(0, '127.0.0.1', resolve));
    t = await createTestApp({
      MONETA_MODE: 'production',
      DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://unused.invalid/none',
      MONETA_ENCRYPTION_KEY: 'c'.repeat(64),
      MONETA_SMTP_URL: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
      MONETA_SMS_URL: `http://127.0.0.1:${(sms.address() as AddressInfo).port}/messages`,
      MONETA_SMS_TOKEN: 'sms-token',
      MONETA_OUTBOUND_ALLOW: '127.0.0.1/32',
    }, { listen: true });
  });
  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
    await new Promise<void>((resolve) => sms?.close(() => resolve()));
  });

  it('emails and texts a random code; the sandbox codes are refused; the real ones verify, once', async () => {
    const p = t.platform;
    const api = <T = unknown>(method: 'POST', path: string, body?: unknown) => httpApi(t)<T>(p, method, path, body);
    const id = await newCustomer(t, p, 'prod-eu', { email: 'prod.claire@example.fr' });

    expect((await api('POST', `/customers/${id}/verify-email`)).status).toBe(204);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('prod.claire@example.fr');
    const emailCode = mails[0]!.replace(/=\r?\n/g, '').match(/^\s*([0-9]{6})\s*$/m)?.[1];
    expect(emailCode).toBeDefined();
    for (const sandboxCode of ['123456', '000000'].filter((c) => c !== emailCode)) {
      expect(errorOf(await api('POST', `/customers/${id}/verify-email/confirm`, { code: sandboxCode }))).toBe('INVALID_INPUT CODE_INVALID');
    }
    const verified = await api<CustomerBody>('POST', `/customers/${id}/verify-email/confirm`, { code: emailCode });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'PENDING' });
    expect(errorOf(await api('POST', `/customers/${id}/verify-email/confirm`, { code: emailCode }))).toBe('CONFLICT CONTACT_ALREADY_VERIFIED');

    // A resend replaces the code: the first one no longer works.
    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    expect((await api('POST', `/customers/${id}/verify-phone`)).status).toBe(204);
    expect(texts.map((m) => m.to)).toEqual(['+33612345678', '+33612345678']);
    const [first, second] = texts.map((m) => m.body.match(/\b([0-9]{6})\b/)?.[1]);
    expect(second).toBeDefined();
    if (first !== second) expect(errorOf(await api('POST', `/customers/${id}/verify-phone/confirm`, { code: first }))).toBe('INVALID_INPUT CODE_INVALID');
    const both = await api<CustomerBody>('POST', `/customers/${id}/verify-phone/confirm`, { code: second });
    expect(both.body.contactVerification).toEqual({ email: 'VERIFIED', phone: 'VERIFIED' });
  });

  it('a code the SMS gateway did not take is withdrawn: 503, and no code is live', async () => {
    const p = t.platform;
    const id = await newCustomer(t, p, 'prod-eu-down', { email: 'down@example.fr', phoneNumber: '+33611112222' });
    failNextText = true;
    const refused = await httpApi(t)(p, 'POST', `/customers/${id}/verify-phone`);
    expect(errorOf(refused)).toBe('SERVICE_UNAVAILABLE CODE_DELIVERY_FAILED');
    expect(texts.filter((m) => m.to === '+33611112222')).toHaveLength(0);
    const rows = await t.container.db.selectFrom('contact_verifications').selectAll().where('customer_id', '=', id as never).execute();
    expect(rows.map((r) => r.code_hash)).toEqual([null]);
    expect(errorOf(await httpApi(t)(p, 'POST', `/customers/${id}/verify-phone/confirm`, { code: '123456' }))).toBe('INVALID_INPUT CODE_EXPIRED');
  });
});
