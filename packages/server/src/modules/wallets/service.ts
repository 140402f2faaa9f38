import type { Infrastructure } from '../../contract/container.js';
import { createOidcVerifier, OidcError } from '../../lib/oidc.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import type { CardSpend } from '../cards/card-transactions.js';
import type { Executor } from '../../db/schema.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { createDelegatedKeyService } from './delegated-keys.js';
import type { InternalAccountId } from '../../core/ids.js';
import { createCredentialService } from './credentials.js';
import { oidcTokenInvalid } from './errors.js';
import { createBundleSigningKey } from './keys.js';
import { createLoginService } from './login.js';
import { createSessionService } from './sessions.js';
import { createWalletAccountService } from './wallet-accounts.js';
import { createDemoLinks } from './demo-page.js';

export type WalletService = ReturnType<typeof createWalletService>;

/**
 * Embedded wallets: their accounts, credentials, logins and sessions. What they check at other
 * modules' actions (signatures, card spends, contact changes) is declared as gates in index.ts.
 */
export function createWalletService(
  deps: Pick<Infrastructure, 'db' | 'sealer' | 'ledger' | 'providers'> & { platforms: PlatformService; signedRequests: SignedRequestService },
) {
  const { db, sealer, ledger, providers, platforms, signedRequests } = deps;
  const keys = createBundleSigningKey({ db, sealer });
  const oidc = createOidcVerifier({ outbound: providers.outbound });
  const shared = {
    db,
    sealer,
    messenger: providers.messenger,
    codes: providers.otp,
    keys,
    signedRequests,
    settings: (executor: Parameters<PlatformService['walletSettings']>[0], scope: { platformId: Parameters<PlatformService['walletSettings']>[1] }) => platforms.walletSettings(executor, scope.platformId),
    verifyOidc: async (token: string, settings: Awaited<ReturnType<PlatformService['walletSettings']>>, now: Date, nonce?: string) => {
      try {
        return await oidc.verify(token, { issuers: settings.oidcIssuers, now, ...(nonce !== undefined ? { nonce } : {}), allowUnsignedFromUntrusted: providers.oidcTrust.acceptsUnsignedFromUntrusted });
      } catch (error) {
        if (error instanceof OidcError) throw oidcTokenInvalid(error.reason, error.message);
        throw error;
      }
    },
  };
  const accounts = createWalletAccountService({ sealer, ledger, platforms, signedRequests, keys });
  const delegatedKeys = createDelegatedKeyService({ db, sealer, signedRequests });
  const walletAccounts = knownWalletAccounts();
  return {
    keys,
    delegatedKeys,
    demoLinks: createDemoLinks(db),
    settings: (platformId: Parameters<PlatformService['walletSettings']>[1]) => platforms.walletSettings(db, platformId),
    credentials: createCredentialService(shared),
    login: createLoginService(shared),
    sessions: createSessionService({ db, signedRequests, lifetimeSeconds: async (uow) => (await platforms.walletSettings(uow.tx, uow.platformId)).sessionLifetimeSeconds }),
    accounts,
    /** The `card.spend` gate: a card spends an embedded wallet only through an ACTIVE delegated key, within its limit. */
    async spendableByCard(uow: UnitOfWork, { card, sources, amount }: CardSpend): Promise<InternalAccountId[]> {
      const wallets = await walletAccounts.among(uow.tx, sources);
      const allowed: InternalAccountId[] = [];
      for (const source of sources) {
        if (!wallets.has(source) || (await delegatedKeys.authorizesSpend(uow.tx, card, source, card.currency, amount))) allowed.push(source);
      }
      return allowed;
    },
  };
}

/** How many accounts `knownWalletAccounts` remembers before it starts over. */
const KNOWN_ACCOUNTS = 10_000;

/**
 * Which internal accounts are embedded wallets' (a card's funding sources, at every authorization).
 * An account is a wallet's from its creation on (the wallet's row is written in the same transaction
 * as its account, and never removed), so the answer is kept: a card authorized again reads nothing.
 */
export function knownWalletAccounts() {
  const known = new Map<InternalAccountId, boolean>();
  return {
    async among(executor: Executor, accounts: readonly InternalAccountId[]): Promise<Set<InternalAccountId>> {
      if (known.size >= KNOWN_ACCOUNTS) known.clear();
      const wallets = new Set<InternalAccountId>();
      const unknown: InternalAccountId[] = [];
      for (const account of accounts) {
        const wallet = known.get(account);
        if (wallet === undefined) unknown.push(account);
        else if (wallet) wallets.add(account);
      }
      if (unknown.length === 0) return wallets;
      const rows = await executor.selectFrom('wallets').select('account_id').where('account_id', 'in', unknown).execute();
      const found = new Set<InternalAccountId>(rows.map((row) => row.account_id));
      for (const account of unknown) {
        known.set(account, found.has(account));
        if (found.has(account)) wallets.add(account);
      }
      return wallets;
    },
  };
}
