import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { configDir, DIR_MODE, FILE_MODE, type Env } from './config.js';

/**
 * `moneta listen` cannot hold the server's webhook signing key (the API never hands it out), so
 * it signs what it forwards with a P-256 key of its own, made once and kept next to the config
 * (mode 0600). Receivers verify forwarded events with its public key, printed at start.
 */

export interface ListenKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  /** Sent as X-Service-Signature-Key-Id: a fingerprint of the public key. */
  keyId: string;
  path: string;
}

export function listenKeyPath(env: Env = process.env): string {
  return join(configDir(env), 'listen-key.pem');
}

export function loadListenKey(env: Env = process.env): ListenKey {
  const path = listenKeyPath(env);
  let privateKey: KeyObject;
  if (existsSync(path)) {
    privateKey = createPrivateKey(readFileSync(path, 'utf8'));
  } else {
    const dir = configDir(env);
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
    chmodSync(dir, DIR_MODE);
    privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    try {
      writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: FILE_MODE, flag: 'wx' });
    } catch (error) {
      // Another `moneta listen` made it first: use that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      privateKey = createPrivateKey(readFileSync(path, 'utf8'));
    }
  }
  chmodSync(path, FILE_MODE);
  const publicKey = createPublicKey(privateKey);
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: `ListenKey:${createHash('sha256').update(der).digest('hex').slice(0, 32)}`,
    path,
  };
}

/** The headers of a real delivery (same names, same signature format: ECDSA P-256 / SHA-256, DER, base64, over the exact body). */
export function forwardHeaders(body: string, eventId: string, key: ListenKey, nowMs: number = Date.now()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Moneta-Webhooks/2025-10-13 (moneta listen)',
    'x-service-signature': sign('sha256', Buffer.from(body, 'utf8'), key.privateKey).toString('base64'),
    'x-service-signature-key-id': key.keyId,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
  };
}
