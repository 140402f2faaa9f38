import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWebhookEvent, verifyWebhookSignature, WebhookVerificationError, type WebhookVerificationErrorCode } from './index.js';

function p256(): { privateKey: KeyObject; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const signer = p256();
const other = p256();

/** The DER signature, base64, as the server computes it. */
const signB64 = (body: string | Uint8Array, privateKey: KeyObject = signer.privateKey) =>
  sign('sha256', typeof body === 'string' ? Buffer.from(body, 'utf8') : body, privateKey).toString('base64');

/** The three header forms the reference and the SDKs use. */
const headerForms = (b64: string) => ({
  plain: b64,
  short: JSON.stringify({ v: '1', s: b64 }),
  long: JSON.stringify({ version: 1, signature: b64 }),
});

const envelope = {
  id: 'Webhook:0192d3f0-1a2b-7c3d-8e4f-a0b1c2d3e4f5',
  type: 'CUSTOMER.KYC_APPROVED',
  timestamp: '2025-10-13T12:00:00.000Z',
  data: { id: 'Customer:0192d3f0-0000-7000-8000-000000000001', kycStatus: 'APPROVED', amount: 12345 },
};
const body = JSON.stringify(envelope);

describe('verifyWebhookSignature', () => {
  it.each(Object.entries(headerForms(signB64(body))))('accepts the %s header form', (_form, signatureHeader) => {
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(true);
    expect(verifyWebhookSignature({ rawBody: Buffer.from(body), signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(true);
    expect(verifyWebhookSignature({ rawBody: new TextEncoder().encode(body), signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(true);
  });

  it('accepts the JSON forms with the version as a string or a number, padding omitted, and surrounding spaces', () => {
    const b64 = signB64(body);
    for (const signatureHeader of [
      JSON.stringify({ v: 1, s: b64 }),
      JSON.stringify({ version: '1', signature: b64 }),
      ` ${b64} `,
      b64.replace(/=+$/, ''),
      ` {"v": "1", "s": "${b64}"} `,
    ]) {
      expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: signer.publicKeyPem }), signatureHeader).toBe(true);
    }
  });

  it.each(Object.entries(headerForms(signB64(body))))('refuses a body changed by one byte (%s form)', (_form, signatureHeader) => {
    const bytes = Buffer.from(body);
    for (const index of [0, 1, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[index] = changed[index]! ^ 0x01;
      expect(verifyWebhookSignature({ rawBody: changed, signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
    }
    expect(verifyWebhookSignature({ rawBody: body.replace('12345', '12346'), signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
    expect(verifyWebhookSignature({ rawBody: `${body} `, signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
    expect(verifyWebhookSignature({ rawBody: body.slice(0, -1), signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
    // Parsed and re-serialized with different spacing: same JSON value, different bytes.
    expect(verifyWebhookSignature({ rawBody: JSON.stringify(envelope, null, 2), signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
  });

  it('refuses a signature by another key, and keys that are not P-256 public keys', () => {
    const signatureHeader = signB64(body);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: other.publicKeyPem })).toBe(false);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader: signB64(body, other.privateKey), publicKeyPem: signer.publicKeyPem })).toBe(false);

    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ed25519 = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const truncated = signer.publicKeyPem.slice(0, 60);
    for (const publicKeyPem of [p384, ed25519, rsa, truncated, '', 'not a key', signer.publicKeyPem.replace(/[A-Z]/, 'z')]) {
      expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem })).toBe(false);
    }
  });

  it('accepts any of several keys (rotation) and refuses when none matches', () => {
    const signatureHeader = signB64(body);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: [other.publicKeyPem, signer.publicKeyPem] })).toBe(true);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: ['garbage', signer.publicKeyPem] })).toBe(true);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: [other.publicKeyPem] })).toBe(false);
    expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: [] })).toBe(false);
  });

  it('returns false, never throws, for garbage headers', () => {
    const b64 = signB64(body);
    const raw = Buffer.from(b64, 'base64');
    const garbage: unknown[] = [
      '',
      '   ',
      'abc',
      '!!!!',
      'a',
      `${b64}x`,
      `${b64}==`,
      b64.replace(/[A-Za-z0-9]/, '*'),
      raw.toString('hex'),
      Buffer.from(raw.subarray(0, raw.length - 1)).toString('base64'), // truncated DER
      Buffer.alloc(64, 1).toString('base64'), // raw r||s, not DER
      Buffer.alloc(4096, 0x30).toString('base64'), // far too long
      JSON.stringify({ v: '2', s: b64 }),
      JSON.stringify({ s: b64 }),
      JSON.stringify({ version: 2, signature: b64 }),
      JSON.stringify({ signature: b64 }),
      JSON.stringify({ v: '1', s: 42 }),
      JSON.stringify({ v: '1', s: null }),
      JSON.stringify({ v: '1', s: '' }),
      JSON.stringify({ v: '1', s: 'not base64!' }),
      JSON.stringify({ version: 1, signature: [b64] }),
      JSON.stringify([b64]),
      JSON.stringify(b64),
      '{"v":"1","s":',
      '{',
      'null',
      '{}',
      `t=123,v1=${b64}`,
      undefined,
      null,
      42,
      {},
      [b64],
      Buffer.from(b64),
    ];
    for (const signatureHeader of garbage) {
      expect(
        verifyWebhookSignature({ rawBody: body, signatureHeader: signatureHeader as string, publicKeyPem: signer.publicKeyPem }),
        String(signatureHeader),
      ).toBe(false);
    }
  });

  it('returns false, never throws, for bodies and keys of the wrong type', () => {
    const signatureHeader = signB64(body);
    for (const rawBody of [undefined, null, 42, {}, envelope, [1, 2]]) {
      expect(verifyWebhookSignature({ rawBody: rawBody as string, signatureHeader, publicKeyPem: signer.publicKeyPem })).toBe(false);
    }
    for (const publicKeyPem of [undefined, null, 42, {}, [42]]) {
      expect(verifyWebhookSignature({ rawBody: body, signatureHeader, publicKeyPem: publicKeyPem as string })).toBe(false);
    }
    expect(verifyWebhookSignature(undefined as never)).toBe(false);
  });

  it('property: any body signed verifies, in every header form, as bytes or text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        const forms = headerForms(signB64(bytes));
        for (const signatureHeader of Object.values(forms)) {
          if (!verifyWebhookSignature({ rawBody: bytes, signatureHeader, publicKeyPem: signer.publicKeyPem })) return false;
        }
        return true;
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) =>
        verifyWebhookSignature({ rawBody: text, signatureHeader: signB64(text), publicKeyPem: signer.publicKeyPem }),
      ),
    );
  });

  it('property: any change to a signed body (flip, insert, delete) fails verification', () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), mask: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 2048 }), mutation, (bytes, change) => {
        const signatureHeader = signB64(bytes);
        const at = change.at % bytes.length;
        let mutated: Buffer;
        if (change.kind === 'flip') {
          mutated = Buffer.from(bytes);
          mutated[at] = mutated[at]! ^ change.mask;
        } else if (change.kind === 'insert') {
          mutated = Buffer.concat([bytes.subarray(0, at), Buffer.of(change.byte), bytes.subarray(at)]);
        } else {
          mutated = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
        }
        return !verifyWebhookSignature({ rawBody: mutated, signatureHeader, publicKeyPem: signer.publicKeyPem });
      }),
    );
  });
});

describe('parseWebhookEvent', () => {
  const now = Date.UTC(2025, 9, 13, 12, 0, 30);
  const nowSeconds = Math.floor(now / 1000);
  const headersFor = (rawBody: string | Uint8Array, timestamp: number | string = nowSeconds) => ({
    'x-service-signature': signB64(rawBody),
    'webhook-id': envelope.id,
    'webhook-timestamp': String(timestamp),
  });

  const failure = (run: () => unknown): WebhookVerificationError => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return error as WebhookVerificationError;
    }
    throw new Error('expected a WebhookVerificationError');
  };
  const expectCode = (run: () => unknown, code: WebhookVerificationErrorCode) => {
    const error = failure(run);
    expect(error.code).toBe(code);
    expect(error.name).toBe('WebhookVerificationError');
    expect(error.message.length).toBeGreaterThan(10);
  };

  it('returns the envelope of a verified, fresh delivery', () => {
    const event = parseWebhookEvent({ rawBody: body, headers: headersFor(body), publicKeyPem: signer.publicKeyPem, now });
    expect(event).toEqual(envelope);
    const fromBytes = parseWebhookEvent<{ kycStatus: string }>({
      rawBody: Buffer.from(body),
      headers: headersFor(body),
      publicKeyPem: signer.publicKeyPem,
      now,
    });
    expect(fromBytes.data.kycStatus).toBe('APPROVED');
  });

  it('finds headers whatever their case, in a plain object, node:http style arrays or a fetch Headers', () => {
    const h = headersFor(body);
    const mixedCase = { 'X-Service-Signature': h['x-service-signature'], 'WEBHOOK-TIMESTAMP': h['webhook-timestamp'], 'Webhook-Id': h['webhook-id'] };
    expect(parseWebhookEvent({ rawBody: body, headers: mixedCase, publicKeyPem: signer.publicKeyPem, now }).id).toBe(envelope.id);
    const arrays = { 'x-service-signature': [h['x-service-signature']], 'webhook-timestamp': [h['webhook-timestamp']] };
    expect(parseWebhookEvent({ rawBody: body, headers: arrays, publicKeyPem: signer.publicKeyPem, now }).id).toBe(envelope.id);
    const fetchHeaders = new Headers({ 'X-Service-Signature': JSON.stringify({ v: '1', s: h['x-service-signature'] }), 'Webhook-Timestamp': h['webhook-timestamp'] });
    expect(parseWebhookEvent({ rawBody: body, headers: fetchHeaders, publicKeyPem: signer.publicKeyPem, now }).id).toBe(envelope.id);
  });

  it('uses the real clock and a 300 s tolerance by default', () => {
    const fresh = Math.floor(Date.now() / 1000);
    expect(parseWebhookEvent({ rawBody: body, headers: headersFor(body, fresh), publicKeyPem: signer.publicKeyPem }).id).toBe(envelope.id);
    expectCode(() => parseWebhookEvent({ rawBody: body, headers: headersFor(body, fresh - 3600), publicKeyPem: signer.publicKeyPem }), 'TIMESTAMP_OUT_OF_TOLERANCE');
  });

  it('refuses an old or future timestamp, and accepts one just within the tolerance', () => {
    const parse = (timestamp: number, toleranceSeconds?: number) =>
      parseWebhookEvent({ rawBody: body, headers: headersFor(body, timestamp), publicKeyPem: signer.publicKeyPem, now, toleranceSeconds });
    expect(parse(nowSeconds - 300).id).toBe(envelope.id);
    expect(parse(nowSeconds + 300).id).toBe(envelope.id);
    expectCode(() => parse(nowSeconds - 301), 'TIMESTAMP_OUT_OF_TOLERANCE');
    expectCode(() => parse(nowSeconds + 301), 'TIMESTAMP_OUT_OF_TOLERANCE');
    expectCode(() => parse(nowSeconds - 86_400), 'TIMESTAMP_OUT_OF_TOLERANCE');
    expectCode(() => parse(now), 'TIMESTAMP_OUT_OF_TOLERANCE'); // milliseconds by mistake
    expect(parse(nowSeconds - 3599, 3600).id).toBe(envelope.id);
    expectCode(() => parse(nowSeconds - 11, 10), 'TIMESTAMP_OUT_OF_TOLERANCE');
    expect(failure(() => parse(nowSeconds - 301)).message).toMatch(/301 s .*300 s/);
  });

  it('refuses missing, repeated or malformed headers', () => {
    const h = headersFor(body);
    const run = (headers: Record<string, string | string[] | undefined>) => () =>
      parseWebhookEvent({ rawBody: body, headers, publicKeyPem: signer.publicKeyPem, now });
    expectCode(run({ 'webhook-timestamp': h['webhook-timestamp'] }), 'MISSING_SIGNATURE');
    expectCode(run({ 'x-service-signature': undefined, 'webhook-timestamp': h['webhook-timestamp'] }), 'MISSING_SIGNATURE');
    expectCode(run({ ...h, 'X-Service-Signature': h['x-service-signature'] }), 'MISSING_SIGNATURE');
    expectCode(run({ ...h, 'x-service-signature': [h['x-service-signature'], h['x-service-signature']] }), 'MISSING_SIGNATURE');
    expectCode(run({ ...h, 'x-service-signature': 'garbage' }), 'INVALID_SIGNATURE');
    expectCode(run({ ...h, 'x-service-signature': signB64(body, other.privateKey) }), 'INVALID_SIGNATURE');
    expectCode(run({ 'x-service-signature': h['x-service-signature'] }), 'MISSING_TIMESTAMP');
    for (const timestamp of ['', 'yesterday', '1.5e9', '-1', '0x6700', `${nowSeconds}.5`, '2025-10-13T12:00:30Z']) {
      expectCode(run({ ...h, 'webhook-timestamp': timestamp }), 'INVALID_TIMESTAMP');
    }
    expectCode(() => parseWebhookEvent({ rawBody: body, headers: headersFor(body), publicKeyPem: other.publicKeyPem, now }), 'INVALID_SIGNATURE');
  });

  it('during a key rotation, also accepts X-Service-Signature-Previous by the retiring key', () => {
    const headers = { ...headersFor(body), 'x-service-signature': signB64(body, other.privateKey), 'x-service-signature-previous': signB64(body) };
    expect(parseWebhookEvent({ rawBody: body, headers, publicKeyPem: signer.publicKeyPem, now }).id).toBe(envelope.id);
    expect(parseWebhookEvent({ rawBody: body, headers, publicKeyPem: other.publicKeyPem, now }).id).toBe(envelope.id);
    const third = p256();
    expectCode(() => parseWebhookEvent({ rawBody: body, headers, publicKeyPem: third.publicKeyPem, now }), 'INVALID_SIGNATURE');
    const { 'x-service-signature': _primary, ...previousOnly } = headers;
    expectCode(() => parseWebhookEvent({ rawBody: body, headers: previousOnly, publicKeyPem: signer.publicKeyPem, now }), 'MISSING_SIGNATURE');
  });

  it('refuses a changed body even with fresh headers', () => {
    const headers = headersFor(body);
    expectCode(() => parseWebhookEvent({ rawBody: body.replace('APPROVED', 'REJECTED'), headers, publicKeyPem: signer.publicKeyPem, now }), 'INVALID_SIGNATURE');
  });

  it('refuses a correctly signed body that is not an event envelope', () => {
    for (const rawBody of ['not json', '[1,2]', 'null', '"text"', '{"id":"x","type":"T","timestamp":"t"}', '{"id":1,"type":"T","timestamp":"t","data":{}}']) {
      expectCode(() => parseWebhookEvent({ rawBody, headers: headersFor(rawBody), publicKeyPem: signer.publicKeyPem, now }), 'INVALID_PAYLOAD');
    }
    const nullData = JSON.stringify({ ...envelope, data: null });
    expect(parseWebhookEvent({ rawBody: nullData, headers: headersFor(nullData), publicKeyPem: signer.publicKeyPem, now }).data).toBeNull();
  });

  it('refuses a nonsensical tolerance or clock as a programming error', () => {
    expect(() => parseWebhookEvent({ rawBody: body, headers: headersFor(body), publicKeyPem: signer.publicKeyPem, now, toleranceSeconds: -1 })).toThrow(RangeError);
    expect(() => parseWebhookEvent({ rawBody: body, headers: headersFor(body), publicKeyPem: signer.publicKeyPem, now: Number.NaN })).toThrow(RangeError);
  });
});
