import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Db, Executor, Tx } from '../db/schema.js';
import { newId, type PlatformId } from '../core/ids.js';
import type { Clock } from '../lib/clock.js';
import type { Sealer } from '../lib/sealed.js';

export interface PublicSigningKey {
  id: string;
  publicKey: string;
  status: 'ACTIVE' | 'RETIRING';
  createdAt: string;
  retiresAt?: string;
}

interface LoadedKeys {
  active: { id: string; privateKey: KeyObject };
  /** A key being rotated out: deliveries carry its signature too until `retiresAt`. */
  previous?: { id: string; privateKey: KeyObject; retiresAt: Date };
  loadedAt: number;
}

const CACHE_MS = 5_000;

/** Signs a delivery's exact bytes: ECDSA P-256 with SHA-256, DER, base64. */
export function signBody(body: string, privateKey: KeyObject): string {
  return sign('sha256', Buffer.from(body, 'utf8'), privateKey).toString('base64');
}

export type SigningKeys = ReturnType<typeof createSigningKeys>;

/**
 * Each platform's webhook signing keys: P-256 pairs whose private halves are sealed at rest.
 * Rotation makes a new ACTIVE key and keeps the old one RETIRING for an overlap period, during
 * which deliveries carry both signatures so a receiver can switch keys without missing one.
 */
export function createSigningKeys({ db, sealer, clock }: { db: Db; sealer: Sealer; clock: Clock }) {
  const cache = new Map<string, LoadedKeys>();

  async function insertKey(executor: Executor, platformId: PlatformId, at: Date): Promise<void> {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const id = newId('WebhookKey');
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    await executor
      .insertInto('webhook_signing_keys')
      .values({
        id,
        platform_id: platformId,
        public_key_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
        private_key_sealed: sealer.seal(privatePem, `webhook-key:${id}`),
        status: 'ACTIVE',
        created_at: at,
        retires_at: null,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  async function ensure(executor: Executor, platformId: PlatformId, at: Date): Promise<void> {
    const existing = await executor.selectFrom('webhook_signing_keys').select('id').where('platform_id', '=', platformId).where('status', '=', 'ACTIVE').executeTakeFirst();
    if (!existing) await insertKey(executor, platformId, at);
  }

  function open(row: { id: string; private_key_sealed: string }): KeyObject {
    return createPrivateKey(sealer.open(row.private_key_sealed, `webhook-key:${row.id}`));
  }

  return {
    ensure,

    /** The keys to sign with now (the platform's clock decides the overlap's end, as it set it). */
    async forSigning(platformId: PlatformId): Promise<LoadedKeys> {
      const cached = cache.get(platformId);
      if (cached && Date.now() - cached.loadedAt < CACHE_MS) return cached;
      const now = await clock.now(platformId);
      await ensure(db, platformId, now);
      const rows = await db
        .selectFrom('webhook_signing_keys')
        .select(['id', 'private_key_sealed', 'status', 'retires_at'])
        .where('platform_id', '=', platformId)
        .where('status', 'in', ['ACTIVE', 'RETIRING'])
        .orderBy('created_at', 'desc')
        .execute();
      const activeRow = rows.find((r) => r.status === 'ACTIVE')!;
      const previousRow = rows.find((r) => r.status === 'RETIRING' && r.retires_at !== null && r.retires_at.getTime() > now.getTime());
      const loaded: LoadedKeys = {
        active: { id: activeRow.id, privateKey: open(activeRow) },
        ...(previousRow ? { previous: { id: previousRow.id, privateKey: open(previousRow), retiresAt: previousRow.retires_at! } } : {}),
        loadedAt: Date.now(),
      };
      cache.set(platformId, loaded);
      return loaded;
    },

    /** The verifying keys a platform should accept at `now` (its clock): the active one and any still in overlap. */
    async publicKeys(executor: Executor, platformId: PlatformId, now: Date): Promise<PublicSigningKey[]> {
      const rows = await executor
        .selectFrom('webhook_signing_keys')
        .select(['id', 'public_key_pem', 'status', 'created_at', 'retires_at'])
        .where('platform_id', '=', platformId)
        .where('status', 'in', ['ACTIVE', 'RETIRING'])
        .orderBy('created_at', 'desc')
        .execute();
      return rows
        .filter((r) => r.status === 'ACTIVE' || (r.retires_at !== null && r.retires_at.getTime() > now.getTime()))
        .map((r) => ({
          id: r.id,
          publicKey: r.public_key_pem,
          status: r.status as 'ACTIVE' | 'RETIRING',
          createdAt: r.created_at.toISOString(),
          ...(r.retires_at ? { retiresAt: r.retires_at.toISOString() } : {}),
        }));
    },

    /** Makes a new active key at `at` (the platform's clock); the old one keeps signing alongside it for `overlapSeconds`. */
    async rotate(tx: Tx, platformId: PlatformId, overlapSeconds: number, at: Date): Promise<void> {
      const retiresAt = new Date(at.getTime() + overlapSeconds * 1000);
      await tx.updateTable('webhook_signing_keys').set({ status: 'RETIRED' }).where('platform_id', '=', platformId).where('status', '=', 'RETIRING').execute();
      await tx.updateTable('webhook_signing_keys').set({ status: 'RETIRING', retires_at: retiresAt }).where('platform_id', '=', platformId).where('status', '=', 'ACTIVE').execute();
      await insertKey(tx, platformId, at);
      cache.delete(platformId);
    },
  };
}
