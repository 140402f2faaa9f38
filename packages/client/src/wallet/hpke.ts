import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';

/**
 * RFC 9180 base mode as Moneta and `@turnkey/crypto` speak it: DHKEM(P-256, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM, info "turnkey_hpke", and as AAD the uncompressed `enc` followed by the
 * uncompressed recipient public key.
 */
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const INFO = new TextEncoder().encode('turnkey_hpke');

function aad(enc: Uint8Array, recipientPublic: Uint8Array): Uint8Array {
  const out = new Uint8Array(enc.length + recipientPublic.length);
  out.set(enc, 0);
  out.set(recipientPublic, enc.length);
  return out;
}

export async function seal(recipientPublic65: Uint8Array, plaintext: Uint8Array): Promise<{ enc: Uint8Array; ciphertext: Uint8Array }> {
  const sender = await suite.createSenderContext({ recipientPublicKey: await suite.kem.deserializePublicKey(recipientPublic65), info: INFO });
  const enc = new Uint8Array(sender.enc);
  return { enc, ciphertext: new Uint8Array(await sender.seal(plaintext, aad(enc, recipientPublic65))) };
}

export async function open(recipientPrivate: Uint8Array, recipientPublic65: Uint8Array, enc65: Uint8Array, ciphertext: Uint8Array): Promise<Uint8Array> {
  const recipient = await suite.createRecipientContext({ recipientKey: await suite.kem.deserializePrivateKey(recipientPrivate), enc: enc65, info: INFO });
  return new Uint8Array(await recipient.open(ciphertext, aad(enc65, recipientPublic65)));
}
