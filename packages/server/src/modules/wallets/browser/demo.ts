/**
 * The sandbox wallet page's script (bundled by http/browser-bundle.ts, served as
 * /hosted/wallets/assets/wallet.js). It does in the browser what a wallet app does: WebAuthn for the
 * passkey, WebCrypto for the client key and the stamp, @hpke/core (served from this origin through
 * the page's import map) to open the sealed session key.
 */
import { Aes256Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';

type Bytes = Uint8Array<ArrayBuffer>;

interface Session {
  key: CryptoKey;
  publicKey: string;
}

interface PasskeyOptions {
  challenge: string;
  rp: { id: string; name: string };
  user: { id: string; name: string };
}

interface LoginChallenge {
  challenge: string;
  credentialId: string;
  requestId: string;
}

interface LoginSession {
  id: string;
  expiresAt: string;
  encryptedSessionSigningKey: string;
}

/** A signed action's first answer (202) carries what to sign; the signed one, the account. */
interface AccountAnswer {
  requestId: string;
  payloadToSign: string;
  privateEnabled: boolean;
}

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`The page has no #${id}`);
  return found;
}

const token = document.body.dataset.token ?? '';
const base = '/hosted/wallets/demo/' + token;
const statusBox = element('status', HTMLPreElement);
const state: { credentialId: string | null; session: Session | null } = { credentialId: null, session: null };

function say(line: string): void {
  statusBox.textContent = line;
}
const hex = (bytes: ArrayBuffer | Uint8Array): string => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const b64url = (bytes: ArrayBuffer | Uint8Array): string =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const unb64url = (text: string): Bytes => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
const concat = (...parts: Uint8Array[]): Bytes => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

async function call<T>(path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(base + path, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = (await response.json()) as T & { code?: string; message?: string };
  if (response.status >= 300 && response.status !== 202) throw new Error(`${answer.code}: ${answer.message}`);
  return { status: response.status, body: answer };
}

// base58check (Bitcoin alphabet, double SHA-256 checksum): the format of encryptedSessionSigningKey.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
async function base58checkDecode(text: string): Promise<Bytes> {
  let value = 0n;
  for (const c of text) {
    const digit = ALPHABET.indexOf(c);
    if (digit < 0) throw new Error('not base58');
    value = value * 58n + BigInt(digit);
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value % 256n));
    value /= 256n;
  }
  for (const c of text) {
    if (c !== '1') break;
    bytes.unshift(0);
  }
  const raw = new Uint8Array(bytes);
  const payload = raw.slice(0, -4);
  const check = new Uint8Array(await crypto.subtle.digest('SHA-256', await crypto.subtle.digest('SHA-256', payload))).slice(0, 4);
  if (hex(check) !== hex(raw.slice(-4))) throw new Error('bad checksum');
  return payload;
}

// The encapsulated key comes compressed; HPKE takes it uncompressed.
const uncompress = (point: Uint8Array): Uint8Array => p256.Point.fromBytes(point).toBytes(false);

// The session key arrives HPKE-sealed to our client key (info "turnkey_hpke", AAD = enc || our public key).
async function openSessionKey(sealed: string, clientKeys: CryptoKeyPair, clientPublic: Uint8Array): Promise<Bytes> {
  const raw = await base58checkDecode(sealed);
  const enc = uncompress(raw.slice(0, 33));
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  const recipient = await suite.createRecipientContext({ recipientKey: clientKeys, enc, info: new TextEncoder().encode('turnkey_hpke') });
  return new Uint8Array(await recipient.open(raw.slice(33), concat(enc, clientPublic)));
}

// A P-256 scalar as a WebCrypto signing key; its public half from @noble/curves.
async function signingKey(scalar: Uint8Array): Promise<Session> {
  const point = p256.getPublicKey(scalar, false);
  const jwk: JsonWebKey = { kty: 'EC', crv: 'P-256', d: b64url(scalar), x: b64url(point.slice(1, 33)), y: b64url(point.slice(33)) };
  const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  return { key, publicKey: hex(p256.getPublicKey(scalar, true)) };
}

function der(raw: Uint8Array): Bytes {
  const integer = (bytes: Uint8Array): Bytes => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let v = bytes.slice(i);
    if ((v[0] ?? 0) & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([2, v.length]), v);
  };
  const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

// The Service-Wallet-Signature stamp: base64url of {publicKey, scheme, signature (DER hex)}.
async function stamp(session: Session, payload: string): Promise<string> {
  const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, session.key, new TextEncoder().encode(payload)));
  const json = JSON.stringify({ publicKey: session.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: hex(der(raw)) });
  return b64url(new TextEncoder().encode(json));
}

function isPublicKeyCredential(credential: Credential | null): credential is PublicKeyCredential {
  return credential instanceof PublicKeyCredential;
}

async function register(): Promise<void> {
  const options = (await call<PasskeyOptions>('/passkey-options', {})).body;
  const credential = await navigator.credentials.create({
    publicKey: {
      challenge: unb64url(options.challenge),
      rp: options.rp,
      user: { id: unb64url(options.user.id), name: options.user.name, displayName: 'Wallet holder' },
      pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      attestation: 'none',
    },
  });
  if (!isPublicKeyCredential(credential) || !(credential.response instanceof AuthenticatorAttestationResponse)) throw new Error('The browser made no passkey');
  const response = credential.response;
  const created = await call<{ id: string }>('/passkeys', {
    nickname: 'This browser',
    challenge: options.challenge,
    attestation: {
      credentialId: credential.id,
      clientDataJson: b64url(response.clientDataJSON),
      attestationObject: b64url(response.attestationObject),
      transports: typeof response.getTransports === 'function' ? response.getTransports() : [],
    },
  });
  state.credentialId = created.body.id;
  say('Passkey registered: ' + created.body.id);
  element('login', HTMLButtonElement).disabled = false;
}

async function login(): Promise<void> {
  const credentialId = state.credentialId ?? '';
  const clientKeys = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const clientPublic = new Uint8Array(await crypto.subtle.exportKey('raw', clientKeys.publicKey));
  const challenge = (await call<LoginChallenge>('/credentials/' + credentialId + '/challenge', { clientPublicKey: hex(clientPublic) })).body;
  const assertion = await navigator.credentials.get({
    publicKey: {
      challenge: new TextEncoder().encode(challenge.challenge),
      allowCredentials: [{ type: 'public-key', id: unb64url(challenge.credentialId) }],
      userVerification: 'preferred',
    },
  });
  if (!isPublicKeyCredential(assertion) || !(assertion.response instanceof AuthenticatorAssertionResponse)) throw new Error('The browser gave no passkey assertion');
  const response = assertion.response;
  const session = (
    await call<LoginSession>('/credentials/' + credentialId + '/verify', {
      requestId: challenge.requestId,
      assertion: {
        credentialId: assertion.id,
        clientDataJson: b64url(response.clientDataJSON),
        authenticatorData: b64url(response.authenticatorData),
        signature: b64url(response.signature),
        userHandle: response.userHandle ? b64url(response.userHandle) : undefined,
      },
    })
  ).body;
  const scalar = await openSessionKey(session.encryptedSessionSigningKey, clientKeys, clientPublic);
  state.session = await signingKey(scalar);
  say('Logged in: ' + session.id + ' until ' + session.expiresAt);
  element('sign', HTMLButtonElement).disabled = false;
}

async function sign(): Promise<void> {
  if (!state.session) throw new Error('Log in first');
  const first = await call<AccountAnswer>('/account', { privateEnabled: true });
  const signed = await call<AccountAnswer>('/account', { privateEnabled: true, requestId: first.body.requestId, signature: await stamp(state.session, first.body.payloadToSign) });
  say('Signed: privateEnabled is ' + String(signed.body.privateEnabled));
}

const actions: [string, () => Promise<void>][] = [
  ['register', register],
  ['login', login],
  ['sign', sign],
];
for (const [id, action] of actions) {
  element(id, HTMLButtonElement).addEventListener('click', () => {
    action().catch((error: unknown) => {
      console.error(error);
      const failure = error instanceof Error ? error.message || error.name : String(error);
      say('Failed: ' + failure);
    });
  });
}
