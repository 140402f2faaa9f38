import type { Infrastructure } from '../../container.js';
import { createOidcVerifier, OidcError } from '../../lib/oidc.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import type { CardTransactionService } from '../cards/card-transactions.js';
import { createDelegatedKeyService } from './delegated-keys.js';
import type { InternalAccountId } from '../../core/ids.js';
import { createCredentialService } from './credentials.js';
import { oidcTokenInvalid } from './errors.js';
import { createBundleSigningKey } from './keys.js';
import { createLoginService } from './login.js';
import { createSessionService, createSessionVerifier } from './sessions.js';
import { createWalletAccountService } from './wallet-accounts.js';
import { createDemoLinks } from './demo-page.js';

export type WalletService = ReturnType<typeof createWalletService>;

/**
 * Embedded wallets: their accounts, credentials, logins and sessions. Creating it plugs the session
 * check into the signed-request flow and the wallet hooks into customers.
 */
export function createWalletService(
  deps: Pick<Infrastructure, 'db' | 'sandbox' | 'sealer' | 'ledger' | 'providers'> & { platforms: PlatformService; customers: CustomerService; signedRequests: SignedRequestService; cardTransactions: CardTransactionService },
) {
  const { db, sandbox, sealer, ledger, providers, platforms, customers, signedRequests, cardTransactions } = deps;
  const keys = createBundleSigningKey({ db, sealer });
  const oidc = createOidcVerifier({ outbound: providers.outbound });
  const shared = {
    db,
    sandbox,
    sealer,
    messenger: providers.messenger,
    keys,
    signedRequests,
    settings: (executor: Parameters<PlatformService['walletSettings']>[0], scope: { platformId: Parameters<PlatformService['walletSettings']>[1] }) => platforms.walletSettings(executor, scope.platformId),
    verifyOidc: async (token: string, settings: Awaited<ReturnType<PlatformService['walletSettings']>>, now: Date, nonce?: string) => {
      try {
        return await oidc.verify(token, { issuers: settings.oidcIssuers, now, ...(nonce !== undefined ? { nonce } : {}), allowUnsignedFromUntrusted: sandbox });
      } catch (error) {
        if (error instanceof OidcError) throw oidcTokenInvalid(error.reason, error.message);
        throw error;
      }
    },
  };
  const accounts = createWalletAccountService({ sealer, ledger, platforms, signedRequests, keys });
  const delegatedKeys = createDelegatedKeyService({ db, sealer, signedRequests });
  const service = {
    keys,
    delegatedKeys,
    demoLinks: createDemoLinks(db),
    settings: (platformId: Parameters<PlatformService['walletSettings']>[1]) => platforms.walletSettings(db, platformId),
    credentials: createCredentialService(shared),
    login: createLoginService(shared),
    sessions: createSessionService({ db, signedRequests, lifetimeSeconds: async (uow) => (await platforms.walletSettings(uow.tx, uow.platformId)).sessionLifetimeSeconds }),
    accounts,
  };
  signedRequests.useVerifier(createSessionVerifier());
  // A card spends an embedded wallet only through an ACTIVE delegated key, within its limit.
  cardTransactions.useSpendGate(async (tx, card, sources, amount) => {
    const wallets = new Set((await tx.selectFrom('wallets').select('account_id').where('account_id', 'in', sources as InternalAccountId[]).execute()).map((w) => w.account_id));
    const allowed: InternalAccountId[] = [];
    for (const source of sources) {
      if (!wallets.has(source) || (await delegatedKeys.authorizesSpend(tx, card, source, card.currency, amount))) allowed.push(source);
    }
    return allowed;
  });
  customers.useWalletHooks({ provision: (uow, customer) => accounts.provision(uow, customer), approveContactChange: (uow, customer, patch, signature) => accounts.approveContactChange(uow, customer, patch, signature) });
  return service;
}
