import { sql } from 'kysely';
import type { Db } from '../../db/schema.js';
import { paginate, type Page, type PageParams } from '../../db/paginate.js';
import { requireCurrency, type Currency } from '../../lib/currencies.js';
import type { DiscoveryEntry, UmaProviderEntry } from './default-catalogue.js';

/** The reference's UmaProvider. */
export interface UmaProviderView {
  name: string;
  supportedRegions: string[];
  domain: string;
  logoUrl?: string;
  supportedCurrencies: Currency[];
  lei?: string;
  allowListStatus: boolean;
}

export interface UmaProviderFilters extends PageParams {
  countryCode?: string | undefined;
  currencyCode?: string | undefined;
  /** false: only the providers on the allowlist; true or left out: all of them. */
  hasBlockedProviders?: boolean | undefined;
}

function providerView(entry: UmaProviderEntry): UmaProviderView {
  return {
    name: entry.name,
    supportedRegions: entry.supportedRegions,
    domain: entry.domain,
    ...(entry.logoUrl !== undefined ? { logoUrl: entry.logoUrl } : {}),
    supportedCurrencies: entry.supportedCurrencies.map(requireCurrency),
    ...(entry.lei !== undefined ? { lei: entry.lei } : {}),
    allowListStatus: entry.allowListed ?? true,
  };
}

/**
 * A catalogue entry's place in the list, as the one pagination helper pages: providers sorted by
 * name then domain, the n-th carrying the n-th millisecond of 2000 as its key and an id of its place.
 * The helper's cursors and order (asc A to Z, desc Z to A) then work as on any table.
 */
function positionKey(position: number): { id: string; created_at: Date } {
  return { id: `UmaProvider:00000000-0000-4000-8000-${position.toString(16).padStart(12, '0')}`, created_at: new Date(Date.UTC(2000, 0, 1) + position) };
}

export type NetworkDirectoryService = ReturnType<typeof createNetworkDirectoryService>;

export function createNetworkDirectoryService(deps: { db: Db; discoveries: readonly DiscoveryEntry[]; umaProviders: readonly UmaProviderEntry[] }) {
  const { db } = deps;
  const discoveries = [...deps.discoveries];
  const providers = [...deps.umaProviders].sort((a, b) => a.name.localeCompare(b.name, 'en') || a.domain.localeCompare(b.domain, 'en'));

  return {
    /** The receiving institutions of a corridor (or of every corridor), in the catalogue's order. */
    discoveries(filters: { country?: string | undefined; currency?: string | undefined }): { data: DiscoveryEntry[] } {
      return {
        data: discoveries.filter((d) => (filters.country === undefined || d.country === filters.country) && (filters.currency === undefined || d.currency === filters.currency)),
      };
    },

    async umaProviders(filters: UmaProviderFilters): Promise<Page<UmaProviderView>> {
      const matching = providers
        .map((entry, position) => ({ entry, position }))
        .filter(
          ({ entry }) =>
            (filters.countryCode === undefined || entry.supportedRegions.includes(filters.countryCode)) &&
            (filters.currencyCode === undefined || entry.supportedCurrencies.includes(filters.currencyCode)) &&
            (filters.hasBlockedProviders !== false || (entry.allowListed ?? true)),
        );
      if (matching.length === 0) return { data: [], hasMore: false, totalCount: 0 };
      const rows = sql<{ id: string; created_at: Date; position: number }>`(values ${sql.join(
        matching.map(({ position }) => {
          const key = positionKey(position);
          return sql`(${key.id}, ${key.created_at}::timestamptz, ${position}::integer)`;
        }),
      )})`.as<'t'>(sql`t(id, created_at, position)`);
      return paginate(db.selectFrom(rows).selectAll('t'), filters, (row) => providerView(providers[Number(row.position)]!));
    },
  };
}
