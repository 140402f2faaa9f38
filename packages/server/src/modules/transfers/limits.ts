import { sql } from 'kysely';
import { defineError } from '../../core/errors.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { CURRENCY_CODES } from '../../lib/currencies.js';

/**
 * The operator's limits on money leaving a platform, per currency: the largest single payment and
 * the most a platform may send out of a currency in one day (UTC, by the platform's clock). They
 * are the operator's risk controls, not the platform's own settings (its minAmount and maxAmount
 * are those, answered with AMOUNT_OUT_OF_RANGE), so they come from the environment:
 *
 *   MONETA_TRANSFERS_MAX_TRANSACTION_AMOUNT=USD:10000000,EUR:5000000
 *   MONETA_TRANSFERS_DAILY_VOLUME_LIMIT=USD:100000000
 *
 * A currency not listed has no such limit.
 */
export interface LimitSettings {
  maxTransaction: ReadonlyMap<string, bigint>;
  dailyVolume: ReadonlyMap<string, bigint>;
}

declare module '../../contract/module.js' {
  interface ModuleSettings {
    transfers: LimitSettings;
  }
}

const MAX_TRANSACTION = 'MONETA_TRANSFERS_MAX_TRANSACTION_AMOUNT';
const DAILY_VOLUME = 'MONETA_TRANSFERS_DAILY_VOLUME_LIMIT';

function perCurrency(environment: Readonly<Record<string, string | undefined>>, name: string): Map<string, bigint> {
  const raw = environment[name]?.trim() ?? '';
  const limits = new Map<string, bigint>();
  if (raw === '') return limits;
  for (const entry of raw.split(',')) {
    const match = /^\s*([A-Z0-9]{3,5}):([1-9][0-9]{0,17})\s*$/.exec(entry);
    if (!match || !CURRENCY_CODES.includes(match[1]!) || limits.has(match[1]!)) {
      throw new Error(`${name} must list CURRENCY:AMOUNT pairs (a known currency once each, a positive whole number of minor units), separated by commas; "${entry.trim()}" is not one`);
    }
    limits.set(match[1]!, BigInt(match[2]!));
  }
  return limits;
}

export function readLimitSettings(environment: Readonly<Record<string, string | undefined>>): LimitSettings {
  return { maxTransaction: perCurrency(environment, MAX_TRANSACTION), dailyVolume: perCurrency(environment, DAILY_VOLUME) };
}

export const transactionSizeLimitExceeded = defineError(
  { status: 400, code: 'TRANSACTION_SIZE_LIMIT_EXCEEDED', description: 'The amount exceeds the largest single payment the service allows out of this currency' },
  (field: string, currency: string, amount: bigint, limit: bigint) => ({
    message: `${field} (${amount} ${currency} minor units) exceeds the largest single payment allowed out of ${currency}, ${limit}`,
    details: { field, currency, amount: amount.toString(), maxTransactionAmount: limit.toString() },
  }),
);

export const dailyVolumeLimitExceeded = defineError(
  { status: 429, code: 'DAILY_VOLUME_LIMIT_EXCEEDED', description: 'The payment would take the platform past its daily volume limit for this currency; nothing was moved' },
  (currency: string, amount: bigint, limit: bigint, day: string) => ({
    message: `Sending ${amount} ${currency} minor units would exceed today's (${day} UTC) volume limit of ${limit}; try again tomorrow or with less`,
    details: { currency, amount: amount.toString(), dailyVolumeLimit: limit.toString(), day },
  }),
);

export const LIMIT_ERRORS = [transactionSizeLimitExceeded, dailyVolumeLimitExceeded];

export type Limits = ReturnType<typeof createLimits>;

export function createLimits(settings: LimitSettings) {
  return {
    /** 400 TRANSACTION_SIZE_LIMIT_EXCEEDED when one payment out of `currency` is larger than allowed. */
    checkSize(currency: string, amount: bigint, field: string): void {
      const limit = settings.maxTransaction.get(currency);
      if (limit !== undefined && amount > limit) throw transactionSizeLimitExceeded(field, currency, amount, limit);
    },

    /**
     * Counts `amount` against the platform's volume out of `currency` today, in the caller's unit
     * of work, or refuses it with 429 DAILY_VOLUME_LIMIT_EXCEEDED. One conditional upsert: the row
     * is locked by the first writer, and a concurrent one re-reads it after that commits, so two
     * payments can never both pass on the same remaining volume. A payment that later fails keeps
     * its count (the volume is what was sent, not what arrived).
     */
    async consume(uow: UnitOfWork, currency: string, amount: bigint): Promise<void> {
      const limit = settings.dailyVolume.get(currency);
      if (limit === undefined) return;
      const day = uow.now.toISOString().slice(0, 10);
      if (amount > limit) throw dailyVolumeLimitExceeded(currency, amount, limit, day);
      const counted = await uow.tx
        .insertInto('daily_volumes')
        .values({ platform_id: uow.platformId, currency, day, used_minor: amount })
        .onConflict((oc) =>
          oc
            .columns(['platform_id', 'currency', 'day'])
            .doUpdateSet({ used_minor: sql<bigint>`daily_volumes.used_minor + excluded.used_minor` })
            .where(sql<boolean>`daily_volumes.used_minor + excluded.used_minor <= ${limit}`),
        )
        .returning('used_minor')
        .executeTakeFirst();
      if (!counted) throw dailyVolumeLimitExceeded(currency, amount, limit, day);
    },
  };
}
