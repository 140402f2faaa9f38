import { PubKeyResponse } from '@uma-sdk/core';
import type { PlatformId } from '../../core/ids.js';
import type { Db, Executor } from '../../db/schema.js';
import type { Sealer } from '../../lib/sealed.js';
import { generateSecp256k1, secp256k1Scalar } from '../../crypto/secp256k1.js';

export interface UmaKeyPair {
  privateKey: Buffer;
  /** Uncompressed secp256k1, hex. */
  publicKey: string;
}

export type UmaKeys = ReturnType<typeof createUmaKeys>;

const DOMAIN_MEMORY_MS = 60_000;

const context = (platformId: PlatformId) => `uma-key:${platformId}`;

/**
 * Each platform's UMA key pair (secp256k1, as UMA signs), made on first use and kept sealed. The same
 * pair signs and is published as the encryption key (travel-rule data is not sent today).
 */
export function createUmaKeys({ db, sealer }: { db: Db; sealer: Sealer }) {
  /**
   * Public keys and the domains they answer for, remembered by this process as it uses them. A peer
   * asks for our keys while we wait on it inside a transaction (a lookup inside a quote, a
   * settlement job): on PGlite that transaction holds the only connection, so the answer must not
   * need the database. Public data only; the private key is opened from storage on each use.
   */
  const publicKeys = new Map<PlatformId, string>();
  const domains = new Map<string, { platformId: PlatformId; until: number }>();
  /**
   * The platform's stored pair, made if it has none, without opening the private key. Through the
   * caller's executor: inside a unit of work, its transaction (PGlite has one connection).
   */
  async function ensure(executor: Executor, platformId: PlatformId, at: Date): Promise<{ private_key_sealed: string; public_key: string }> {
    let row = await executor.selectFrom('uma_keys').select(['private_key_sealed', 'public_key']).where('platform_id', '=', platformId).executeTakeFirst();
    if (!row) {
      const pair = generateSecp256k1();
      const values = { platform_id: platformId, private_key_sealed: sealer.seal(pair.privateKey.toString('hex'), context(platformId)), public_key: pair.publicKey, created_at: at };
      // Two first uses at once: one key wins and both use it.
      await executor.insertInto('uma_keys').values(values).onConflict((oc) => oc.column('platform_id').doNothing()).execute();
      row = await executor.selectFrom('uma_keys').select(['private_key_sealed', 'public_key']).where('platform_id', '=', platformId).executeTakeFirstOrThrow();
    }
    publicKeys.set(platformId, row.public_key);
    return row;
  }

  async function keyPair(executor: Executor, platformId: PlatformId, at: Date): Promise<UmaKeyPair> {
    const row = await ensure(executor, platformId, at);
    return { privateKey: secp256k1Scalar(sealer.open(row.private_key_sealed, context(platformId))), publicKey: row.public_key };
  }
  return {
    keyPair,
    /** Makes the platform's pair if it has none (a customer's creation): nothing is opened, nothing signed. */
    ensure: async (executor: Executor, platformId: PlatformId, at: Date): Promise<void> => void (await ensure(executor, platformId, at)),
    /** What /.well-known/lnurlpubkey answers: the raw keys (no certificate chain; see the notes). */
    async published(platformId: PlatformId, at: Date): Promise<string> {
      const publicKey = publicKeys.get(platformId) ?? (await ensure(db, platformId, at)).public_key;
      return new PubKeyResponse(undefined, undefined, publicKey, publicKey).toJsonString();
    },
    /** The platform signs as `domain` (remembered for a minute, so its public endpoints answer without the database meanwhile). */
    signsAs(domain: string, platformId: PlatformId): void {
      domains.set(domain.toLowerCase(), { platformId, until: Date.now() + DOMAIN_MEMORY_MS });
    },
    /** After a key rotation (`npm run cli -- reseal`): re-seals, with the current key, every private key sealed with an earlier one. */
    async reseal(): Promise<number> {
      const rows = await db.selectFrom('uma_keys').select(['platform_id', 'private_key_sealed']).execute();
      let resealed = 0;
      for (const row of rows.filter((r) => !sealer.isCurrent(r.private_key_sealed))) {
        const opened = sealer.open(row.private_key_sealed, context(row.platform_id));
        await db.updateTable('uma_keys').set({ private_key_sealed: sealer.seal(opened, context(row.platform_id)) }).where('platform_id', '=', row.platform_id).execute();
        resealed++;
      }
      return resealed;
    },
    platformSigningAs(domain: string): PlatformId | undefined {
      const known = domains.get(domain.toLowerCase());
      return known && known.until > Date.now() ? known.platformId : undefined;
    },
  };
}
