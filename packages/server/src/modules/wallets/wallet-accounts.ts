import { randomBytes } from 'node:crypto';
import type { CustomerId, InternalAccountId } from '../../core/ids.js';
import { newId } from '../../core/ids.js';
import type { SignatureRequired, SignedRequestChallenge, WalletSignature } from '../../core/signature.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Ledger } from '../../ledger/index.js';
import { internalAccountView, type InternalAccountView } from '../../ledger/accounts.js';
import { sealExportBundle } from '../../crypto/bundles.js';
import type { Sealer } from '../../lib/sealed.js';
import type { PlatformService } from '../platforms/service.js';
import type { SignedRequestService } from '../signatures/service.js';
import { contactTaken } from './errors.js';
import type { BundleSigningKeys } from './keys.js';
import { loadWallet, requireClientKey } from './repo.js';

export function secretContext(accountId: string): string {
  return `wallet-secret:${accountId}`;
}

export type WalletAccountService = ReturnType<typeof createWalletAccountService>;

export function createWalletAccountService({
  sealer,
  ledger,
  platforms,
  signedRequests,
  keys,
}: {
  sealer: Sealer;
  ledger: Ledger;
  platforms: PlatformService;
  signedRequests: SignedRequestService;
  keys: BundleSigningKeys;
}) {
  async function accountView(uow: UnitOfWork, accountId: InternalAccountId, privateEnabled: boolean): Promise<InternalAccountView & { privateEnabled: boolean }> {
    return { ...internalAccountView(await ledger.internalAccount(uow.tx, uow.platformId, accountId)), privateEnabled };
  }

  return {
    /**
     * Opens a new customer's embedded wallet when the platform has enabled embedded wallets: an
     * EMBEDDED_WALLET account in the configured currency, its secret (sealed), and an EMAIL_OTP
     * credential tied to the customer's email when there is one (the code is sent on the first challenge).
     */
    async provision(uow: UnitOfWork, customer: { id: CustomerId; email: string | null; holderName: string }): Promise<void> {
      const settings = await platforms.walletConfig(uow.tx, uow.platformId);
      if (!settings) return;
      const accountId = await ledger.openWalletAccount(uow.tx, { platformId: uow.platformId, id: customer.id, holderName: customer.holderName }, settings.walletCurrency, uow.now);
      if (!accountId) return;
      await uow.tx
        .insertInto('wallets')
        .values({
          account_id: accountId,
          platform_id: uow.platformId,
          customer_id: customer.id,
          secret_sealed: sealer.seal(randomBytes(32).toString('hex'), secretContext(accountId)),
          created_at: uow.now,
          updated_at: uow.now,
        })
        .execute();
      if (customer.email) {
        await uow.tx
          .insertInto('auth_credentials')
          .values({ id: newId('AuthMethod'), platform_id: uow.platformId, account_id: accountId, type: 'EMAIL_OTP', nickname: customer.email, created_at: uow.now, updated_at: uow.now })
          .execute();
      }
    },

    /** PATCH /internal-accounts/{id}: the wallet's privacy setting, signed by one of its sessions. */
    async update(uow: UnitOfWork, accountId: InternalAccountId, patch: { privateEnabled?: boolean | undefined }, signature: WalletSignature): Promise<(InternalAccountView & { privateEnabled: boolean }) | SignatureRequired> {
      const wallet = await loadWallet(uow.tx, uow.platformId, accountId, true, 'id');
      const challenge = await signedRequests.authorize(uow, { action: 'WALLET_UPDATE', subjectId: accountId, accountIds: [accountId], body: patch }, signature);
      if (challenge) return challenge;
      const privateEnabled = patch.privateEnabled ?? wallet.private_enabled;
      await uow.tx.updateTable('wallets').set({ private_enabled: privateEnabled, updated_at: uow.now }).where('account_id', '=', accountId).execute();
      return accountView(uow, accountId, privateEnabled);
    },

    /** The wallet's secret, sealed to the client's key in a signed export bundle, on a signed retry that names that key. */
    async export(uow: UnitOfWork, accountId: InternalAccountId, clientPublicKey: string, signature: WalletSignature): Promise<{ id: string; encryptedWalletCredentials: string } | SignatureRequired> {
      const key = requireClientKey(clientPublicKey);
      const wallet = await loadWallet(uow.tx, uow.platformId, accountId, true, 'id');
      const challenge = await signedRequests.authorize(uow, { action: 'WALLET_EXPORT', subjectId: accountId, accountIds: [accountId], body: { clientPublicKey: key } }, signature);
      if (challenge) return challenge;
      const secret = Buffer.from(sealer.open(wallet.secret_sealed, secretContext(accountId)), 'hex');
      const bundleKey = await keys.get(uow.tx);
      return { id: accountId, encryptedWalletCredentials: await sealExportBundle(secret, key, accountId, bundleKey.privateKey) };
    },

    /**
     * A customer's email or phone that OTP credentials of its wallets are tied to changes only with a
     * signature from one of those wallets; on the signed retry the credentials follow the new contact.
     */
    async approveContactChange(
      uow: UnitOfWork,
      customer: { id: CustomerId; email: string | null; phone_number: string | null },
      patch: { email?: string | undefined; phoneNumber?: string | undefined },
      signature: WalletSignature | undefined,
    ): Promise<SignedRequestChallenge | undefined> {
      const field = patch.email !== undefined ? 'email' : 'phoneNumber';
      const type = field === 'email' ? 'EMAIL_OTP' : 'SMS_OTP';
      const value = field === 'email' ? patch.email! : patch.phoneNumber!;
      if (value === (field === 'email' ? customer.email : customer.phone_number)) return undefined;
      const tied = await uow.tx
        .selectFrom('auth_credentials as c')
        .innerJoin('wallets as w', 'w.account_id', 'c.account_id')
        .select(['c.id', 'c.account_id'])
        .where('w.customer_id', '=', customer.id)
        .where('c.type', '=', type)
        .where('c.revoked_at', 'is', null)
        .execute();
      if (tied.length === 0) return undefined;
      const taken = await uow.tx
        .selectFrom('auth_credentials as c')
        .innerJoin('wallets as w', 'w.account_id', 'c.account_id')
        .select('c.id')
        .where('c.platform_id', '=', uow.platformId)
        .where('c.type', '=', type)
        .where('c.revoked_at', 'is', null)
        .where('c.nickname', '=', value)
        .where('w.customer_id', '!=', customer.id)
        .executeTakeFirst();
      if (taken) throw contactTaken(field);
      const accountIds = [...new Set(tied.map((t) => t.account_id))];
      const challenge = await signedRequests.authorize(uow, { action: 'CUSTOMER_CONTACT_UPDATE', subjectId: customer.id, accountIds, body: { [field]: value, credentials: tied.map((t) => t.id).sort() } }, signature ?? {});
      if (challenge) return challenge.challenge;
      await uow.tx.updateTable('auth_credentials').set({ nickname: value, updated_at: uow.now }).where('id', 'in', tied.map((t) => t.id)).execute();
      // Codes sent to the old contact stop working.
      await uow.tx.updateTable('auth_challenges').set({ superseded_at: uow.now }).where('credential_id', 'in', tied.map((t) => t.id)).where('used_at', 'is', null).where('superseded_at', 'is', null).execute();
      return undefined;
    },
  };
}
