import type { Selectable } from 'kysely';
import { invalidInput } from '../../core/errors.js';
import { newId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import type { Db, Executor } from '../../db/schema.js';
import type { StablecoinIssuer } from '../../providers/stablecoin-issuer.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import { stablecoinAlreadyRegistered, stablecoinNotFound } from './errors.js';
import type { ProviderAccountLinks } from './links.js';
import type { Funding } from './money.js';
import { createOperations } from './operations.js';
import type { StablecoinId, StablecoinProviderAccountId, StablecoinsTable } from './tables.js';

type CoinRow = Selectable<StablecoinsTable>;

export interface RegisterInput {
  providerTokenIdentifier: string;
  networkTokenIdentifier: string;
  network: string;
  stablecoinProviderAccountId?: StablecoinProviderAccountId | undefined;
}

function coinView(row: CoinRow) {
  return {
    id: row.id,
    name: row.name,
    symbol: row.symbol,
    baseCurrency: row.base_currency,
    network: row.network,
    decimals: row.decimals,
    issuanceStatus: row.issuance_status,
    gridOperationsStatus: row.grid_operations_status,
    networkTokenIdentifier: row.network_token_identifier,
    ...(row.currency ? { currency: row.currency } : {}),
    provider: row.provider,
    stablecoinProviderAccountId: row.stablecoin_provider_account_id,
    providerEnvironment: row.provider_environment,
    providerTokenIdentifier: row.provider_token_identifier,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type StablecoinView = ReturnType<typeof coinView>;

export interface StablecoinDeps {
  db: Db;
  issuer: StablecoinIssuer;
  links: ProviderAccountLinks;
  externalAccounts: Pick<ExternalAccountService, 'findAny'>;
  funding: Funding;
}

export type StablecoinService = ReturnType<typeof createStablecoinService>;

/** Registered stablecoins (the provider's tokens, linked through a provider account link) and their operations (operations.ts). */
export function createStablecoinService({ db, issuer, links, externalAccounts, funding }: StablecoinDeps) {
  async function findCoin(executor: Executor, platformId: PlatformId, id: StablecoinId): Promise<CoinRow> {
    const row = await executor.selectFrom('stablecoins').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst();
    if (!row) throw stablecoinNotFound();
    return row;
  }

  return {
    ...createOperations({ db, issuer, links, externalAccounts, funding, findCoin }),

    /** POST /stablecoins: registers a token the provider created, through the named (or the one active) link. */
    async register(uow: UnitOfWork, input: RegisterInput): Promise<StablecoinView> {
      const link = await links.choose(uow.tx, uow.platformId, input.stablecoinProviderAccountId);
      const token = await issuer.token(link.credentials, link.row.provider_account_id, input.providerTokenIdentifier);
      if (!token) throw invalidInput([{ field: 'providerTokenIdentifier', message: 'The provider has no token with this identifier on the linked account' }]);
      const row = await uow.tx
        .insertInto('stablecoins')
        .values({
          id: newId('Stablecoin'),
          platform_id: uow.platformId,
          stablecoin_provider_account_id: link.row.id,
          provider: link.row.provider,
          provider_environment: link.row.provider_environment,
          provider_token_identifier: input.providerTokenIdentifier,
          network: input.network,
          network_token_identifier: input.networkTokenIdentifier,
          name: token.name,
          symbol: token.symbol,
          base_currency: token.baseCurrency,
          decimals: token.decimals,
          issuance_status: token.issuanceStatus,
          grid_operations_status: 'NOT_ENABLED',
          created_at: uow.now,
          updated_at: uow.now,
        })
        .onConflict((oc) => oc.columns(['platform_id', 'stablecoin_provider_account_id', 'provider_token_identifier']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!row) {
        const existing = await uow.tx
          .selectFrom('stablecoins')
          .select('id')
          .where('platform_id', '=', uow.platformId)
          .where('stablecoin_provider_account_id', '=', link.row.id)
          .where('provider_token_identifier', '=', input.providerTokenIdentifier)
          .executeTakeFirstOrThrow();
        throw stablecoinAlreadyRegistered(existing.id);
      }
      return coinView(row);
    },

    async list(scope: Scope, filters: PageParams & { issuanceStatus?: string | undefined; gridOperationsStatus?: string | undefined; provider?: string | undefined }) {
      let query = db.selectFrom('stablecoins as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
      if (filters.issuanceStatus) query = query.where('t.issuance_status', '=', filters.issuanceStatus);
      if (filters.gridOperationsStatus) query = query.where('t.grid_operations_status', '=', filters.gridOperationsStatus);
      if (filters.provider) query = query.where('t.provider', '=', filters.provider);
      return paginate(query, filters, coinView);
    },

    get: async (scope: Scope, id: StablecoinId): Promise<StablecoinView> => coinView(await findCoin(db, scope.platformId, id)),
  };
}
