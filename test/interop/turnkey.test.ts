import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import {
  decryptCredentialBundle,
  decryptExportBundle,
  encryptOtpCodeToBundle,
  generateP256KeyPair,
  getPublicKey,
  verifyOtpVerificationToken,
  verifyStampSignature as turnkeyVerifyStampSignature,
} from '@turnkey/crypto';
import { bs58check, uint8ArrayToHexString } from '@turnkey/encoding';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58check } from '../../packages/server/src/crypto/base58check.js';
import { bundleSigningPublicKey, createOtpTarget, openOtpBundle, sealExportBundle, signBundle } from '../../packages/server/src/crypto/bundles.js';
import { hpkeOpen } from '../../packages/server/src/crypto/hpke.js';
import {
  compressPublicKey,
  generateP256,
  privateKeyObject,
  uncompressPublicKey,
  verifyDer,
} from '../../packages/server/src/crypto/p256.js';
import { openSessionKey, sealSessionKey } from '../../packages/server/src/crypto/session-key.js';
import { createStamp, parseStamp, type Stamp, verifyStampSignature } from '../../packages/server/src/crypto/stamp.js';
import { signVerificationToken } from '../../packages/server/src/crypto/verification-token.js';

/** Known-answer vector from tkhq/sdk packages/crypto/src/__tests__/crypto-test.ts. */
const KAT = {
  bundle:
    'w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf',
  sk: '20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56',
  pt: '67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9',
};
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const RUNTIMES = ['node', 'browser', 'purejs'] as const;

const signingKey = privateKeyObject(generateP256().privateKey);
const ourKey = bundleSigningPublicKey(signingKey);

function sOf(derHex: string): bigint {
  const der = Buffer.from(derHex, 'hex');
  const rLen = der[3] ?? 0;
  return BigInt(`0x${der.subarray(6 + rLen).toString('hex')}`);
}

function mustParse(header: string): Stamp {
  const stamp = parseStamp(header);
  if (!stamp) throw new Error(`stamp did not parse: ${header}`);
  return stamp;
}

describe('Turnkey client interop', () => {
  it("server decoder reproduces Turnkey's KAT", async () => {
    const raw = Buffer.from(base58check.decode(KAT.bundle));
    expect(raw).toEqual(Buffer.from(bs58check.decode(KAT.bundle)));
    expect(base58check.encode(raw)).toBe(KAT.bundle);
    const sk = Buffer.from(KAT.sk, 'hex');
    const pk = Buffer.from(getPublicKey(KAT.sk, false));
    const pt = await hpkeOpen(sk, pk, uncompressPublicKey(raw.subarray(0, 33)), raw.subarray(33));
    expect(Buffer.from(pt).toString('hex')).toBe(KAT.pt);
    expect(await openSessionKey(KAT.bundle, KAT.sk)).toBe(KAT.pt);
    expect(decryptCredentialBundle(KAT.bundle, KAT.sk)).toBe(KAT.pt);
  });

  it('base58check agrees with @turnkey/encoding on random payloads', () => {
    for (let i = 0; i < 10; i++) {
      const payload = randomBytes(81);
      expect(base58check.encode(payload)).toBe(bs58check.encode(payload));
    }
  });

  it('session key -> decryptCredentialBundle -> ApiKeyStamper (all runtimes) -> server verify', async () => {
    const client = generateP256KeyPair();
    const sealed = await sealSessionKey(client.publicKeyUncompressed);
    const priv = decryptCredentialBundle(sealed.encryptedSessionSigningKey, client.privateKey);
    expect(priv).toBe(sealed.scalar.toString('hex'));
    expect(await openSessionKey(sealed.encryptedSessionSigningKey, client.privateKey)).toBe(priv);
    const pub = uint8ArrayToHexString(getPublicKey(priv, true));
    expect(pub).toBe(sealed.sessionPublicKey);

    const payload = JSON.stringify({ requestId: 'Request:1', note: 'héllo ✓ 𝄞' });
    for (const runtimeOverride of RUNTIMES) {
      const stamper = new ApiKeyStamper({ apiPublicKey: pub, apiPrivateKey: priv, runtimeOverride });
      const { stampHeaderName, stampHeaderValue } = await stamper.stamp(payload);
      expect(stampHeaderName).toBe('X-Stamp');
      const stamp = mustParse(stampHeaderValue);
      expect(stamp.publicKey).toBe(sealed.sessionPublicKey);
      expect(verifyStampSignature(stamp, payload), runtimeOverride).toBe(true);
      expect(verifyStampSignature(stamp, `${payload} `), runtimeOverride).toBe(false);
      expect(verifyStampSignature(stamp, payload.replace('𝄞', '')), runtimeOverride).toBe(false);
      expect(await turnkeyVerifyStampSignature(pub, stamp.signature, payload)).toBe(true);
    }
  });

  it("our stamps are byte-compatible with Turnkey's verifier and header layout", async () => {
    const kp = generateP256KeyPair();
    const payload = '{"amount":"10.00"}';
    const ours = createStamp(kp.privateKey, payload);
    const theirs = (await new ApiKeyStamper({ apiPublicKey: kp.publicKey, apiPrivateKey: kp.privateKey, runtimeOverride: 'purejs' }).stamp(payload))
      .stampHeaderValue;
    const decode = (v: string): Record<string, string> => JSON.parse(Buffer.from(v, 'base64url').toString('utf8')) as Record<string, string>;
    expect(Object.keys(decode(ours))).toEqual(Object.keys(decode(theirs)));
    expect(decode(ours).publicKey).toBe(decode(theirs).publicKey);
    expect(await turnkeyVerifyStampSignature(kp.publicKey, mustParse(ours).signature, payload)).toBe(true);
  });

  it('20+ ApiKeyStamper stamps all verify, high-S included', async () => {
    const client = generateP256KeyPair();
    const sealed = await sealSessionKey(client.publicKeyUncompressed);
    const priv = decryptCredentialBundle(sealed.encryptedSessionSigningKey, client.privateKey);
    let highS = 0;
    let count = 0;
    while (count < 20 || (highS === 0 && count < 200)) {
      const runtimeOverride = RUNTIMES[count % RUNTIMES.length] ?? 'node';
      const payload = JSON.stringify({ requestId: `Request:${count}`, nonce: randomBytes(8).toString('hex') });
      const stamper = new ApiKeyStamper({ apiPublicKey: sealed.sessionPublicKey, apiPrivateKey: priv, runtimeOverride });
      const stamp = mustParse((await stamper.stamp(payload)).stampHeaderValue);
      expect(verifyStampSignature(stamp, payload), `${runtimeOverride} #${count}`).toBe(true);
      if (sOf(stamp.signature) > N / 2n) highS++;
      count++;
    }
    expect(highS).toBeGreaterThan(0);
  });

  describe('OTP', () => {
    it('our signed target bundle -> encryptOtpCodeToBundle (compressed public_key) -> openOtpBundle', async () => {
      const { bundle, targetPrivateKey, targetPublic } = createOtpTarget(signingKey);
      const client = generateP256KeyPair();
      const enc = await encryptOtpCodeToBundle('000000', bundle, client.publicKey, ourKey);
      expect(Object.keys(JSON.parse(enc) as object)).toEqual(['encappedPublic', 'ciphertext']);
      const opened = await openOtpBundle(enc, targetPrivateKey, targetPublic);
      expect(opened).toEqual({ otpCode: '000000', publicKey: client.publicKey });
      expect(compressPublicKey(opened.publicKey)).toEqual(compressPublicKey(client.publicKeyUncompressed));
    });

    it('... and with an uncompressed public_key', async () => {
      const { bundle, targetPrivateKey, targetPublic } = createOtpTarget(signingKey);
      const client = generateP256KeyPair();
      const enc = await encryptOtpCodeToBundle('482913', bundle, client.publicKeyUncompressed, ourKey);
      const opened = await openOtpBundle(enc, targetPrivateKey, targetPublic);
      expect(opened).toEqual({ otpCode: '482913', publicKey: client.publicKeyUncompressed });
      expect(compressPublicKey(opened.publicKey)).toEqual(compressPublicKey(client.publicKey));
    });

    it('many bundles verify on the client (high-S on our side too)', async () => {
      const client = generateP256KeyPair();
      let highS = 0;
      for (let i = 0; i < 24; i++) {
        const { bundle, targetPrivateKey, targetPublic } = createOtpTarget(signingKey);
        if (sOf((JSON.parse(bundle) as { dataSignature: string }).dataSignature) > N / 2n) highS++;
        const enc = await encryptOtpCodeToBundle(String(i).padStart(6, '0'), bundle, client.publicKey, ourKey);
        expect((await openOtpBundle(enc, targetPrivateKey, targetPublic)).otpCode).toBe(String(i).padStart(6, '0'));
      }
      expect(highS).toBeGreaterThan(0);
    });

    it('the client refuses a bundle unless our key is pinned exactly', async () => {
      const { bundle } = createOtpTarget(signingKey);
      const client = generateP256KeyPair();
      await expect(encryptOtpCodeToBundle('000000', bundle, client.publicKey)).rejects.toThrow(/expected signer key/);
      const wrong = bundleSigningPublicKey(privateKeyObject(generateP256().privateKey));
      await expect(encryptOtpCodeToBundle('000000', bundle, client.publicKey, wrong)).rejects.toThrow(/expected signer key/);
      await expect(encryptOtpCodeToBundle('000000', bundle, client.publicKey, ourKey.toUpperCase())).rejects.toThrow(/expected signer key/);
      await expect(encryptOtpCodeToBundle('000000', bundle, client.publicKey, compressPublicKey(ourKey).toString('hex'))).rejects.toThrow(
        /expected signer key/,
      );
    });

    it('the client refuses tampered data or a bundle signed by another key', async () => {
      const client = generateP256KeyPair();
      const { bundle } = createOtpTarget(signingKey);
      const parsed = JSON.parse(bundle) as Record<string, string>;
      const attacker = generateP256();
      const tampered = JSON.stringify({
        ...parsed,
        data: Buffer.from(JSON.stringify({ targetPublic: attacker.publicKeyUncompressed }), 'utf8').toString('hex'),
      });
      await expect(encryptOtpCodeToBundle('000000', tampered, client.publicKey, ourKey)).rejects.toThrow(/verification failed/);

      const otherKey = privateKeyObject(generateP256().privateKey);
      const resigned = JSON.parse(signBundle({ targetPublic: attacker.publicKeyUncompressed }, otherKey)) as Record<string, string>;
      const spliced = JSON.stringify({ ...resigned, enclaveQuorumPublic: ourKey });
      await expect(encryptOtpCodeToBundle('000000', spliced, client.publicKey, ourKey)).rejects.toThrow(/verification failed/);
    });
  });

  it('export bundle -> decryptExportBundle returns our plaintext hex', async () => {
    const client = generateP256KeyPair();
    const secret = randomBytes(32);
    const exportBundle = await sealExportBundle(secret, client.publicKeyUncompressed, 'InternalAccount:abc', signingKey);
    const out = await decryptExportBundle({
      exportBundle,
      embeddedKey: client.privateKey,
      organizationId: 'InternalAccount:abc',
      dangerouslyOverrideSignerPublicKey: ourKey,
      keyFormat: 'HEXADECIMAL',
      returnMnemonic: false,
    });
    expect(out).toBe(secret.toString('hex'));

    const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    const mnemonicBundle = await sealExportBundle(Buffer.from(mnemonic, 'utf8'), client.publicKeyUncompressed, 'Org', signingKey);
    expect(
      await decryptExportBundle({
        exportBundle: mnemonicBundle,
        embeddedKey: client.privateKey,
        organizationId: 'Org',
        dangerouslyOverrideSignerPublicKey: ourKey,
        returnMnemonic: true,
      }),
    ).toBe(mnemonic);

    await expect(
      decryptExportBundle({
        exportBundle,
        embeddedKey: client.privateKey,
        organizationId: 'InternalAccount:other',
        dangerouslyOverrideSignerPublicKey: ourKey,
        keyFormat: 'HEXADECIMAL',
        returnMnemonic: false,
      }),
    ).rejects.toThrow(/organization id does not match/);
    await expect(
      decryptExportBundle({
        exportBundle,
        embeddedKey: generateP256KeyPair().privateKey,
        organizationId: 'InternalAccount:abc',
        dangerouslyOverrideSignerPublicKey: ourKey,
        keyFormat: 'HEXADECIMAL',
        returnMnemonic: false,
      }),
    ).rejects.toThrow();
    const data = Buffer.from((JSON.parse(exportBundle) as { data: string }).data, 'hex');
    expect(verifyDer(ourKey, data, (JSON.parse(exportBundle) as { dataSignature: string }).dataSignature)).toBe(true);
  });

  it('verification token -> verifyOtpVerificationToken accepts it', async () => {
    const client = generateP256KeyPair();
    const expiresAt = new Date(Date.now() + 10 * 60_000);
    for (let i = 0; i < 8; i++) {
      const jwt = await signVerificationToken(
        {
          id: `AuthCredential:${i}`,
          contact: 'ana@example.com',
          verificationType: i % 2 ? 'SMS_OTP' : 'EMAIL_OTP',
          organizationId: 'InternalAccount:abc',
          publicKey: client.publicKey,
          expiresAt,
        },
        signingKey,
      );
      const claims = await verifyOtpVerificationToken(jwt, ourKey);
      expect(claims).toMatchObject({
        id: `AuthCredential:${i}`,
        verification_type: i % 2 ? 'SMS_OTP' : 'EMAIL_OTP',
        contact: 'ana@example.com',
        organization_id: 'InternalAccount:abc',
        public_key: client.publicKey,
        exp: String(expiresAt.getTime()),
      });
    }
    const expired = await signVerificationToken(
      { id: 'x', contact: 'c', verificationType: 'EMAIL_OTP', organizationId: 'o', publicKey: client.publicKey, expiresAt: new Date(Date.now() - 1000) },
      signingKey,
    );
    await expect(verifyOtpVerificationToken(expired, ourKey)).rejects.toThrow(/expired/);
    const wrong = bundleSigningPublicKey(privateKeyObject(generateP256().privateKey));
    const jwt = await signVerificationToken(
      { id: 'x', contact: 'c', verificationType: 'EMAIL_OTP', organizationId: 'o', publicKey: client.publicKey, expiresAt },
      signingKey,
    );
    await expect(verifyOtpVerificationToken(jwt, wrong)).rejects.toThrow(/invalid/);
  });
});
