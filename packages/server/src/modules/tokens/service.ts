import type { Db, Executor } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { newId, uuidOf, type ApiTokenId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { hashSecret, newClientSecret, secretMatches } from '../../lib/secrets.js';
import type { Permission, TokenAuth } from '../../core/auth.js';
import { tokenNotFound } from './errors.js';

export interface ApiTokenView {
  id: ApiTokenId;
  name: string;
  permissions: string[];
  clientId: string;
  clientSecret?: string;
  createdAt: string;
  updatedAt: string;
}

export interface TokenFilters extends PageParams {
  name?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
}

interface TokenRow {
  id: ApiTokenId;
  name: string;
  permissions: string[];
  client_id: string;
  created_at: Date;
  updated_at: Date;
}

function view(row: TokenRow, clientSecret?: string): ApiTokenView {
  return {
    id: row.id,
    name: row.name,
    permissions: row.permissions,
    clientId: row.client_id,
    ...(clientSecret ? { clientSecret } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

interface CachedCredential {
  /** Undefined for an id no live token has (remembered too, so unknown ids cost what known ones do). */
  auth: TokenAuth | undefined;
  /** The stored hash's bytes, decoded once. */
  secretHash: Buffer;
  cachedAt: number;
}

/** What a client id can look like: printable ASCII without spaces or colons (API_TOKEN_ID's rule), or `ApiToken:<uuid>`. */
const CLIENT_ID = /^(?:ApiToken:)?[\x21-\x39\x3b-\x7e]{1,255}$/;
/** The hash an unknown id is compared against: no secret hashes to it. */
const NO_TOKEN_HASH = Buffer.alloc(32);

const CACHE_LIMIT = 10_000;

export type TokenService = ReturnType<typeof createTokenService>;

export function createTokenService({ db, cacheTtlMs }: { db: Db; cacheTtlMs: number }) {
  // Credential checks are cached so authentication costs a hash, not a query. A revocation clears
  // this process's cache at once; other processes notice within cacheTtlMs.
  const cache = new Map<string, CachedCredential>();

  async function insertToken(
    executor: Executor,
    input: { platformId: PlatformId; name: string; permissions: string[]; clientId?: string; secret?: string; now: Date },
  ): Promise<ApiTokenView> {
    const id = newId('ApiToken');
    const secret = input.secret ?? newClientSecret();
    const row = {
      id,
      platform_id: input.platformId,
      name: input.name,
      permissions: input.permissions,
      client_id: input.clientId ?? uuidOf(id),
      created_at: input.now,
      updated_at: input.now,
    };
    await executor
      .insertInto('api_tokens')
      .values({ ...row, permissions: JSON.stringify(row.permissions), secret_hash: hashSecret(secret) })
      .execute();
    // This process may remember either name as unknown.
    cache.delete(row.client_id);
    cache.delete(id);
    return view(row, secret);
  }

  return {
    insertToken,

    async create(uow: UnitOfWork, input: { name: string; permissions: readonly Permission[] }): Promise<ApiTokenView> {
      return insertToken(uow.tx, { platformId: uow.platformId, name: input.name, permissions: [...input.permissions], now: uow.now });
    },

    async get({ platformId }: Scope, tokenId: ApiTokenId): Promise<ApiTokenView> {
      const row = await db
        .selectFrom('api_tokens')
        .select(['id', 'name', 'permissions', 'client_id', 'created_at', 'updated_at'])
        .where('platform_id', '=', platformId)
        .where('id', '=', tokenId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (!row) throw tokenNotFound();
      return view(row);
    },

    async list({ platformId }: Scope, filters: TokenFilters) {
      let query = db
        .selectFrom('api_tokens as t')
        .select(['t.id', 't.name', 't.permissions', 't.client_id', 't.created_at', 't.updated_at'])
        .where('t.platform_id', '=', platformId)
        .where('t.revoked_at', 'is', null);
      if (filters.name !== undefined) query = query.where('t.name', '=', filters.name);
      if (filters.createdAfter) query = query.where('t.created_at', '>=', new Date(filters.createdAfter));
      if (filters.createdBefore) query = query.where('t.created_at', '<=', new Date(filters.createdBefore));
      if (filters.updatedAfter) query = query.where('t.updated_at', '>=', new Date(filters.updatedAfter));
      if (filters.updatedBefore) query = query.where('t.updated_at', '<=', new Date(filters.updatedBefore));
      return paginate(query, filters, (row) => view(row));
    },

    async revoke(uow: UnitOfWork, tokenId: ApiTokenId): Promise<void> {
      const result = await uow.tx
        .updateTable('api_tokens')
        .set({ revoked_at: uow.now, updated_at: uow.now })
        .where('platform_id', '=', uow.platformId)
        .where('id', '=', tokenId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) throw tokenNotFound();
      cache.clear();
    },

    /**
     * The caller behind a client id (or token id) and secret, or undefined when they do not match a
     * live token. An unknown id costs what a known one with the wrong secret does (a cached lookup,
     * then a hash comparison), so timing does not tell an attacker which ids exist; an id no token
     * could have (control characters, too long) is unknown without a query.
     */
    async verify(user: string, secret: string): Promise<TokenAuth | undefined> {
      const cached = cache.get(user);
      let credential: CachedCredential | undefined = cached && Date.now() - cached.cachedAt < cacheTtlMs ? cached : undefined;
      if (!credential) {
        const row = CLIENT_ID.test(user)
          ? await db
              .selectFrom('api_tokens')
              .select(['id', 'platform_id', 'permissions', 'secret_hash'])
              .where(user.startsWith('ApiToken:') ? 'id' : 'client_id', '=', user as ApiTokenId)
              .where('revoked_at', 'is', null)
              .executeTakeFirst()
          : undefined;
        credential = row
          ? { auth: { platformId: row.platform_id, tokenId: row.id, permissions: row.permissions }, secretHash: Buffer.from(row.secret_hash, 'hex'), cachedAt: Date.now() }
          : { auth: undefined, secretHash: NO_TOKEN_HASH, cachedAt: Date.now() };
        if (CLIENT_ID.test(user)) {
          if (cache.size >= CACHE_LIMIT) cache.clear();
          cache.set(user, credential);
        }
      }
      const matches = secretMatches(secret, credential.secretHash);
      return matches && credential.auth ? credential.auth : undefined;
    },

    forgetCachedCredentials(): void {
      cache.clear();
    },
  };
}
