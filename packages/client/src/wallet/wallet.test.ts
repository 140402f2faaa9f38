/**
 * The SDK's wallet helpers against both peers they must agree with: the server's own crypto (what
 * it seals and verifies) and Turnkey's client libraries (what other wallet apps do).
 */
import { describe, expect, it } from 'vitest';
import { decryptCredentialBundle, encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { createOtpTarget, openOtpBundle, bundleSigningPublicKey } from '../../../server/src/crypto/bundles.js';
import { sealSessionKey } from '../../../server/src/crypto/session-key.js';
import { parseStamp, verifyStampSignature } from '../../../server/src/crypto/stamp.js';
import { generateP256, privateKeyObject } from '../../../server/src/crypto/p256.js';
import { decryptSessionKey, encryptOtpCode, stamp, WalletCryptoError } from './crypto.js';
import { generateKeyPair, keyPairFromPrivateKey } from './keys.js';

function signingKey() {
  const { privateKey } = generateP256();
  return privateKeyObject(privateKey);
}

describe('SDK wallet helpers', () => {
  it('key pairs: compressed and uncompressed halves of one scalar, as Turnkey derives them', () => {
    const turnkey = generateP256KeyPair();
    const ours = keyPairFromPrivateKey(turnkey.privateKey);
    expect(ours.publicKey).toBe(turnkey.publicKey);
    expect(ours.publicKeyUncompressed).toBe(turnkey.publicKeyUncompressed);
    const fresh = generateKeyPair();
    expect(fresh.privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(fresh.publicKeyUncompressed).toMatch(/^04[0-9a-f]{128}$/);
  });

  it('stamp: the server verifies it over the exact payload, and it has the shape ApiKeyStamper produces', async () => {
    const key = generateKeyPair();
    const payload = JSON.stringify({ type: 'ACTIVITY', requestId: 'r-1', amount: 100 });
    const ours = parseStamp(stamp(key, payload))!;
    expect(ours).toBeDefined();
    expect(verifyStampSignature(ours, payload)).toBe(true);
    expect(verifyStampSignature(ours, `${payload} `)).toBe(false);
    const stamper = new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey, runtimeOverride: 'node' });
    const theirs = parseStamp((await stamper.stamp(payload)).stampHeaderValue)!;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(theirs).sort());
    expect(ours.publicKey).toBe(theirs.publicKey);
    expect(ours.scheme).toBe(theirs.scheme);
  });

  it('encryptOtpCode: the server opens it to the code and the key, as it opens Turnkey’s encryptOtpCodeToBundle', async () => {
    const signer = signingKey();
    const pinned = bundleSigningPublicKey(signer);
    const target = createOtpTarget(signer);
    const key = generateKeyPair();
    const ours = await openOtpBundle(await encryptOtpCode({ code: '428193', targetBundle: target.bundle, publicKey: key.publicKey, bundleSigningKey: pinned }), target.targetPrivateKey, target.targetPublic);
    expect(ours).toEqual({ otpCode: '428193', publicKey: key.publicKey });
    const theirs = await openOtpBundle(await encryptOtpCodeToBundle('428193', target.bundle, key.publicKey, pinned), target.targetPrivateKey, target.targetPublic);
    expect(theirs).toEqual(ours);
  });

  it('encryptOtpCode refuses a bundle from another signer or with a broken signature, sending nothing', async () => {
    const signer = signingKey();
    const target = createOtpTarget(signer);
    const key = generateKeyPair();
    await expect(encryptOtpCode({ code: '1', targetBundle: target.bundle, publicKey: key.publicKey, bundleSigningKey: bundleSigningPublicKey(signingKey()) })).rejects.toBeInstanceOf(WalletCryptoError);
    const outer = JSON.parse(target.bundle) as { data: string };
    const tampered = JSON.stringify({ ...outer, data: outer.data.replace(/.$/, (c) => (c === '0' ? '1' : '0')) });
    await expect(encryptOtpCode({ code: '1', targetBundle: tampered, publicKey: key.publicKey, bundleSigningKey: bundleSigningPublicKey(signer) })).rejects.toThrow(/does not verify/);
    await expect(encryptOtpCode({ code: '1', targetBundle: 'nope', publicKey: key.publicKey, bundleSigningKey: bundleSigningPublicKey(signer) })).rejects.toThrow(/not JSON/);
  });

  it('decryptSessionKey opens what the server seals, agreeing with Turnkey’s decryptCredentialBundle; another key cannot', async () => {
    const client = generateKeyPair();
    const sealed = await sealSessionKey(client.publicKeyUncompressed);
    const session = await decryptSessionKey(sealed.encryptedSessionSigningKey, client.privateKey);
    expect(session.privateKey).toBe(sealed.scalar.toString('hex'));
    expect(session.publicKey).toBe(sealed.sessionPublicKey);
    expect(session.privateKey).toBe(decryptCredentialBundle(sealed.encryptedSessionSigningKey, client.privateKey));
    await expect(decryptSessionKey(sealed.encryptedSessionSigningKey, generateKeyPair().privateKey)).rejects.toBeInstanceOf(WalletCryptoError);
    await expect(decryptSessionKey('not-base58', client.privateKey)).rejects.toBeInstanceOf(WalletCryptoError);
    // The opened key signs stamps the server accepts for that session's public key.
    const header = parseStamp(stamp(session, 'payload'))!;
    expect(header.publicKey).toBe(sealed.sessionPublicKey);
    expect(verifyStampSignature(header, 'payload')).toBe(true);
  });
});
