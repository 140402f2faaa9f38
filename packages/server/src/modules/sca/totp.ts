import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import { base32 } from '@scure/base';
import type { CustomerId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { otpHash, otpMatches } from '../wallets/otp.js';
import type { ScaDeps } from './support.js';

/**
 * TOTP factors (RFC 6238: SHA-1, 6 digits, 30-second steps, what authenticator apps use), made and
 * checked by otplib. The shared secret is sealed at rest with the installation's key; a code is
 * taken for the current step or one step either side (clock drift), and never for a step already
 * used, so a code seen over a shoulder cannot be replayed.
 */
export const TOTP_ISSUER = 'Moneta';
const TOLERANCE_SECONDS = 30;
const RECOVERY_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const RECOVERY_CODES = 8;

export function totpContext(factorId: string): string {
  return `sca-totp:${factorId}`;
}

export function newTotpSecret(): { base32: string; raw: string } {
  const secret = generateSecret({ length: 20 });
  return { base32: secret, raw: Buffer.from(base32.decode(secret)).toString('hex') };
}

export function totpUri(secret: string, label: string, issuer: string): string {
  return generateURI({ issuer, label, secret });
}

/** The base32 secret from either form the enrolment start returned (hex `secret` or `secretBase32Encoded`). */
export function normalizeSecret(given: string): string | undefined {
  const trimmed = given.replace(/\s+/g, '');
  // The raw form is lowercase hex (base32 is uppercase letters and 2-7).
  if (/^[0-9a-f]+$/.test(trimmed) && trimmed.length % 2 === 0 && trimmed.length >= 32) return base32.encode(Buffer.from(trimmed, 'hex'));
  const upper = trimmed.toUpperCase().replace(/=+$/, '');
  return /^[A-Z2-7]+$/.test(upper) ? upper : undefined;
}

/** The time step the code is valid for at `now`, if it is valid and after `afterTimeStep`. */
export async function totpStep(secret: string, code: string, now: Date, afterTimeStep: number | null): Promise<number | undefined> {
  if (!/^[0-9]{6}$/.test(code)) return undefined;
  try {
    const result = await verify({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: TOLERANCE_SECONDS, ...(afterTimeStep !== null ? { afterTimeStep } : {}) });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    return undefined;
  }
}

export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () =>
    Array.from({ length: 3 }, () => Array.from({ length: 4 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('')).join('-'),
  );
}

/**
 * Checks a code against the customer's active TOTP factor (locked for the rest of the unit of
 * work, so two uses of one step race to one): a code of a new step, a one-time recovery code, or
 * in the sandbox its fixed code. True when it was taken.
 */
export async function verifyTotpCode(deps: Pick<ScaDeps, 'sealer' | 'alwaysValidCode'>, uow: UnitOfWork, customerId: CustomerId, code: string): Promise<boolean> {
  const factor = await uow.tx
    .selectFrom('sca_factors')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('customer_id', '=', customerId)
    .where('factor', '=', 'TOTP')
    .where('status', '=', 'ACTIVE')
    .forUpdate()
    .executeTakeFirst();
  if (!factor) return false;
  if (deps.alwaysValidCode !== undefined && code === deps.alwaysValidCode) return true;
  const secret = deps.sealer.open(factor.secret_sealed!, totpContext(factor.id));
  const step = await totpStep(secret, code, uow.now, factor.last_time_step);
  if (step !== undefined) {
    await uow.tx.updateTable('sca_factors').set({ last_time_step: step, updated_at: uow.now }).where('id', '=', factor.id).execute();
    return true;
  }
  const hashes = factor.recovery_code_hashes;
  const used = hashes.find((hash) => otpMatches(factor.id, code.trim().toUpperCase(), hash));
  if (!used) return false;
  await uow.tx
    .updateTable('sca_factors')
    .set({ recovery_code_hashes: JSON.stringify(hashes.filter((h) => h !== used)), updated_at: uow.now })
    .where('id', '=', factor.id)
    .execute();
  return true;
}

export function hashRecoveryCodes(factorId: string, codes: string[]): string[] {
  return codes.map((code) => otpHash(factorId, code));
}
