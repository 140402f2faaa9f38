import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Db, Executor } from '../../db/schema.js';
import type { Sealer } from '../../lib/sealed.js';
import { bundleSigningPublicKey } from '../../crypto/bundles.js';

const NAME = 'otp-bundle-signing';

export interface BundleSigningKey {
  privateKey: KeyObject;
  /** Lowercase uncompressed hex: what clients pin (enclaveQuorumPublic). */
  publicKey: string;
}

/**
 * The installation's bundle-signing key: it signs every OTP target bundle and export bundle, and
 * clients pin its public key. Made once, on first use, and kept sealed; stable across restarts.
 */
export function createBundleSigningKey({ db, sealer }: { db: Db; sealer: Sealer }) {
  let loaded: BundleSigningKey | undefined;

  async function load(executor: Executor): Promise<BundleSigningKey> {
    let row = await executor.selectFrom('service_keys').selectAll().where('name', '=', NAME).executeTakeFirst();
    if (!row) {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      // Two processes starting at once: the first insert wins and both read it back.
      await executor
        .insertInto('service_keys')
        .values({ name: NAME, public_key: bundleSigningPublicKey(privateKey), secret_sealed: sealer.seal(pem, `service-key:${NAME}`), created_at: new Date() })
        .onConflict((oc) => oc.doNothing())
        .execute();
      row = await executor.selectFrom('service_keys').selectAll().where('name', '=', NAME).executeTakeFirstOrThrow();
      // Made inside a transaction that may still roll back: not remembered until read back committed.
      if (executor !== db) return keyOf(row);
    }
    return (loaded = keyOf(row));
  }

  function keyOf(row: { public_key: string; secret_sealed: string }): BundleSigningKey {
    return { privateKey: createPrivateKey(sealer.open(row.secret_sealed, `service-key:${NAME}`)), publicKey: row.public_key };
  }

  return {
    /**
     * The key, loaded (or made) once per process. Inside a unit of work pass its transaction: PGlite
     * has one connection, and a query outside the open transaction would wait on it forever.
     */
    async get(executor: Executor = db): Promise<BundleSigningKey> {
      return loaded ?? load(executor);
    },
    /** Re-seals the key with the current encryption key (cli reseal). */
    async reseal(): Promise<number> {
      const row = await db.selectFrom('service_keys').selectAll().where('name', '=', NAME).executeTakeFirst();
      if (!row || sealer.isCurrent(row.secret_sealed)) return 0;
      const context = `service-key:${NAME}`;
      await db.updateTable('service_keys').set({ secret_sealed: sealer.seal(sealer.open(row.secret_sealed, context), context) }).where('name', '=', NAME).execute();
      return 1;
    },
  };
}

export type BundleSigningKeys = ReturnType<typeof createBundleSigningKey>;
