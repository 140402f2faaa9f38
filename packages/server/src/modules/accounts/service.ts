import { invalidInput } from '../../core/errors.js';
import type { InternalAccountId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import type { AccountFilters, Ledger } from '../../ledger/index.js';
import { internalAccountView, type InternalAccountView } from '../../ledger/accounts.js';
import type { Db, InternalAccountType } from '../../db/schema.js';
import { currencyAmount, type CurrencyAmount } from '../../lib/money.js';

export type AccountService = ReturnType<typeof createAccountService>;

export interface BalanceHistoryFilters {
  from?: string | undefined;
  to?: string | undefined;
  limit?: number | undefined;
}

export interface BalanceHistoryView {
  accountId: InternalAccountId;
  data: { at: string; balance: CurrencyAmount; totalBalance: CurrencyAmount }[];
  hasMore: boolean;
}

/** What a platform reads of internal accounts; the ledger owns them and moves their money. */
export function createAccountService({ db, ledger }: { db: Db; ledger: Ledger }) {
  return {
    async get({ platformId }: Scope, accountId: InternalAccountId): Promise<InternalAccountView> {
      return internalAccountView(await ledger.internalAccount(db, platformId, accountId));
    },
    listCustomerAccounts: ({ platformId }: Scope, filters: AccountFilters) => ledger.listCustomerAccounts(platformId, filters),
    listPlatformAccounts: ({ platformId }: Scope, filters: { currency?: string | undefined; type?: InternalAccountType | undefined }) => ledger.listPlatformAccounts(platformId, filters),

    /** The account's available and posted balance after each change, from the ledger's postings and holds. */
    async balanceHistory({ platformId }: Scope, accountId: InternalAccountId, filters: BalanceHistoryFilters): Promise<BalanceHistoryView> {
      const from = filters.from === undefined ? undefined : new Date(filters.from);
      const to = filters.to === undefined ? undefined : new Date(filters.to);
      if (from && to && from.getTime() > to.getTime()) throw invalidInput([{ field: 'from', message: 'from must not be after to' }]);
      // 404 for an account of another platform (or none), before anything else is read.
      const account = await ledger.internalAccount(db, platformId, accountId);
      const { points, hasMore } = await ledger.balanceHistory(platformId, accountId, { from, to, limit: filters.limit ?? 100 });
      return {
        accountId,
        data: points.map((p) => ({ at: p.at.toISOString(), balance: currencyAmount(p.total - p.held, account.currency), totalBalance: currencyAmount(p.total, account.currency) })),
        hasMore,
      };
    },
  };
}
