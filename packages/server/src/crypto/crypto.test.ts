import { createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { base58check } from './base58check.js';
import { BundleError, bundleSigningPublicKey, createOtpTarget, openOtpBundle, sealExportBundle, signBundle } from './bundles.js';
import { TURNKEY_HPKE_INFO, hpkeOpen, hpkeSeal } from './hpke.js';
import {
  InvalidKeyError,
  compressPublicKey,
  generateP256,
  isUncompressedPublicKeyHex,
  privateKeyObject,
  publicKeyFromScalar,
  publicKeyObject,
  signDer,
  uncompressPublicKey,
  verifyDer,
} from './p256.js';
import { passkeyChallenge, webauthnExpectedChallenge } from './passkey-challenge.js';
import { openSessionKey, sealSessionKey } from './session-key.js';
import { STAMP_SCHEME, type Stamp, createStamp, isDerEcdsaSignature, parseStamp, verifyStampSignature } from './stamp.js';
import { signVerificationToken, verifyVerificationToken } from './verification-token.js';

const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const b64u = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
const stampValue = (obj: unknown): string => b64u(JSON.stringify(obj));
const big = (bytes: Buffer): bigint => BigInt(`0x${bytes.toString('hex') || '0'}`);
const intBytes = (value: bigint): Buffer => {
  let hex = value.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  return (bytes[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
};
const derOf = (r: bigint, s: bigint): string => {
  const rb = intBytes(r);
  const sb = intBytes(s);
  const body = Buffer.concat([Buffer.from([0x02, rb.length]), rb, Buffer.from([0x02, sb.length]), sb]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString('hex');
};
const derParts = (hex: string): { r: bigint; s: bigint } => {
  const der = Buffer.from(hex, 'hex');
  const rLen = der[3] ?? 0;
  const r = der.subarray(4, 4 + rLen);
  const s = der.subarray(6 + rLen);
  return { r: big(r), s: big(s) };
};
const OFF_CURVE_UNCOMPRESSED = `04${'11'.repeat(64)}`;
const NO_SQRT_COMPRESSED = `02${'ff'.repeat(32)}`; // x >= p

describe('p256', () => {
  it('generates a key pair whose forms agree', () => {
    const kp = generateP256();
    expect(kp.privateKey).toHaveLength(32);
    expect(kp.publicKeyCompressed).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(kp.publicKeyUncompressed).toMatch(/^04[0-9a-f]{128}$/);
    expect(publicKeyFromScalar(kp.privateKey, true).toString('hex')).toBe(kp.publicKeyCompressed);
    expect(publicKeyFromScalar(kp.privateKey, false).toString('hex')).toBe(kp.publicKeyUncompressed);
    expect(compressPublicKey(kp.publicKeyUncompressed).toString('hex')).toBe(kp.publicKeyCompressed);
    expect(uncompressPublicKey(kp.publicKeyCompressed).toString('hex')).toBe(kp.publicKeyUncompressed);
    expect(uncompressPublicKey(Buffer.from(kp.publicKeyCompressed, 'hex'))).toHaveLength(65);
    expect(compressPublicKey(kp.publicKeyUncompressed.toUpperCase())).toHaveLength(33);
    expect(compressPublicKey(kp.publicKeyCompressed).toString('hex')).toBe(kp.publicKeyCompressed);
  });

  it('rejects malformed public keys with InvalidKeyError', () => {
    const kp = generateP256();
    const bad: (string | Uint8Array)[] = [
      '',
      'zz',
      kp.publicKeyCompressed.slice(1), // odd length
      kp.publicKeyCompressed.slice(0, 64),
      `${kp.publicKeyUncompressed}00`,
      `06${kp.publicKeyUncompressed.slice(2)}`, // hybrid form
      `04${kp.publicKeyCompressed.slice(2)}`, // 33 bytes with the uncompressed prefix
      `05${kp.publicKeyCompressed.slice(2)}`,
      '00',
      OFF_CURVE_UNCOMPRESSED,
      NO_SQRT_COMPRESSED,
      `${kp.publicKeyCompressed.slice(0, 64)}gg`,
      new Uint8Array(65),
    ];
    for (const key of bad) {
      expect(() => compressPublicKey(key), String(key)).toThrow(InvalidKeyError);
      expect(() => uncompressPublicKey(key), String(key)).toThrow(InvalidKeyError);
    }
  });

  it('isUncompressedPublicKeyHex needs the pattern and a point on the curve', () => {
    const kp = generateP256();
    expect(isUncompressedPublicKeyHex(kp.publicKeyUncompressed)).toBe(true);
    expect(isUncompressedPublicKeyHex(kp.publicKeyUncompressed.toUpperCase().replace(/^04/, '04'))).toBe(true);
    expect(isUncompressedPublicKeyHex(kp.publicKeyCompressed)).toBe(false);
    expect(isUncompressedPublicKeyHex(OFF_CURVE_UNCOMPRESSED)).toBe(false);
    expect(isUncompressedPublicKeyHex(`${kp.publicKeyUncompressed}00`)).toBe(false);
    expect(isUncompressedPublicKeyHex(` ${kp.publicKeyUncompressed}`)).toBe(false);
  });

  it('rejects scalars out of range', () => {
    expect(() => publicKeyFromScalar(new Uint8Array(32), true)).toThrow(InvalidKeyError);
    expect(() => publicKeyFromScalar(Buffer.from(N.toString(16), 'hex'), true)).toThrow(InvalidKeyError);
    expect(() => publicKeyFromScalar(new Uint8Array(31).fill(1), true)).toThrow(InvalidKeyError);
    expect(() => privateKeyObject('xy')).toThrow(InvalidKeyError);
    // n - 1 is the largest valid scalar
    expect(publicKeyFromScalar(Buffer.from((N - 1n).toString(16), 'hex'), true)).toHaveLength(33);
  });

  it('signs and verifies with every key form', () => {
    const kp = generateP256();
    const message = 'héllo ✓ {"a":1}';
    const byScalar = signDer(kp.privateKey, message);
    const byKeyObject = signDer(privateKeyObject(kp.privateKey), message);
    const byHex = signDer(kp.privateKey.toString('hex'), Buffer.from(message, 'utf8'));
    for (const sig of [byScalar, byKeyObject, byHex]) {
      expect(sig).toMatch(/^30[0-9a-f]+$/);
      expect(isDerEcdsaSignature(Buffer.from(sig, 'hex'))).toBe(true);
      for (const pub of [
        kp.publicKeyCompressed,
        kp.publicKeyUncompressed,
        Buffer.from(kp.publicKeyCompressed, 'hex'),
        publicKeyObject(kp.publicKeyUncompressed),
        privateKeyObject(kp.privateKey),
      ]) {
        expect(verifyDer(pub, message, sig)).toBe(true);
        expect(verifyDer(pub, Buffer.from(message, 'utf8'), sig)).toBe(true);
        expect(verifyDer(pub, `${message} `, sig)).toBe(false);
      }
    }
  });

  it('verifyDer is false, never throwing, on garbage', () => {
    const kp = generateP256();
    const other = generateP256();
    const sig = signDer(kp.privateKey, 'm');
    expect(verifyDer(other.publicKeyCompressed, 'm', sig)).toBe(false);
    for (const garbage of ['', 'zz', '30', '3000', sig.slice(1), `${sig}00`, randomBytes(70).toString('hex'), sig.toUpperCase().replace('3', 'G')]) {
      expect(verifyDer(kp.publicKeyCompressed, 'm', garbage)).toBe(false);
    }
    expect(verifyDer('not a key', 'm', sig)).toBe(false);
    expect(verifyDer(OFF_CURVE_UNCOMPRESSED, 'm', sig)).toBe(false);
    expect(verifyDer(kp.publicKeyCompressed, 'm', undefined as unknown as string)).toBe(false);
    expect(verifyDer(kp.publicKeyCompressed, undefined as unknown as string, sig)).toBe(false);
    // non-canonical DER of a valid signature: long-form length
    const der = Buffer.from(sig, 'hex');
    const longForm = Buffer.concat([Buffer.from([0x30, 0x81, der[1] ?? 0]), der.subarray(2)]).toString('hex');
    expect(verifyDer(kp.publicKeyCompressed, 'm', longForm)).toBe(false);
  });

  it('accepts high-S signatures', () => {
    const kp = generateP256();
    const message = 'high-S';
    let highS: string | undefined;
    for (let i = 0; i < 200 && !highS; i++) {
      const sig = signDer(kp.privateKey, message);
      if (derParts(sig).s > N / 2n) highS = sig;
    }
    expect(highS).toBeDefined();
    const sig = highS ?? '';
    expect(verifyDer(kp.publicKeyCompressed, message, sig)).toBe(true);
    const { r, s } = derParts(sig);
    const lowTwin = derOf(r, N - s);
    expect(verifyDer(kp.publicKeyCompressed, message, lowTwin)).toBe(true);
    const stamp: Stamp = { publicKey: kp.publicKeyCompressed, scheme: STAMP_SCHEME, signature: sig };
    expect(parseStamp(stampValue(stamp))).toEqual(stamp);
    expect(verifyStampSignature(stamp, message)).toBe(true);
  });

  it('refuses non-P-256 and public keys for signing', () => {
    const { privateKey: k1 } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => signDer(k1, 'm')).toThrow(InvalidKeyError);
    const kp = generateP256();
    expect(() => signDer(publicKeyObject(kp.publicKeyCompressed), 'm')).toThrow(InvalidKeyError);
  });
});

describe('hpke', () => {
  it('uses info "turnkey_hpke"', () => {
    expect(Buffer.from(TURNKEY_HPKE_INFO).toString('hex')).toBe('7475726e6b65795f68706b65');
  });

  it('round-trips and binds the recipient key in the AAD', async () => {
    const r = generateP256();
    const pkR = Buffer.from(r.publicKeyUncompressed, 'hex');
    const pt = randomBytes(32);
    const { enc, ciphertext } = await hpkeSeal(pkR, pt);
    expect(enc).toHaveLength(65);
    expect(enc[0]).toBe(0x04);
    expect(ciphertext).toHaveLength(48);
    expect(Buffer.from(await hpkeOpen(r.privateKey, pkR, enc, ciphertext))).toEqual(pt);

    const tampered = Uint8Array.from(ciphertext);
    tampered[0] = (tampered[0] ?? 0) ^ 1;
    await expect(hpkeOpen(r.privateKey, pkR, enc, tampered)).rejects.toThrow();
    const wrongAadKey = Buffer.from(generateP256().publicKeyUncompressed, 'hex');
    await expect(hpkeOpen(r.privateKey, wrongAadKey, enc, ciphertext)).rejects.toThrow();
    await expect(hpkeOpen(generateP256().privateKey, pkR, enc, ciphertext)).rejects.toThrow();
    await expect(hpkeSeal(compressPublicKey(pkR), pt)).rejects.toThrow(RangeError);
    await expect(hpkeSeal(Buffer.from(OFF_CURVE_UNCOMPRESSED, 'hex'), pt)).rejects.toThrow();
  });
});

describe('base58check', () => {
  it('matches the Bitcoin wiki address vector', () => {
    const payload = Buffer.from('00010966776006953d5567439e5e39f86a0d273bee', 'hex');
    expect(base58check.encode(payload)).toBe('16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM');
    expect(Buffer.from(base58check.decode('16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM'))).toEqual(payload);
  });

  it('uses a double SHA-256 checksum and rejects a bad one', () => {
    const payload = randomBytes(81);
    const sha = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();
    const encoded = base58check.encode(payload);
    expect(encoded).toBe(base58.encode(Buffer.concat([payload, sha(sha(payload)).subarray(0, 4)])));
    expect(Buffer.from(base58check.decode(encoded))).toEqual(payload);
    const single = base58.encode(Buffer.concat([payload, sha(payload).subarray(0, 4)]));
    expect(() => base58check.decode(single)).toThrow();
  });
});

describe('stamp', () => {
  const kp = generateP256();
  const payload = JSON.stringify({ requestId: 'Request:1', note: 'héllo ✓' });

  it('creates, parses and verifies a stamp', () => {
    const header = createStamp(kp.privateKey, payload);
    expect(header).not.toMatch(/[=+/]/);
    const decoded = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(decoded)).toEqual(['publicKey', 'scheme', 'signature']);
    const stamp = parseStamp(header);
    expect(stamp).toBeDefined();
    expect(stamp?.publicKey).toBe(kp.publicKeyCompressed);
    expect(stamp?.scheme).toBe(STAMP_SCHEME);
    expect(verifyStampSignature(stamp as Stamp, payload)).toBe(true);
    expect(verifyStampSignature(stamp as Stamp, `${payload} `)).toBe(false);
    expect(verifyStampSignature(stamp as Stamp, payload.replace('é', 'e'))).toBe(false);
  });

  it('accepts padding and normalises hex to lowercase', () => {
    const signature = signDer(kp.privateKey, payload);
    const upper = { publicKey: kp.publicKeyCompressed.toUpperCase(), scheme: STAMP_SCHEME, signature: signature.toUpperCase() };
    let header = stampValue(upper);
    while (header.length % 4) header += '=';
    const stamp = parseStamp(header);
    expect(stamp).toEqual({ publicKey: kp.publicKeyCompressed, scheme: STAMP_SCHEME, signature });
    expect(verifyStampSignature(stamp as Stamp, payload)).toBe(true);
    expect(parseStamp(`${header}====`)).toBeUndefined();
  });

  it('returns undefined for malformed stamps of every kind', () => {
    const signature = signDer(kp.privateKey, payload);
    const good = { publicKey: kp.publicKeyCompressed, scheme: STAMP_SCHEME, signature };
    const der = Buffer.from(signature, 'hex');
    const { r, s } = derParts(signature);
    const rb = intBytes(r);
    const nonMinimal = (() => {
      const padded = Buffer.concat([Buffer.from([0]), rb]);
      const sb = intBytes(s);
      const body = Buffer.concat([Buffer.from([0x02, padded.length]), padded, Buffer.from([0x02, sb.length]), sb]);
      return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString('hex');
    })();
    const cases: [string, string][] = [
      ['empty', ''],
      ['not base64url', '!!!!'],
      ['base64 alphabet', '+/+/'],
      ['impossible length', 'abcde'],
      ['bad padding', `${stampValue(good)}====`],
      ['not UTF-8', Buffer.from([0xff, 0xfe, 0x7b, 0x7d]).toString('base64url')],
      ['not JSON', b64u('hello')],
      ['JSON null', b64u('null')],
      ['JSON array', b64u(JSON.stringify([good.publicKey, good.scheme, good.signature]))],
      ['JSON string', b64u(JSON.stringify('x'))],
      ['missing publicKey', stampValue({ scheme: good.scheme, signature })],
      ['missing scheme', stampValue({ publicKey: good.publicKey, signature })],
      ['missing signature', stampValue({ publicKey: good.publicKey, scheme: good.scheme })],
      ['numeric signature', stampValue({ ...good, signature: 12 })],
      ['wrong scheme', stampValue({ ...good, scheme: 'SIGNATURE_SCHEME_TK_API_SECP256K1' })],
      ['lowercase scheme', stampValue({ ...good, scheme: STAMP_SCHEME.toLowerCase() })],
      ['uncompressed publicKey', stampValue({ ...good, publicKey: kp.publicKeyUncompressed })],
      ['short publicKey', stampValue({ ...good, publicKey: kp.publicKeyCompressed.slice(0, 64) })],
      ['publicKey not hex', stampValue({ ...good, publicKey: `02${'zz'.repeat(32)}` })],
      ['publicKey off curve', stampValue({ ...good, publicKey: NO_SQRT_COMPRESSED })],
      ['publicKey with 0x', stampValue({ ...good, publicKey: `0x${kp.publicKeyCompressed}` })],
      ['empty signature', stampValue({ ...good, signature: '' })],
      ['signature not hex', stampValue({ ...good, signature: `${signature.slice(0, -2)}zz` })],
      ['signature odd length', stampValue({ ...good, signature: signature.slice(1) })],
      ['signature raw r||s', stampValue({ ...good, signature: randomBytes(64).toString('hex') })],
      ['signature trailing byte', stampValue({ ...good, signature: `${signature}00` })],
      ['signature wrong outer length', stampValue({ ...good, signature: `30${((der[1] ?? 0) + 1).toString(16)}${signature.slice(4)}` })],
      ['signature non-minimal r', stampValue({ ...good, signature: nonMinimal })],
      ['signature r = 0', stampValue({ ...good, signature: derOf(0n, s) })],
      ['signature s = n', stampValue({ ...good, signature: derOf(r, N) })],
      ['signature negative r', stampValue({ ...good, signature: `3006020180020101` })],
    ];
    for (const [name, header] of cases) expect(parseStamp(header), name).toBeUndefined();
    expect(parseStamp(undefined as unknown as string)).toBeUndefined();
  });

  it('rejects a valid stamp by another key, and never throws on a bogus stamp object', () => {
    const other = generateP256();
    const forged = { publicKey: other.publicKeyCompressed, scheme: STAMP_SCHEME, signature: signDer(kp.privateKey, payload) };
    const stamp = parseStamp(stampValue(forged));
    expect(stamp).toBeDefined();
    expect(verifyStampSignature(stamp as Stamp, payload)).toBe(false);
    expect(verifyStampSignature({ publicKey: 'x', scheme: STAMP_SCHEME, signature: 'y' }, payload)).toBe(false);
    expect(verifyStampSignature(null as unknown as Stamp, payload)).toBe(false);
  });
});

describe('session key', () => {
  it('seals a fresh scalar to the client key and opens it again', async () => {
    const client = generateP256();
    const sealed = await sealSessionKey(client.publicKeyUncompressed);
    expect(sealed.scalar).toHaveLength(32);
    expect(sealed.sessionPublicKey).toBe(publicKeyFromScalar(sealed.scalar, true).toString('hex'));
    const raw = Buffer.from(base58check.decode(sealed.encryptedSessionSigningKey));
    expect(raw).toHaveLength(81);
    expect([0x02, 0x03]).toContain(raw[0]);
    expect(await openSessionKey(sealed.encryptedSessionSigningKey, client.privateKey.toString('hex'))).toBe(sealed.scalar.toString('hex'));
    const again = await sealSessionKey(client.publicKeyUncompressed);
    expect(again.scalar.equals(sealed.scalar)).toBe(false);
  });

  it('refuses bad client keys and wrong recipients', async () => {
    const client = generateP256();
    await expect(sealSessionKey(client.publicKeyCompressed)).rejects.toThrow(InvalidKeyError);
    await expect(sealSessionKey(OFF_CURVE_UNCOMPRESSED)).rejects.toThrow(InvalidKeyError);
    const sealed = await sealSessionKey(client.publicKeyUncompressed);
    await expect(openSessionKey(sealed.encryptedSessionSigningKey, generateP256().privateKey.toString('hex'))).rejects.toThrow();
    // One character changed (to another: a key ending in '1' already, 1 in 58, was once left as it was).
    const tampered = `${sealed.encryptedSessionSigningKey.slice(0, -1)}${sealed.encryptedSessionSigningKey.endsWith('1') ? '2' : '1'}`;
    await expect(openSessionKey(tampered, client.privateKey.toString('hex'))).rejects.toThrow();
    await expect(openSessionKey(base58check.encode(randomBytes(33)), client.privateKey.toString('hex'))).rejects.toThrow(RangeError);
  });
});

describe('bundles', () => {
  const signingKey = createPrivateKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }));
  const signer = bundleSigningPublicKey(signingKey);

  it('signs the data bytes and publishes lowercase uncompressed hex', () => {
    expect(signer).toMatch(/^04[0-9a-f]{128}$/);
    expect(bundleSigningPublicKey(publicKeyObject(signer))).toBe(signer);
    const bundle = JSON.parse(signBundle({ targetPublic: 'x', n: 'é' }, signingKey)) as Record<string, string>;
    expect(Object.keys(bundle)).toEqual(['version', 'data', 'dataSignature', 'enclaveQuorumPublic']);
    expect(bundle.version).toBe('v1.0.0');
    expect(bundle.enclaveQuorumPublic).toBe(signer);
    const data = Buffer.from(bundle.data ?? '', 'hex');
    expect(JSON.parse(data.toString('utf8'))).toEqual({ targetPublic: 'x', n: 'é' });
    expect(verifyDer(signer, data, bundle.dataSignature ?? '')).toBe(true);
    expect(verifyDer(signer, bundle.data ?? '', bundle.dataSignature ?? '')).toBe(false);
  });

  it('refuses signing keys that are not P-256 private keys', () => {
    const { privateKey: k1 } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    expect(() => signBundle({}, k1)).toThrow(InvalidKeyError);
    expect(() => signBundle({}, publicKeyObject(signer))).toThrow(InvalidKeyError);
  });

  it('creates an OTP target and opens what is sealed to it', async () => {
    const target = createOtpTarget(signingKey);
    const bundle = JSON.parse(target.bundle) as { data: string };
    const data = JSON.parse(Buffer.from(bundle.data, 'hex').toString('utf8')) as { targetPublic: string };
    expect(data.targetPublic).toBe(target.targetPublic.toString('hex'));
    expect(publicKeyFromScalar(target.targetPrivateKey, false)).toEqual(target.targetPublic);

    const client = generateP256();
    const pt = new TextEncoder().encode(JSON.stringify({ otp_code: '123456', public_key: client.publicKeyCompressed }));
    const { enc, ciphertext } = await hpkeSeal(target.targetPublic, pt);
    const sealed = JSON.stringify({ encappedPublic: Buffer.from(enc).toString('hex'), ciphertext: Buffer.from(ciphertext).toString('hex') });
    expect(await openOtpBundle(sealed, target.targetPrivateKey, target.targetPublic)).toEqual({
      otpCode: '123456',
      publicKey: client.publicKeyCompressed,
    });
  });

  it('throws BundleError on anything malformed', async () => {
    const target = createOtpTarget(signingKey);
    const seal = async (plaintext: string | Uint8Array, to = target.targetPublic): Promise<{ encappedPublic: string; ciphertext: string }> => {
      const bytes = typeof plaintext === 'string' ? new TextEncoder().encode(plaintext) : plaintext;
      const { enc, ciphertext } = await hpkeSeal(to, bytes);
      return { encappedPublic: Buffer.from(enc).toString('hex'), ciphertext: Buffer.from(ciphertext).toString('hex') };
    };
    const good = await seal(JSON.stringify({ otp_code: '000000', public_key: 'k' }));
    const other = createOtpTarget(signingKey);
    const cases: [string, string][] = [
      ['not JSON', 'nope'],
      ['JSON array', '[]'],
      ['JSON null', 'null'],
      ['missing encappedPublic', JSON.stringify({ ciphertext: good.ciphertext })],
      ['missing ciphertext', JSON.stringify({ encappedPublic: good.encappedPublic })],
      ['numeric ciphertext', JSON.stringify({ ...good, ciphertext: 5 })],
      ['encappedPublic not hex', JSON.stringify({ ...good, encappedPublic: `${good.encappedPublic.slice(0, -2)}zz` })],
      ['ciphertext odd length', JSON.stringify({ ...good, ciphertext: good.ciphertext.slice(1) })],
      ['compressed encappedPublic', JSON.stringify({ ...good, encappedPublic: compressPublicKey(good.encappedPublic).toString('hex') })],
      ['encappedPublic off curve', JSON.stringify({ ...good, encappedPublic: OFF_CURVE_UNCOMPRESSED })],
      ['tampered ciphertext', JSON.stringify({ ...good, ciphertext: `${good.ciphertext.slice(0, -2)}${good.ciphertext.endsWith('00') ? '01' : '00'}` })],
      ['sealed to another target', JSON.stringify(await seal(JSON.stringify({ otp_code: '0', public_key: 'k' }), other.targetPublic))],
      ['plaintext not JSON', JSON.stringify(await seal('000000'))],
      ['plaintext not UTF-8', JSON.stringify(await seal(Uint8Array.from([0xff, 0xfe])))],
      ['plaintext array', JSON.stringify(await seal('[]'))],
      ['missing otp_code', JSON.stringify(await seal(JSON.stringify({ public_key: 'k' })))],
      ['numeric otp_code', JSON.stringify(await seal(JSON.stringify({ otp_code: 0, public_key: 'k' })))],
      ['missing public_key', JSON.stringify(await seal(JSON.stringify({ otp_code: '000000' })))],
      ['camelCase members', JSON.stringify(await seal(JSON.stringify({ otpCode: '000000', publicKey: 'k' })))],
    ];
    for (const [name, bundle] of cases) {
      await expect(openOtpBundle(bundle, target.targetPrivateKey, target.targetPublic), name).rejects.toThrow(BundleError);
    }
    await expect(openOtpBundle(undefined as unknown as string, target.targetPrivateKey, target.targetPublic)).rejects.toThrow(BundleError);
  });

  it('seals an export bundle that the client key opens', async () => {
    const client = generateP256();
    const secret = randomBytes(32);
    const bundle = JSON.parse(await sealExportBundle(secret, client.publicKeyUncompressed, 'Org:1', signingKey)) as Record<string, string>;
    expect(bundle.enclaveQuorumPublic).toBe(signer);
    const dataBytes = Buffer.from(bundle.data ?? '', 'hex');
    expect(verifyDer(signer, dataBytes, bundle.dataSignature ?? '')).toBe(true);
    const data = JSON.parse(dataBytes.toString('utf8')) as Record<string, string>;
    expect(data.organizationId).toBe('Org:1');
    const pt = await hpkeOpen(
      client.privateKey,
      Buffer.from(client.publicKeyUncompressed, 'hex'),
      Buffer.from(data.encappedPublic ?? '', 'hex'),
      Buffer.from(data.ciphertext ?? '', 'hex'),
    );
    expect(Buffer.from(pt)).toEqual(secret);
    await expect(sealExportBundle(secret, client.publicKeyCompressed, 'Org:1', signingKey)).rejects.toThrow(InvalidKeyError);
  });
});

describe('verification token', () => {
  const signingKey = privateKeyObject(generateP256().privateKey);
  const claims = {
    id: 'AuthCredential:1',
    contact: 'a@example.com',
    verificationType: 'EMAIL_OTP' as const,
    organizationId: 'InternalAccount:1',
    publicKey: generateP256().publicKeyCompressed,
    expiresAt: new Date(Date.UTC(2030, 0, 1)),
  };
  const now = new Date(Date.UTC(2029, 0, 1));

  it('is an ES256 JWT with Turnkey claim names and a millisecond exp string', async () => {
    const jwt = await signVerificationToken(claims, signingKey);
    const [h, p] = jwt.split('.');
    expect(JSON.parse(Buffer.from(h ?? '', 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'JWT' });
    expect(JSON.parse(Buffer.from(p ?? '', 'base64url').toString())).toEqual({
      id: claims.id,
      verification_type: 'EMAIL_OTP',
      contact: claims.contact,
      organization_id: claims.organizationId,
      public_key: claims.publicKey,
      exp: String(claims.expiresAt.getTime()),
    });
    expect(await verifyVerificationToken(jwt, signingKey, now)).toEqual(claims);
    expect(await verifyVerificationToken(jwt, bundleSigningPublicKey(signingKey), now)).toEqual(claims);
    expect(await verifyVerificationToken(jwt, compressPublicKey(bundleSigningPublicKey(signingKey)), now)).toEqual(claims);
  });

  it('returns undefined when expired, forged, tampered or malformed', async () => {
    const jwt = await signVerificationToken(claims, signingKey);
    expect(await verifyVerificationToken(jwt, signingKey, claims.expiresAt)).toEqual(claims);
    expect(await verifyVerificationToken(jwt, signingKey, new Date(claims.expiresAt.getTime() + 1))).toBeUndefined();
    expect(await verifyVerificationToken(jwt, privateKeyObject(generateP256().privateKey), now)).toBeUndefined();
    const [h, , sig] = jwt.split('.');
    const forgedPayload = b64u(JSON.stringify({ ...JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()), contact: 'b@example.com' }));
    expect(await verifyVerificationToken(`${h}.${forgedPayload}.${sig}`, signingKey, now)).toBeUndefined();
    for (const garbage of ['', 'a.b.c', `${jwt}x`, jwt.split('.').slice(0, 2).join('.')]) {
      expect(await verifyVerificationToken(garbage, signingKey, now)).toBeUndefined();
    }
    expect(await verifyVerificationToken(jwt, 'not a key', now)).toBeUndefined();
    // numeric (RFC 7519) exp and an unknown verification type are not our tokens
    const numericExp = await new SignJWT({ id: 'x', verification_type: 'EMAIL_OTP', contact: 'c', organization_id: 'o', public_key: 'k' })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setExpirationTime(claims.expiresAt)
      .sign(signingKey);
    expect(await verifyVerificationToken(numericExp, signingKey, now)).toBeUndefined();
    const otherType = await signVerificationToken({ ...claims, verificationType: 'OAUTH' as unknown as 'EMAIL_OTP' }, signingKey);
    expect(await verifyVerificationToken(otherType, signingKey, now)).toBeUndefined();
  });
});

describe('passkey challenge', () => {
  it('hashes canonical JSON, independent of key order', () => {
    const a = passkeyChallenge({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 'é' } });
    const b = passkeyChallenge({ a: { c: 'é', d: [1, { y: 2, z: 1 }] }, b: 1 });
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).toBe(createHash('sha256').update('{"a":{"c":"é","d":[1,{"y":2,"z":1}]},"b":1}', 'utf8').digest('hex'));
  });

  it('the WebAuthn challenge is base64url of the hex string bytes', () => {
    const hex = passkeyChallenge({ clientPublicKey: generateP256().publicKeyUncompressed });
    const expected = webauthnExpectedChallenge(hex);
    expect(Buffer.from(expected, 'base64url').toString('utf8')).toBe(hex);
    expect(expected).toHaveLength(86);
    expect(expected).not.toMatch(/[=+/]/);
  });
});
