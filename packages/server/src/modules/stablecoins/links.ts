import type { Selectable } from 'kysely';
import { invalidInput } from '../../core/errors.js';
import { newId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import type { Db, Executor } from '../../db/schema.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { Sealer } from '../../lib/sealed.js';
import type { StablecoinCredentials, StablecoinIssuer, StablecoinProviderName } from '../../providers/stablecoin-issuer.js';
import { providerAccountAlreadyLinked, providerAccountInvalid, providerAccountNotFound, providerAccountRevoked, providerAccountSelectionRequired } from './errors.js';
import type { StablecoinProviderAccountId, StablecoinProviderAccountsTable } from './tables.js';

export type LinkRow = Selectable<StablecoinProviderAccountsTable>;

/** The job that checks an ACTIVE link's credentials with the provider again, and its period. */
export const RECHECK_JOB = 'stablecoin.link.recheck';
export const RECHECK_INTERVAL_MS = 60 * 60_000;

export interface LinkInput {
  provider: StablecoinProviderName;
  apiClientId: string;
  apiClientSecret: string;
  providerAccountId?: string | undefined;
}

export interface ProviderAccountView {
  id: StablecoinProviderAccountId;
  provider: string;
  providerAccountId: string;
  providerEnvironment: string;
  status: string;
  lastVerifiedAt?: string;
  createdAt: string;
  updatedAt: string;
}

/** A link usable for an operation: its row and its credentials, opened. */
export interface UsableLink {
  row: LinkRow;
  credentials: StablecoinCredentials;
}

function view(row: LinkRow): ProviderAccountView {
  return {
    id: row.id,
    provider: row.provider,
    providerAccountId: row.provider_account_id,
    providerEnvironment: row.provider_environment,
    status: row.status,
    ...(row.last_verified_at ? { lastVerifiedAt: row.last_verified_at.toISOString() } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Binds sealed credentials to their link, so they cannot be moved to another row. */
const credentialsContext = (platformId: PlatformId, id: string) => `${platformId}\n${id}\nstablecoin-provider-credentials`;

export type ProviderAccountLinks = ReturnType<typeof createProviderAccountLinks>;

/**
 * Provider account links: the platform's API credentials at the stablecoin provider, verified with
 * the provider when linked and again every RECHECK_INTERVAL_MS by a durable job (which marks the
 * link INVALID or REVOKED when the provider says so). Credentials are sealed at rest and never
 * answered. Links are per provider environment, which is the installation's (sandbox or production).
 */
export function createProviderAccountLinks({ db, sealer, issuer }: { db: Db; sealer: Sealer; issuer: StablecoinIssuer }) {
  const environment = issuer.environment;

  async function find(executor: Executor, platformId: PlatformId, id: StablecoinProviderAccountId, lock = false): Promise<LinkRow> {
    let query = executor.selectFrom('stablecoin_provider_accounts').selectAll().where('platform_id', '=', platformId).where('id', '=', id);
    if (lock) query = query.forUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw providerAccountNotFound(true);
    return row;
  }

  function open(row: LinkRow): StablecoinCredentials {
    return JSON.parse(sealer.open(row.credentials_sealed, credentialsContext(row.platform_id, row.id))) as StablecoinCredentials;
  }

  function usable(row: LinkRow): UsableLink {
    if (row.status === 'REVOKED') throw providerAccountRevoked(row.id);
    if (row.status !== 'ACTIVE') throw providerAccountInvalid('The provider no longer accepts this link’s credentials; link the account again with working ones', row.id);
    return { row, credentials: open(row) };
  }

  return {
    view,

    /** POST /stablecoin-provider-accounts: verifies the credentials with the provider, then links (or re-links an INVALID or REVOKED link with new credentials). */
    async link(uow: UnitOfWork, input: LinkInput): Promise<ProviderAccountView> {
      const credentials: StablecoinCredentials = { apiClientId: input.apiClientId, apiClientSecret: input.apiClientSecret };
      const verdict = await issuer.verifyCredentials(input.provider, credentials);
      if (verdict.kind === 'invalid') throw providerAccountInvalid(verdict.reason);
      if (verdict.kind === 'revoked') throw providerAccountInvalid('The provider reports these credentials revoked');
      let providerAccountId = input.providerAccountId;
      if (providerAccountId === undefined) {
        if (verdict.providerAccountIds.length !== 1) {
          throw providerAccountSelectionRequired('These credentials reach several provider accounts; pass providerAccountId', verdict.providerAccountIds);
        }
        providerAccountId = verdict.providerAccountIds[0]!;
      } else if (!verdict.providerAccountIds.includes(providerAccountId)) {
        throw invalidInput([{ field: 'providerAccountId', message: 'These credentials do not reach this provider account' }]);
      }
      const id = newId('StablecoinProviderAccount');
      const inserted = await uow.tx
        .insertInto('stablecoin_provider_accounts')
        .values({
          id,
          platform_id: uow.platformId,
          provider: input.provider,
          provider_account_id: providerAccountId,
          provider_environment: environment,
          status: 'ACTIVE',
          credentials_sealed: sealer.seal(JSON.stringify(credentials), credentialsContext(uow.platformId, id)),
          last_verified_at: uow.now,
          created_at: uow.now,
          updated_at: uow.now,
        })
        .onConflict((oc) => oc.columns(['platform_id', 'provider', 'provider_environment', 'provider_account_id']).doNothing())
        .returningAll()
        .executeTakeFirst();
      let row = inserted;
      if (!row) {
        const existing = await uow.tx
          .selectFrom('stablecoin_provider_accounts')
          .selectAll()
          .where('platform_id', '=', uow.platformId)
          .where('provider', '=', input.provider)
          .where('provider_environment', '=', environment)
          .where('provider_account_id', '=', providerAccountId)
          .forUpdate()
          .executeTakeFirstOrThrow();
        if (existing.status === 'ACTIVE') throw providerAccountAlreadyLinked(existing.id);
        row = await uow.tx
          .updateTable('stablecoin_provider_accounts')
          .set({ status: 'ACTIVE', credentials_sealed: sealer.seal(JSON.stringify(credentials), credentialsContext(uow.platformId, existing.id)), last_verified_at: uow.now, updated_at: uow.now })
          .where('id', '=', existing.id)
          .returningAll()
          .executeTakeFirstOrThrow();
      }
      await scheduleJob(uow, { kind: RECHECK_JOB, payload: { stablecoinProviderAccountId: row.id, verifiedAt: uow.now.toISOString() }, runAt: inMs(uow, RECHECK_INTERVAL_MS) });
      return view(row);
    },

    async list(scope: Scope, filters: PageParams & { provider?: string | undefined; status?: string | undefined }) {
      let query = db.selectFrom('stablecoin_provider_accounts as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
      if (filters.provider) query = query.where('t.provider', '=', filters.provider);
      if (filters.status) query = query.where('t.status', '=', filters.status);
      return paginate(query, filters, view);
    },

    async get(scope: Scope, id: StablecoinProviderAccountId): Promise<ProviderAccountView> {
      return view(await find(db, scope.platformId, id));
    },

    /** A link by id, locked and ready to use, or refused with its status's code. */
    async use(executor: Executor, platformId: PlatformId, id: StablecoinProviderAccountId): Promise<UsableLink> {
      return usable(await find(executor, platformId, id, true));
    },

    /**
     * The link an unnamed request uses: the platform's one ACTIVE link in this environment. Several
     * ACTIVE ones need a choice (SELECTION_REQUIRED); none ACTIVE answers the status of those there
     * are (REVOKED when all were revoked, else INVALID), and no link at all is NOT_FOUND.
     */
    async choose(executor: Executor, platformId: PlatformId, requested: StablecoinProviderAccountId | undefined): Promise<UsableLink> {
      if (requested) return usable(await find(executor, platformId, requested, true));
      const rows = await executor.selectFrom('stablecoin_provider_accounts').selectAll().where('platform_id', '=', platformId).where('provider_environment', '=', environment).orderBy('created_at').execute();
      if (rows.length === 0) throw providerAccountNotFound(false);
      const active = rows.filter((r) => r.status === 'ACTIVE');
      if (active.length > 1) {
        throw providerAccountSelectionRequired(
          'Several active stablecoin provider account links exist; pass stablecoinProviderAccountId',
          active.map((r) => r.id),
        );
      }
      if (active.length === 1) return usable(active[0]!);
      return usable(rows.find((r) => r.status === 'INVALID') ?? rows[0]!);
    },

    /** A link's credentials, opened, whatever its status (a job asking about an operation it already started). */
    async credentials(executor: Executor, platformId: PlatformId, id: StablecoinProviderAccountId): Promise<{ credentials: StablecoinCredentials; providerAccountId: string }> {
      const row = await find(executor, platformId, id);
      return { credentials: open(row), providerAccountId: row.provider_account_id };
    },

    /** After a key rotation (`npm run cli -- reseal`): re-seals, with the current key, every link's credentials sealed with an earlier one. */
    async reseal(): Promise<number> {
      let resealed = 0;
      const rows = await db.selectFrom('stablecoin_provider_accounts').select(['id', 'platform_id', 'credentials_sealed']).execute();
      for (const row of rows.filter((r) => !sealer.isCurrent(r.credentials_sealed))) {
        const context = credentialsContext(row.platform_id, row.id);
        await db.updateTable('stablecoin_provider_accounts').set({ credentials_sealed: sealer.seal(sealer.open(row.credentials_sealed, context), context) }).where('id', '=', row.id).execute();
        resealed++;
      }
      return resealed;
    },

    /** The periodic check (recheckLink below). */
    recheck: (uow: UnitOfWork, payload: Record<string, unknown>) => recheckLink(uow, payload, { issuer, open }),
  };
}

/**
 * The periodic check: an ACTIVE link whose credentials the provider still accepts (and that still
 * reach its account) is verified again; otherwise it becomes INVALID or REVOKED, once. A link
 * re-linked since the job was scheduled is left to the job the re-link scheduled.
 */
export async function recheckLink(uow: UnitOfWork, payload: Record<string, unknown>, { issuer, open }: { issuer: StablecoinIssuer; open: (row: LinkRow) => StablecoinCredentials }): Promise<void> {
  const row = await uow.tx
    .selectFrom('stablecoin_provider_accounts')
    .selectAll()
    .where('platform_id', '=', uow.platformId)
    .where('id', '=', String(payload.stablecoinProviderAccountId) as StablecoinProviderAccountId)
    .forUpdate()
    .executeTakeFirst();
  if (!row || row.status !== 'ACTIVE') return;
  // Each check schedules the next; a re-link schedules its own, and the older chain stops here.
  if (row.last_verified_at?.toISOString() !== payload.verifiedAt) return;
  const verdict = await issuer.recheckCredentials(row.provider as StablecoinProviderName, open(row));
  const status = verdict.kind === 'revoked' ? 'REVOKED' : verdict.kind === 'invalid' || !verdict.providerAccountIds.includes(row.provider_account_id) ? 'INVALID' : 'ACTIVE';
  await uow.tx
    .updateTable('stablecoin_provider_accounts')
    .set(status === 'ACTIVE' ? { last_verified_at: uow.now } : { status, updated_at: uow.now })
    .where('id', '=', row.id)
    .execute();
  if (status === 'ACTIVE') {
    await scheduleJob(uow, { kind: RECHECK_JOB, payload: { stablecoinProviderAccountId: row.id, verifiedAt: uow.now.toISOString() }, runAt: inMs(uow, RECHECK_INTERVAL_MS) });
  }
}
