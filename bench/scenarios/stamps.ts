import { verify as ecVerify } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { generateP256KeyPair } from '@turnkey/crypto';
import { newId } from '../../packages/server/src/core/ids.js';
import { publicKeyObject } from '../../packages/server/src/crypto/p256.js';
import { createStamp, parseStamp, verifyStampSignature } from '../../packages/server/src/crypto/stamp.js';
import { percentile, type Measurement, type Row } from '../lib/load.js';
import { progress, STAMP_VERIFICATIONS } from '../lib/settings.js';

/**
 * The stamp check on the hot path, in process: parse the Service-Wallet-Signature header and verify
 * the ECDSA signature over the payload, beside node's verify alone on the same key, payload and
 * signature (the ceiling). Bounded by STAMP_VERIFICATIONS.
 */
export function benchStampVerification(): Row[] {
  const key = generateP256KeyPair();
  const payload = JSON.stringify({ type: 'QUOTE_EXECUTE', quoteId: newId('Quote'), totalSendingAmount: '10000', expiresAt: new Date().toISOString() });
  const header = createStamp(key.privateKey, payload);
  const der = Buffer.from(parseStamp(header)!.signature, 'hex');
  const keyObject = publicKeyObject(key.publicKey);
  const time = (scenario: string, once: () => boolean): Measurement => {
    progress(`[in process] ${scenario}: ${STAMP_VERIFICATIONS} verifications`);
    const durations: number[] = [];
    const started = performance.now();
    for (let i = 0; i < STAMP_VERIFICATIONS; i++) {
      const t0 = performance.now();
      if (!once()) throw new Error(`${scenario}: a valid stamp did not verify`);
      durations.push(performance.now() - t0);
    }
    const seconds = (performance.now() - started) / 1000;
    durations.sort((a, b) => a - b);
    const row = { database: 'in process', scenario, reqPerSec: STAMP_VERIFICATIONS / seconds, p50: percentile(durations, 0.5), p99: percentile(durations, 0.99), failures: 0, fractional: true };
    progress(`[in process] ${scenario}: ${Math.round(row.reqPerSec)}/s, p50 ${row.p50.toFixed(3)} ms, p99 ${row.p99.toFixed(3)} ms`);
    return row;
  };
  const ceiling = time('node crypto.verify alone (P-256, DER)', () => ecVerify('sha256', Buffer.from(payload, 'utf8'), { key: keyObject, dsaEncoding: 'der' }, der));
  const stamp = time('stamp check: parse header + verify', () => {
    const parsed = parseStamp(header);
    return parsed !== undefined && parsed.publicKey === key.publicKey && verifyStampSignature(parsed, payload);
  });
  return [{ ...stamp, ceiling }, ceiling];
}
