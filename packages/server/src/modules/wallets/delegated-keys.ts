import { createHash } from 'node:crypto';
import { invalidInput } from '../../core/errors.js';
import { newId, type CardId, type CustomerId, type DelegatedKeyId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import type { SignatureRequired, WalletSignature } from '../../core/signature.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor, Tx } from '../../db/schema.js';
import { generateP256, signDer, verifyDer } from '../../crypto/p256.js';
import type { Sealer } from '../../lib/sealed.js';
import { challengeUnknown } from '../signatures/errors.js';
import type { SignedRequestService } from '../signatures/service.js';
import { delegatedKeyActive, delegatedKeyNotActive, delegatedKeyNotFound, fundingSourceNotFound } from './errors.js';
import { loadWallet } from './repo.js';
import { fundingSourcesOf } from '../cards/card-store.js';
import { accountsOf } from '../../ledger/queries.js';

export interface DelegatedKeyInput {
  cardId: CardId;
  internalAccountId: InternalAccountId;
  nickname: string;
  spendingLimits?: { currencyCode: string; maxPerTransaction: number }[] | undefined;
}

export interface DelegatedKeyView {
  id: string;
  cardId: string;
  fundingSourceId: string;
  accountId: string;
  publicKey: string;
  nickname: string;
  status: 'PENDING' | 'ACTIVE' | 'REVOKED';
  spendingLimits?: { currencyCode: string; maxPerTransaction: number }[];
  createdAt: string;
  updatedAt: string;
}

type KeyRow = Awaited<ReturnType<typeof loadKey>>;

/**
 * The id of one card funding source (a card and one of its internal accounts): a stable UUID
 * derived from both, since a card's funding sources are account ids, not resources of their own.
 */
export function fundingSourceId(cardId: string, accountId: string): string {
  const hex = createHash('sha256').update(`${cardId}\n${accountId}`).digest('hex');
  return `CardFundingSource:${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function keyContext(id: string): string {
  return `delegated-key:${id}`;
}

function view(row: KeyRow): DelegatedKeyView {
  return {
    id: row.id,
    cardId: row.card_id,
    fundingSourceId: row.funding_source_id,
    accountId: row.account_id,
    publicKey: row.public_key,
    nickname: row.nickname,
    status: row.status,
    ...(row.spending_limits ? { spendingLimits: row.spending_limits } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function loadKey(executor: Executor, platformId: PlatformId, id: DelegatedKeyId, lock = false) {
  let query = executor.selectFrom('delegated_keys').selectAll().where('platform_id', '=', platformId).where('id', '=', id);
  if (lock) query = query.forNoKeyUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw delegatedKeyNotFound();
  return row;
}

async function revokeKey(uow: UnitOfWork, key: KeyRow): Promise<void> {
  const revoked = await uow.tx.updateTable('delegated_keys').set({ status: 'REVOKED', updated_at: uow.now }).where('id', '=', key.id).returningAll().executeTakeFirstOrThrow();
  uow.emit('DELEGATED_KEY.REVOKED', view(revoked));
}

const CREATE = 'DELEGATED_KEY_CREATE';
const GRANT = 'DELEGATED_KEY_GRANT';

export type DelegatedKeyService = ReturnType<typeof createDelegatedKeyService>;

/**
 * Delegated keys: a P-256 key the service makes and keeps (sealed) to spend a wallet through one
 * card funding source, in the wallet's place. The wallet grants it in three legs, each repeating the
 * same body: the first makes the key (PENDING) and asks for a signature, the second (signed) creates
 * its identity and asks for the grant, the third (signed) makes it ACTIVE.
 */
export function createDelegatedKeyService({ db, sealer, signedRequests }: { db: Db; sealer: Sealer; signedRequests: SignedRequestService }) {
  async function checkSource(uow: UnitOfWork, input: DelegatedKeyInput): Promise<string> {
    const sources = await fundingSourcesOf(uow.tx, uow.platformId, input.cardId);
    if (!sources?.includes(input.internalAccountId)) throw fundingSourceNotFound();
    await loadWallet(uow.tx, uow.platformId, input.internalAccountId, true, 'internalAccountId');
    const sourceId = fundingSourceId(input.cardId, input.internalAccountId);
    const active = await uow.tx.selectFrom('delegated_keys').select('id').where('funding_source_id', '=', sourceId).where('status', '=', 'ACTIVE').executeTakeFirst();
    if (active) throw delegatedKeyActive(active.id);
    return sourceId;
  }

  return {
    async create(uow: UnitOfWork, input: DelegatedKeyInput, signed: WalletSignature): Promise<DelegatedKeyView | SignatureRequired> {
      const seen = new Set<string>();
      input.spendingLimits?.forEach((limit, i) => {
        if (seen.has(limit.currencyCode)) throw invalidInput([{ field: `spendingLimits.${i}.currencyCode`, message: `${limit.currencyCode} is listed twice` }]);
        seen.add(limit.currencyCode);
      });
      const sourceId = await checkSource(uow, input);
      const body = { cardId: input.cardId, internalAccountId: input.internalAccountId, nickname: input.nickname, spendingLimits: input.spendingLimits ?? null };
      const accountIds = [input.internalAccountId];

      if (signed.signature === undefined && signed.requestId === undefined) {
        const key = generateP256();
        const id = newId('DelegatedKey');
        await uow.tx
          .insertInto('delegated_keys')
          .values({
            id,
            platform_id: uow.platformId,
            card_id: input.cardId,
            account_id: input.internalAccountId,
            funding_source_id: sourceId,
            public_key: key.publicKeyCompressed,
            private_key_sealed: sealer.seal(key.privateKey.toString('hex'), keyContext(id)),
            nickname: input.nickname,
            status: 'PENDING',
            spending_limits: input.spendingLimits ? JSON.stringify(input.spendingLimits) : null,
            created_at: uow.now,
            updated_at: uow.now,
          })
          .execute();
        return (await signedRequests.authorize(uow, { action: CREATE, subjectId: id, accountIds, body }, {}))!;
      }

      // A signed leg: its Request-Id says which leg and which pending key.
      const pending = signed.requestId ? await signedRequests.pendingRequest(uow, signed.requestId) : undefined;
      const leg = pending?.action === CREATE || pending?.action === GRANT ? pending : undefined;
      if (signed.requestId && !leg) throw challengeUnknown();
      const keyId = (leg?.subjectId ?? '') as DelegatedKeyId;
      const challenge = await signedRequests.authorize(uow, { action: leg?.action ?? CREATE, subjectId: keyId, accountIds, body }, signed);
      if (challenge) return challenge;
      const key = await loadKey(uow.tx, uow.platformId, keyId, true);
      if (leg!.action === CREATE) return (await signedRequests.authorize(uow, { action: GRANT, subjectId: key.id, accountIds, body }, {}))!;
      const activated = await uow.tx.updateTable('delegated_keys').set({ status: 'ACTIVE', updated_at: uow.now }).where('id', '=', key.id).returningAll().executeTakeFirstOrThrow();
      return view(activated);
    },

    async list({ platformId }: Scope, filters: { accountId?: InternalAccountId | undefined; fundingSourceId?: string | undefined }): Promise<{ data: DelegatedKeyView[] }> {
      if (!filters.accountId && !filters.fundingSourceId) throw invalidInput([{ field: 'accountId', message: 'give accountId, fundingSourceId or both' }]);
      let query = db.selectFrom('delegated_keys').selectAll().where('platform_id', '=', platformId);
      if (filters.accountId) query = query.where('account_id', '=', filters.accountId);
      if (filters.fundingSourceId) query = query.where('funding_source_id', '=', filters.fundingSourceId);
      return { data: (await query.orderBy('created_at').orderBy('id').execute()).map(view) };
    },

    async get({ platformId }: Scope, id: DelegatedKeyId): Promise<DelegatedKeyView> {
      return view(await loadKey(db, platformId, id));
    },

    /** Revokes an ACTIVE key: from then on it authorizes nothing (DELEGATED_KEY.REVOKED). */
    async revoke(uow: UnitOfWork, id: DelegatedKeyId): Promise<void> {
      const key = await loadKey(uow.tx, uow.platformId, id, true);
      if (key.status !== 'ACTIVE') throw delegatedKeyNotActive(key.status);
      await revokeKey(uow, key);
    },

    /** Revokes every key, active or still being granted, on the wallets of a deleted customer (`customer.deleted`). */
    async revokeAllOf(uow: UnitOfWork, customerId: CustomerId): Promise<void> {
      const keys = await uow.tx
        .selectFrom('delegated_keys as k')
        .selectAll('k')
        .where('k.platform_id', '=', uow.platformId)
        .where('k.account_id', 'in', accountsOf(customerId))
        .where('k.status', '!=', 'REVOKED')
        .orderBy('k.id')
        .forNoKeyUpdate('k')
        .execute();
      for (const key of keys) await revokeKey(uow, key);
    },

    /**
     * Whether the service may spend `amount` of a wallet through this card: an ACTIVE key for the
     * funding source whose limit (if any, per currency) covers it, and which signs for it (the
     * sealed key is used as the wallet's signature, not merely looked up).
     */
    async authorizesSpend(tx: Tx, card: { id: CardId; platform_id: PlatformId }, accountId: InternalAccountId, currency: string, amount: bigint): Promise<boolean> {
      const key = await tx.selectFrom('delegated_keys').selectAll().where('funding_source_id', '=', fundingSourceId(card.id, accountId)).where('status', '=', 'ACTIVE').executeTakeFirst();
      if (!key) return false;
      const limit = key.spending_limits?.find((l) => l.currencyCode === currency);
      if (limit && amount > BigInt(limit.maxPerTransaction)) return false;
      const payload = JSON.stringify({ type: 'CARD_SPEND', cardId: card.id, accountId, currency, amount: amount.toString() });
      const signature = signDer(Buffer.from(sealer.open(key.private_key_sealed, keyContext(key.id)), 'hex'), payload);
      return verifyDer(key.public_key, payload, signature);
    },

    /** Re-seals the keys with the current encryption key (cli reseal). */
    async reseal(): Promise<number> {
      const rows = await db.selectFrom('delegated_keys').select(['id', 'private_key_sealed']).where('status', '!=', 'REVOKED').execute();
      let done = 0;
      for (const row of rows.filter((r) => !sealer.isCurrent(r.private_key_sealed))) {
        await db.updateTable('delegated_keys').set({ private_key_sealed: sealer.seal(sealer.open(row.private_key_sealed, keyContext(row.id)), keyContext(row.id)) }).where('id', '=', row.id).execute();
        done++;
      }
      return done;
    },
  };
}
