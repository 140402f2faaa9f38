import type { InternalAccountId } from '../../core/ids.js';
import type { Scope } from '../../core/unit-of-work.js';
import type { AccountFilters, Ledger } from '../../ledger/index.js';
import { internalAccountView, type InternalAccountView } from '../../ledger/accounts.js';
import type { Db, InternalAccountType } from '../../db/schema.js';

export type AccountService = ReturnType<typeof createAccountService>;

/** What a platform reads of internal accounts; the ledger owns them and moves their money. */
export function createAccountService({ db, ledger }: { db: Db; ledger: Ledger }) {
  return {
    async get({ platformId }: Scope, accountId: InternalAccountId): Promise<InternalAccountView> {
      return internalAccountView(await ledger.internalAccount(db, platformId, accountId));
    },
    listCustomerAccounts: ({ platformId }: Scope, filters: AccountFilters) => ledger.listCustomerAccounts(platformId, filters),
    listPlatformAccounts: ({ platformId }: Scope, filters: { currency?: string | undefined; type?: InternalAccountType | undefined }) => ledger.listPlatformAccounts(platformId, filters),
  };
}
