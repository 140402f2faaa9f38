import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';

/**
 * RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256) / HKDF-SHA256 / AES-256-GCM, as `@turnkey/crypto` speaks it.
 * `info` is fixed by the client library (it hard-codes the derived key schedule), and the AEAD gets a
 * non-standard AAD: the uncompressed `enc` followed by the uncompressed recipient public key.
 */
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });

export const TURNKEY_HPKE_INFO: Uint8Array = new TextEncoder().encode('turnkey_hpke');

function aad(enc: Uint8Array, recipientPublic: Uint8Array): Uint8Array {
  const out = new Uint8Array(enc.length + recipientPublic.length);
  out.set(enc, 0);
  out.set(recipientPublic, enc.length);
  return out;
}

function uncompressed65(key: Uint8Array, what: string): Uint8Array {
  if (key.length !== 65 || key[0] !== 0x04) throw new RangeError(`${what} must be a 65-byte uncompressed P-256 point`);
  return new Uint8Array(key);
}

export interface HpkeSealed {
  /** Encapsulated key, 65 bytes uncompressed. */
  enc: Uint8Array;
  /** AES-GCM ciphertext followed by the 16-byte tag. */
  ciphertext: Uint8Array;
}

export async function hpkeSeal(recipientPublic65: Uint8Array, plaintext: Uint8Array): Promise<HpkeSealed> {
  const pkR = uncompressed65(recipientPublic65, 'recipient public key');
  const sender = await suite.createSenderContext({
    recipientPublicKey: await suite.kem.deserializePublicKey(pkR),
    info: TURNKEY_HPKE_INFO,
  });
  const enc = new Uint8Array(sender.enc);
  const ciphertext = new Uint8Array(await sender.seal(new Uint8Array(plaintext), aad(enc, pkR)));
  return { enc, ciphertext };
}

export async function hpkeOpen(
  recipientPrivate32: Uint8Array,
  recipientPublic65: Uint8Array,
  enc65: Uint8Array,
  ciphertext: Uint8Array,
): Promise<Uint8Array> {
  if (recipientPrivate32.length !== 32) throw new RangeError('recipient private key must be a 32-byte scalar');
  const pkR = uncompressed65(recipientPublic65, 'recipient public key');
  const enc = uncompressed65(enc65, 'encapsulated key');
  const recipient = await suite.createRecipientContext({
    recipientKey: await suite.kem.deserializePrivateKey(new Uint8Array(recipientPrivate32)),
    enc,
    info: TURNKEY_HPKE_INFO,
  });
  return new Uint8Array(await recipient.open(new Uint8Array(ciphertext), aad(enc, pkR)));
}
