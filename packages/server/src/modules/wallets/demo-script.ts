/**
 * The sandbox wallet page's script (an ES module, served as /hosted/wallets/assets/wallet.js). It does
 * in the browser what a wallet app does: WebAuthn for the passkey, WebCrypto for the client key and
 * the stamp, @hpke/core (served from this origin) to open the sealed session key.
 */
export const WALLET_DEMO_SCRIPT = String.raw`
import { CipherSuite, DhkemP256HkdfSha256, HkdfSha256, Aes256Gcm } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';

const token = document.body.dataset.token;
const base = '/hosted/wallets/demo/' + token;
const statusBox = document.getElementById('status');
const state = { credentialId: null, session: null };

function say(line) { statusBox.textContent = line; }
const hex = (bytes) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (text) => new Uint8Array(text.match(/../g).map((h) => parseInt(h, 16)));
const b64url = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const unb64url = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
const concat = (...parts) => { const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0)); let at = 0; for (const p of parts) { out.set(p, at); at += p.length; } return out; };

async function call(path, body) {
  const response = await fetch(base + path, { method: body === undefined ? 'GET' : 'POST', headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json();
  if (response.status >= 300 && response.status !== 202) throw new Error(answer.code + ': ' + answer.message);
  return { status: response.status, body: answer };
}

// base58check (Bitcoin alphabet, double SHA-256 checksum): the format of encryptedSessionSigningKey.
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
async function base58checkDecode(text) {
  let value = 0n;
  for (const c of text) { const digit = ALPHABET.indexOf(c); if (digit < 0) throw new Error('not base58'); value = value * 58n + BigInt(digit); }
  const bytes = [];
  while (value > 0n) { bytes.unshift(Number(value % 256n)); value /= 256n; }
  for (const c of text) { if (c !== '1') break; bytes.unshift(0); }
  const raw = new Uint8Array(bytes);
  const payload = raw.slice(0, -4);
  const check = new Uint8Array(await crypto.subtle.digest('SHA-256', await crypto.subtle.digest('SHA-256', payload))).slice(0, 4);
  if (hex(check) !== hex(raw.slice(-4))) throw new Error('bad checksum');
  return payload;
}

// The encapsulated key comes compressed; HPKE takes it uncompressed.
const uncompress = (point) => p256.Point.fromBytes(point).toBytes(false);

// The session key arrives HPKE-sealed to our client key (info "turnkey_hpke", AAD = enc || our public key).
async function openSessionKey(sealed, clientKeys, clientPublic) {
  const raw = await base58checkDecode(sealed);
  const enc = uncompress(raw.slice(0, 33));
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
  const recipient = await suite.createRecipientContext({ recipientKey: clientKeys, enc, info: new TextEncoder().encode('turnkey_hpke') });
  return new Uint8Array(await recipient.open(raw.slice(33), concat(enc, clientPublic)));
}

// A P-256 scalar as a WebCrypto signing key; its public half from @noble/curves.
async function signingKey(scalar) {
  const point = p256.getPublicKey(scalar, false);
  const jwk = { kty: 'EC', crv: 'P-256', d: b64url(scalar), x: b64url(point.slice(1, 33)), y: b64url(point.slice(33)) };
  const key = await crypto.subtle.importKey('jwk', jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']);
  return { key, publicKey: hex(p256.getPublicKey(scalar, true)) };
}

function der(raw) {
  const integer = (bytes) => { let i = 0; while (i < bytes.length - 1 && bytes[i] === 0) i++; let v = bytes.slice(i); if (v[0] & 0x80) v = concat(new Uint8Array([0]), v); return concat(new Uint8Array([2, v.length]), v); };
  const body = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

// The Service-Wallet-Signature stamp: base64url of {publicKey, scheme, signature (DER hex)}.
async function stamp(session, payload) {
  const raw = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, session.key, new TextEncoder().encode(payload)));
  const json = JSON.stringify({ publicKey: session.publicKey, scheme: 'SIGNATURE_SCHEME_TK_API_P256', signature: hex(der(raw)) });
  return b64url(new TextEncoder().encode(json));
}

async function register() {
  const options = (await call('/passkey-options', {})).body;
  const credential = await navigator.credentials.create({ publicKey: {
    challenge: unb64url(options.challenge),
    rp: options.rp,
    user: { id: unb64url(options.user.id), name: options.user.name, displayName: 'Wallet holder' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    attestation: 'none',
  } });
  const created = await call('/passkeys', { nickname: 'This browser', challenge: options.challenge, attestation: {
    credentialId: credential.id,
    clientDataJson: b64url(credential.response.clientDataJSON),
    attestationObject: b64url(credential.response.attestationObject),
    transports: credential.response.getTransports ? credential.response.getTransports() : [],
  } });
  state.credentialId = created.body.id;
  say('Passkey registered: ' + created.body.id);
  document.getElementById('login').disabled = false;
}

async function login() {
  const clientKeys = await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']);
  const clientPublic = new Uint8Array(await crypto.subtle.exportKey('raw', clientKeys.publicKey));
  const challenge = (await call('/credentials/' + state.credentialId + '/challenge', { clientPublicKey: hex(clientPublic) })).body;
  const assertion = await navigator.credentials.get({ publicKey: {
    challenge: new TextEncoder().encode(challenge.challenge),
    allowCredentials: [{ type: 'public-key', id: unb64url(challenge.credentialId) }],
    userVerification: 'preferred',
  } });
  const session = (await call('/credentials/' + state.credentialId + '/verify', { requestId: challenge.requestId, assertion: {
    credentialId: assertion.id,
    clientDataJson: b64url(assertion.response.clientDataJSON),
    authenticatorData: b64url(assertion.response.authenticatorData),
    signature: b64url(assertion.response.signature),
    userHandle: assertion.response.userHandle ? b64url(assertion.response.userHandle) : undefined,
  } })).body;
  const scalar = await openSessionKey(session.encryptedSessionSigningKey, clientKeys, clientPublic);
  state.session = await signingKey(scalar);
  say('Logged in: ' + session.id + ' until ' + session.expiresAt);
  document.getElementById('sign').disabled = false;
}

async function sign() {
  const first = await call('/account', { privateEnabled: true });
  const signed = await call('/account', { privateEnabled: true, requestId: first.body.requestId, signature: await stamp(state.session, first.body.payloadToSign) });
  say('Signed: privateEnabled is ' + signed.body.privateEnabled);
}

for (const [id, action] of [['register', register], ['login', login], ['sign', sign]]) {
  document.getElementById(id).addEventListener('click', () => action().catch((error) => { console.error(error); say('Failed: ' + (error.message || error.name || String(error))); }));
}
`;
