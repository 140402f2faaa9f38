import type { Db } from '../../db/schema.js';
import type { CustomerId, ExternalAccountId, PlatformId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import type { RateSource } from '../../fx/rate-source.js';
import { requireCurrency, type Currency } from '../../lib/currencies.js';
import { sha256Hex } from '../../lib/secrets.js';
import { customerNotFound } from '../customers/errors.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import type { CustomerService } from '../customers/service.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import type { PlatformService } from '../platforms/service.js';
import { firstAccountCurrency } from '../../ledger/queries.js';

export interface ReceiverLookup {
  accountId: string;
  lookupId: string;
  supportedCurrencies: { currency: Currency; estimatedExchangeRate: number; min: bigint; max: bigint }[];
  requiredPayerDataFields: { name: string; mandatory: boolean }[];
}

/** The currency a sender pays from: its first internal account's; the platform (no sender) pays from USD. */
const DEFAULT_SENDER_CURRENCY = 'USD';

/**
 * Lookups are not stored (nothing about them needs keeping), so the id names what was looked up:
 * the same account seen from the same sender currency always has the same lookup id.
 */
function lookupId(platformId: PlatformId, accountId: ExternalAccountId, senderCurrency: string): string {
  const hex = sha256Hex(`${platformId}|${accountId}|${senderCurrency}`);
  return `Lookup:${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export type ReceiverService = ReturnType<typeof createReceiverService>;

/** What an external account accepts and roughly what it costs to reach it, before a quote locks anything. */
export function createReceiverService(deps: {
  db: Db;
  customers: Pick<CustomerService, 'findActive'>;
  externalAccounts: ExternalAccountService;
  platforms: PlatformService;
  rates: RateSource;
}) {
  const { db } = deps;

  async function senderCurrency(platformId: PlatformId, sender: { customerId?: CustomerId | undefined; senderUmaAddress?: string | undefined }): Promise<string> {
    if (sender.customerId === undefined && sender.senderUmaAddress === undefined) return DEFAULT_SENDER_CURRENCY;
    const customer = await deps.customers.findActive(db, platformId, sender.customerId !== undefined ? { id: sender.customerId } : { umaAddress: sender.senderUmaAddress! });
    if (!customer) throw customerNotFound();
    const currency = await firstAccountCurrency(db, platformId, customer.id);
    return currency ?? DEFAULT_SENDER_CURRENCY;
  }

  return {
    async lookupExternalAccount({ platformId, now: at }: Scope, accountId: ExternalAccountId, sender: { customerId?: CustomerId | undefined; senderUmaAddress?: string | undefined }): Promise<ReceiverLookup> {
      const account = await deps.externalAccounts.findAny(db, platformId, accountId);
      if (!account) throw externalAccountNotFound();
      const from = await senderCurrency(platformId, sender);
      const rate = from === account.currency ? '1' : (await deps.rates.rate(from, account.currency, at)).rate.toFixed();
      const limits = await deps.platforms.currencyLimits(db, platformId, account.currency);
      const fields = await deps.platforms.requiredCounterpartyFields(db, platformId, account.currency);
      return {
        accountId: account.id,
        lookupId: lookupId(platformId, account.id, from),
        supportedCurrencies: limits
          ? [{ currency: requireCurrency(account.currency), estimatedExchangeRate: Number(rate), min: BigInt(limits.minAmount), max: BigInt(limits.maxAmount) }]
          : [],
        requiredPayerDataFields: fields,
      };
    },
  };
}
