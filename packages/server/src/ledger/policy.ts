import type { LedgerPurpose } from '../db/schema.js';

/** The platform's bookkeeping accounts, one per purpose and currency (ids `LedgerAccount:`). */
export type SystemPurpose = Exclude<LedgerPurpose, 'CUSTOMER' | 'PLATFORM'>;
export const SYSTEM_PURPOSES: readonly SystemPurpose[] = ['EXTERNAL', 'TRANSIT', 'FEES', 'FX'];

/**
 * EXTERNAL stands for money outside the service (it runs negative: what the outside world has sent
 * in), TRANSIT for money on its way out, FEES for the service's fees earned, FX for the conversion
 * desk (it takes in one currency and pays out another, so it runs negative too). Customer and
 * platform internal accounts never go below zero available.
 */
export function mayGoNegative(purpose: LedgerPurpose): boolean {
  return purpose === 'EXTERNAL' || purpose === 'FX';
}

/**
 * Bookkeeping accounts keep no running balance: every money move touches one of them, so a
 * maintained balance would make its row the lock every request queues on. Their balance is the
 * sum of their postings.
 */
export function keepsRunningBalance(accountId: string): boolean {
  return !accountId.startsWith('LedgerAccount:');
}
