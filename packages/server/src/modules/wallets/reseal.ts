import type { InternalAccountId } from '../../core/ids.js';
import type { Db } from '../../db/schema.js';
import type { Sealer } from '../../lib/sealed.js';
import type { DelegatedKeyService } from './delegated-keys.js';
import type { BundleSigningKeys } from './keys.js';
import { targetContext } from './otp.js';
import { secretContext } from './wallet-accounts.js';

/**
 * Re-seals, with the current encryption key, what the wallet module keeps sealed: wallet secrets,
 * the bundle-signing key, delegated keys and the target keys of OTP codes still open.
 */
export async function resealWalletData(
  db: Db,
  sealer: Sealer,
  { keys, delegatedKeys }: { keys: BundleSigningKeys; delegatedKeys: DelegatedKeyService },
  now: Date,
): Promise<{ wallets: number; serviceKeys: number; delegatedKeys: number; otpTargets: number }> {
  let wallets = 0;
  let after = '';
  for (;;) {
    const batch = await db.selectFrom('wallets').select(['account_id', 'secret_sealed']).where('account_id', '>', after as InternalAccountId).orderBy('account_id').limit(200).execute();
    if (batch.length === 0) break;
    for (const wallet of batch.filter((w) => !sealer.isCurrent(w.secret_sealed))) {
      const context = secretContext(wallet.account_id);
      await db.updateTable('wallets').set({ secret_sealed: sealer.seal(sealer.open(wallet.secret_sealed, context), context) }).where('account_id', '=', wallet.account_id).execute();
      wallets++;
    }
    after = batch[batch.length - 1]!.account_id;
  }
  let otpTargets = 0;
  const open = await db.selectFrom('auth_challenges').select(['id', 'target_private_sealed']).where('target_private_sealed', 'is not', null).where('used_at', 'is', null).where('expires_at', '>', now).execute();
  for (const challenge of open.filter((c) => !sealer.isCurrent(c.target_private_sealed!))) {
    const context = targetContext(challenge.id);
    await db.updateTable('auth_challenges').set({ target_private_sealed: sealer.seal(sealer.open(challenge.target_private_sealed!, context), context) }).where('id', '=', challenge.id).execute();
    otpTargets++;
  }
  // Spent or expired codes' target keys are of no further use: dropped rather than re-sealed.
  await db.updateTable('auth_challenges').set({ target_private_sealed: null }).where('target_private_sealed', 'is not', null).where((eb) => eb.or([eb('used_at', 'is not', null), eb('expires_at', '<=', now)])).execute();
  return { wallets, serviceKeys: await keys.reseal(), delegatedKeys: await delegatedKeys.reseal(), otpTargets };
}
