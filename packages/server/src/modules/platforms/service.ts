import { sql, type Selectable } from 'kysely';
import type { Static } from 'typebox';
import { DEFAULT_CARD_ELIGIBLE_CURRENCIES, DEFAULT_END_USER_TERMS_VERSION, type EmbeddedWalletConfig, type EndUserTermsConfig, type FeeConfig as FeeConfigSchema, type PlatformConfig, type PlatformConfigUpdateRequest } from './schemas.js';
import type { Db, Executor } from '../../db/schema.js';
import { wakeAfterCommit } from '../../db/wake.js';
import type { PlatformsTable } from './tables.js';
import { invalidInput, type FieldError } from '../../core/errors.js';
import { newId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Clock } from '../../lib/clock.js';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import type { Ledger } from '../../ledger/index.js';
import type { PublicSigningKey, SigningKeys } from '../../events/signing-keys.js';
import { amountNotPositive, amountOutOfRange, clockOffsetTooLarge, currencyNotEnabled, MAX_CLOCK_OFFSET_SECONDS, platformNotFound } from './errors.js';
import type { Outbound } from '../../outbound/guard.js';

export type PlatformConfigView = Static<typeof PlatformConfig>;
export type ConfigPatch = Static<typeof PlatformConfigUpdateRequest>;
export type FeeConfig = Static<typeof FeeConfigSchema>;

export const DEFAULT_UMA_DOMAIN = 'moneta.local';

/** What a new platform starts with: every currency, both directions, no fees of its own. */
function defaultConfig(): Record<string, unknown> {
  return {
    supportedCurrencies: CURRENCY_CODES.map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 1_000_000_000_000,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
    })),
    feeConfigs: [],
    isRegulatedFinancialInstitution: false,
  };
}

function withKeys(view: PlatformConfigView, keys: PublicSigningKey[]): PlatformConfigView {
  const active = keys.find((k) => k.status === 'ACTIVE');
  return { ...view, ...(active ? { webhookSigningPublicKey: active.publicKey } : {}), webhookSigningKeys: keys };
}

function configView(row: Selectable<PlatformsTable>, publicUrl: string): PlatformConfigView {
  const config = row.config as Partial<PlatformConfigView>;
  return {
    ...config,
    id: row.id,
    supportedCurrencies: config.supportedCurrencies ?? [],
    feeConfigs: config.feeConfigs ?? [],
    isRegulatedFinancialInstitution: config.isRegulatedFinancialInstitution ?? false,
    cardConfig: cardConfigOf(config),
    endUserTermsConfig: endUserTermsOf(config, publicUrl),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The card settings with their defaults filled in. */
function cardConfigOf(config: Record<string, unknown>): { eligibleCurrencies: string[]; revealFrameAncestors: string[] } {
  const card = (config.cardConfig ?? {}) as { eligibleCurrencies?: string[]; revealFrameAncestors?: string[] };
  return { eligibleCurrencies: card.eligibleCurrencies ?? DEFAULT_CARD_ELIGIBLE_CURRENCIES, revealFrameAncestors: card.revealFrameAncestors ?? [] };
}

export type EndUserTermsSettings = Static<typeof EndUserTermsConfig>;

/**
 * The end-user terms settings with their defaults filled in: not required, version V1, hosted at
 * the service's own PUBLIC_URL/legal/end-user-terms until the platform names its own URL.
 */
function endUserTermsOf(config: Record<string, unknown>, publicUrl: string): EndUserTermsSettings {
  const terms = (config.endUserTermsConfig ?? {}) as Partial<EndUserTermsSettings>;
  return {
    isConsentRequired: terms.isConsentRequired ?? false,
    version: terms.version ?? DEFAULT_END_USER_TERMS_VERSION,
    url: terms.url ?? `${publicUrl}/legal/end-user-terms`,
    previousVersions: terms.previousVersions ?? [],
  };
}

/** The stored end-user terms after a patch: fields sent replace stored ones; a new version keeps the one it replaces in previousVersions. */
function patchedEndUserTerms(stored: Record<string, unknown>, patch: NonNullable<ConfigPatch['endUserTermsConfig']>): Record<string, unknown> {
  const current = (stored.endUserTermsConfig ?? {}) as Partial<EndUserTermsSettings>;
  const currentVersion = current.version ?? DEFAULT_END_USER_TERMS_VERSION;
  const merged: Partial<EndUserTermsSettings> = { ...current, ...patch };
  if (patch.version !== undefined && patch.version !== currentVersion) {
    merged.previousVersions = [...(current.previousVersions ?? []).filter((v) => v !== currentVersion && v !== patch.version), currentVersion];
  }
  return merged;
}

export interface EmbeddedWalletSettings {
  appName: string;
  otpLength: number;
  alphanumeric: boolean;
  otpLifetimeSeconds: number;
  sender: { address?: string; name?: string; replyTo?: string; logoUrl?: string };
  walletCurrency: string;
  sessionLifetimeSeconds: number;
  relyingPartyId: string;
  allowedOrigins: string[];
  oidcIssuers: { issuer: string; audiences: string[]; jwksUrl?: string }[];
}

/** The embedded-wallet settings with their defaults filled in (the reference's, and ours for what it leaves open). */
function walletSettingsOf(wallet: Static<typeof EmbeddedWalletConfig>, publicUrl: string): EmbeddedWalletSettings {
  const own = new URL(publicUrl);
  return {
    appName: wallet.appName ?? 'Moneta',
    otpLength: wallet.otpLength ?? 6,
    alphanumeric: wallet.alphanumeric ?? false,
    otpLifetimeSeconds: wallet.expirationSeconds ?? 300,
    sender: {
      ...(wallet.sendFromEmailAddress ? { address: wallet.sendFromEmailAddress } : {}),
      ...(wallet.sendFromEmailSenderName ? { name: wallet.sendFromEmailSenderName } : {}),
      ...(wallet.replyToEmailAddress ? { replyTo: wallet.replyToEmailAddress } : {}),
      ...(wallet.logoUrl ? { logoUrl: wallet.logoUrl } : {}),
    },
    walletCurrency: wallet.walletCurrency ?? 'USDB',
    sessionLifetimeSeconds: wallet.sessionLifetimeSeconds ?? 900,
    relyingPartyId: wallet.relyingPartyId ?? own.hostname,
    allowedOrigins: wallet.allowedOrigins ?? [own.origin],
    oidcIssuers: wallet.oidcIssuers ?? [],
  };
}

export interface PlatformServiceDeps {
  publicUrl: string;
  db: Db;
  clock: Clock;
  ledger: Pick<Ledger, 'openPlatformAccounts'>;
  signingKeys: SigningKeys;
  /** Checks the URLs a platform supplies by the rules outbound requests follow (outbound/guard.ts). */
  outbound: Pick<Outbound, 'checkUrl'>;
}

/** The service's dependencies and its per-process config cache. */
export interface PlatformContext extends PlatformServiceDeps {
  configs: Map<string, { config: Record<string, unknown>; readAt: number }>;
  /** Platforms whose configuration this process began to change, and until when their reads are not cached (CHANGE_WINDOW_MS). */
  changing: Map<string, number>;
}

type CurrencyLimits = { minAmount: number; maxAmount: number; enabledTransactionTypes: string[] };

export type PlatformService = ReturnType<typeof createPlatformService>;

const CONFIG_CACHE_MS = 1000;

/**
 * How long after this process began to change a platform's configuration (`updateConfig`) its reads
 * of that configuration are not cached. The change commits somewhere in that time, and a read made
 * on another connection before the COMMIT gets the configuration being replaced: cached, it would be
 * used for CONFIG_CACHE_MS after the COMMIT, by money moves' limits and by the outbox deciding that
 * events of a platform without an endpoint are written SKIPPED (never delivered), when this process
 * should see its own change at once. Longer than a unit of work takes; a change rolled back only
 * costs reads for the rest of the window.
 */
const CHANGE_WINDOW_MS = 30_000;

/** Whether this process is changing the platform's configuration (its reads are not cached meanwhile). */
function changing(p: PlatformContext, platformId: PlatformId): boolean {
  const until = p.changing.get(platformId);
  if (until === undefined) return false;
  if (Date.now() < until) return true;
  p.changing.delete(platformId);
  return false;
}

/** The platform's configuration as this process cached it, while fresh (under CONFIG_CACHE_MS) and not being changed here; undefined otherwise. */
function cachedConfig(p: PlatformContext, platformId: PlatformId): Record<string, unknown> | undefined {
  if (changing(p, platformId)) return undefined;
  const cached = p.configs.get(platformId);
  return cached && Date.now() - cached.readAt < CONFIG_CACHE_MS ? cached.config : undefined;
}

async function configOf(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<Record<string, unknown>> {
  const cached = cachedConfig(p, platformId);
  if (cached) return cached;
  const row = await executor.selectFrom('platforms').select('config').where('id', '=', platformId).executeTakeFirst();
  const config = row?.config ?? {};
  // A read that overlapped a change made here may hold the configuration it replaces: not kept.
  if (!changing(p, platformId)) p.configs.set(platformId, { config, readAt: Date.now() });
  return config;
}

export async function createPlatform(p: PlatformContext, executor: Executor, input: { name: string; now: Date }): Promise<{ id: PlatformId; name: string }> {
  const id = newId('Platform');
  await executor
    .insertInto('platforms')
    .values({ id, name: input.name, config: JSON.stringify(defaultConfig()), created_at: input.now, updated_at: input.now })
    .execute();
  await p.ledger.openPlatformAccounts(executor, id, input.name, input.now);
  await p.signingKeys.ensure(executor, id, input.now);
  return { id, name: input.name };
}

export async function listPlatforms(p: PlatformContext): Promise<{ id: string; name: string; createdAt: string }[]> {
  const rows = await p.db.selectFrom('platforms').select(['id', 'name', 'created_at']).orderBy('created_at').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at.toISOString() }));
}

export async function getConfig(p: PlatformContext, { platformId, now }: Scope): Promise<PlatformConfigView> {
  const row = await p.db.selectFrom('platforms').selectAll().where('id', '=', platformId).executeTakeFirst();
  if (!row) throw platformNotFound();
  await p.signingKeys.ensure(p.db, platformId, now);
  return withKeys(configView(row, p.publicUrl), await p.signingKeys.publicKeys(p.db, platformId, now));
}

/** The endpoint a configuration sets, if any. */
function endpointOf(config: Record<string, unknown>): string | undefined {
  const endpoint = config.webhookEndpoint;
  return typeof endpoint === 'string' && endpoint !== '' ? endpoint : undefined;
}

/** Where this platform's webhooks go, if it set an endpoint. */
export async function webhookEndpoint(p: PlatformContext, platformId: PlatformId): Promise<string | undefined> {
  return endpointOf(await configOf(p, p.db, platformId));
}

/** True when the platform's configuration cached in this process (fresh) has no webhook endpoint; false when it has one or is not cached. */
function knownWithoutWebhookEndpoint(p: PlatformContext, platformId: PlatformId): boolean {
  const cached = cachedConfig(p, platformId);
  return cached !== undefined && endpointOf(cached) === undefined;
}

/** Every invalid field of a config patch, beyond what its schema checks. */
async function configPatchErrors(outbound: PlatformServiceDeps['outbound'], patch: ConfigPatch): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  patch.supportedCurrencies?.forEach((c, i) => {
    if (c.minAmount > c.maxAmount) {
      errors.push({ field: `supportedCurrencies.${i}.minAmount`, message: 'minAmount must not exceed maxAmount' });
    }
  });
  const seen = new Set<string>();
  patch.supportedCurrencies?.forEach((c, i) => {
    if (seen.has(c.currencyCode)) errors.push({ field: `supportedCurrencies.${i}.currencyCode`, message: `${c.currencyCode} is listed twice` });
    seen.add(c.currencyCode);
  });
  if (patch.webhookEndpoint !== undefined) {
    const resolved = await outbound.checkUrl(patch.webhookEndpoint, { resolve: true });
    if (!resolved.ok) errors.push({ field: 'webhookEndpoint', constraint: { format: 'uri' }, message: resolved.reason });
  }
  // The service fetches the issuer's discovery document and its keys: the same URL rules as webhook endpoints, for each.
  for (const [i, provider] of (patch.embeddedWalletConfig?.oidcIssuers ?? []).entries()) {
    for (const field of ['issuer', 'jwksUrl'] as const) {
      const syntax = provider[field] === undefined ? undefined : await outbound.checkUrl(provider[field]);
      if (syntax?.ok === false) errors.push({ field: `embeddedWalletConfig.oidcIssuers.${i}.${field}`, constraint: { format: 'uri' }, message: syntax.reason });
    }
  }
  return errors;
}

/** Sent fields replace stored ones (arrays whole). */
export async function updateConfig(p: PlatformContext, ctx: UnitOfWork, patch: ConfigPatch): Promise<PlatformConfigView> {
  const errors = await configPatchErrors(p.outbound, patch);
  if (errors.length > 0) throw invalidInput(errors);
  // From now until well after this transaction commits, this process reads the configuration afresh.
  p.changing.set(ctx.platformId, Date.now() + CHANGE_WINDOW_MS);
  p.configs.delete(ctx.platformId);

  const row = await ctx.tx.selectFrom('platforms').selectAll().where('id', '=', ctx.platformId).forNoKeyUpdate().executeTakeFirstOrThrow();
  const config = { ...row.config, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) };
  // Embedded-wallet fields left out of a request keep their values (the reference's rule).
  if (patch.embeddedWalletConfig) config.embeddedWalletConfig = { ...((row.config.embeddedWalletConfig) ?? {}), ...patch.embeddedWalletConfig };
  // So do the end-user terms' (turning consent on keeps the version and URL).
  if (patch.endUserTermsConfig) config.endUserTermsConfig = patchedEndUserTerms(row.config, patch.endUserTermsConfig);
  const updated = await ctx.tx
    .updateTable('platforms')
    .set({ config: JSON.stringify(config), updated_at: ctx.now })
    .where('id', '=', ctx.platformId)
    .returningAll()
    .executeTakeFirstOrThrow();
  // A new endpoint is greeted with a TEST event (delivered once, never retried).
  if (patch.webhookEndpoint !== undefined && patch.webhookEndpoint !== row.config.webhookEndpoint) {
    ctx.emit('TEST', {});
  }
  return withKeys(configView(updated, p.publicUrl), await p.signingKeys.publicKeys(ctx.tx, ctx.platformId, ctx.now));
}

/** The platform's limits for a currency, or undefined when it has not enabled that currency. */
export async function currencyLimits(p: PlatformContext, executor: Executor, platformId: PlatformId, currency: string): Promise<CurrencyLimits | undefined> {
  const config = await configOf(p, executor, platformId);
  const list = (config.supportedCurrencies ?? []) as ({ currencyCode: string } & CurrencyLimits)[];
  return list.find((c) => c.currencyCode === currency);
}

/**
 * Refuses an amount the platform does not allow: INVALID_AMOUNT when not positive, INVALID_CURRENCY
 * when the currency or direction is not enabled, AMOUNT_OUT_OF_RANGE outside its min and max.
 */
export async function checkAmount(p: PlatformContext, executor: Executor, platformId: PlatformId, currency: string, amount: bigint, direction: 'INCOMING' | 'OUTGOING', field = 'amount'): Promise<void> {
  if (amount <= 0n) throw amountNotPositive(field);
  const limits = await currencyLimits(p, executor, platformId, currency);
  if (!limits || !limits.enabledTransactionTypes.includes(direction)) throw currencyNotEnabled(currency, direction);
  if (amount < BigInt(limits.minAmount) || amount > BigInt(limits.maxAmount)) throw amountOutOfRange(field, currency, limits);
}

/** The embedded-wallet settings, or undefined when the platform has not enabled embedded wallets. */
export async function walletConfig(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<EmbeddedWalletSettings | undefined> {
  const wallet = (await configOf(p, executor, platformId)).embeddedWalletConfig as Static<typeof EmbeddedWalletConfig> | undefined;
  return wallet ? walletSettingsOf(wallet, p.publicUrl) : undefined;
}

/** The embedded-wallet settings, defaults filled in, whether or not new customers get wallets. */
export async function walletSettings(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<EmbeddedWalletSettings> {
  const wallet = (await configOf(p, executor, platformId)).embeddedWalletConfig as Static<typeof EmbeddedWalletConfig> | undefined;
  return walletSettingsOf(wallet ?? {}, p.publicUrl);
}

/** Which currencies cards may be funded in and which origins may frame the reveal page. */
export async function cardConfig(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<{ eligibleCurrencies: string[]; revealFrameAncestors: string[] }> {
  return cardConfigOf(await configOf(p, executor, platformId));
}

/** The platform's end-user terms: the current version, where it is hosted, earlier versions, and whether quotes require consent. */
export async function endUserTerms(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<EndUserTermsSettings> {
  return endUserTermsOf(await configOf(p, executor, platformId), p.publicUrl);
}

/** The platform's own fees on cross-currency transfers, as its config lists them. */
export async function feeConfigs(p: PlatformContext, executor: Executor, platformId: PlatformId): Promise<FeeConfig[]> {
  const config = await configOf(p, executor, platformId);
  return (config.feeConfigs ?? []) as FeeConfig[];
}

/** The payer data a currency's receivers require (the platform's requiredCounterpartyFields). */
export async function requiredCounterpartyFields(p: PlatformContext, executor: Executor, platformId: PlatformId, currency: string): Promise<{ name: string; mandatory: boolean }[]> {
  const config = await configOf(p, executor, platformId);
  const list = (config.supportedCurrencies ?? []) as { currencyCode: string; requiredCounterpartyFields?: { name: string; mandatory: boolean }[] }[];
  return list.find((c) => c.currencyCode === currency)?.requiredCounterpartyFields ?? [];
}

export async function umaDomain(executor: Executor, platformId: PlatformId): Promise<string> {
  const row = await executor.selectFrom('platforms').select('config').where('id', '=', platformId).executeTakeFirst();
  const domain = row?.config.umaDomain;
  return typeof domain === 'string' && domain !== '' ? domain : DEFAULT_UMA_DOMAIN;
}

/**
 * The platforms answering for a UMA domain (the public UMA endpoints are reached by host name, with
 * no credentials). A platform without a umaDomain of its own answers for the default one.
 */
export async function platformsByUmaDomain(executor: Executor, domain: string): Promise<PlatformId[]> {
  const rows = await executor
    .selectFrom('platforms')
    .select('id')
    .where((eb) => (domain === DEFAULT_UMA_DOMAIN ? eb.or([sql<boolean>`config->>'umaDomain' = ${domain}`, sql<boolean>`coalesce(config->>'umaDomain', '') = ''`]) : sql<boolean>`config->>'umaDomain' = ${domain}`))
    .execute();
  return rows.map((row) => row.id);
}

export async function readClock(p: PlatformContext, { platformId }: Scope): Promise<{ now: string; offsetSeconds: number }> {
  const row = await p.db.selectFrom('platforms').select('clock_offset_ms').where('id', '=', platformId).executeTakeFirstOrThrow();
  p.clock.invalidate(platformId);
  return { now: (await p.clock.now(platformId)).toISOString(), offsetSeconds: Math.floor(Number(row.clock_offset_ms) / 1000) };
}

/** Sandbox only: moves the platform's clock forward (never back, so nothing un-expires). */
export async function advanceClock(p: PlatformContext, ctx: UnitOfWork, seconds: number): Promise<{ now: string; offsetSeconds: number }> {
  const current = await ctx.tx.selectFrom('platforms').select('clock_offset_ms').where('id', '=', ctx.platformId).forNoKeyUpdate().executeTakeFirstOrThrow();
  const offsetSeconds = Math.floor(Number(current.clock_offset_ms) / 1000);
  if (offsetSeconds + seconds > MAX_CLOCK_OFFSET_SECONDS) throw clockOffsetTooLarge(offsetSeconds);
  const row = await ctx.tx
    .updateTable('platforms')
    .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', BigInt(seconds) * 1000n) }))
    .where('id', '=', ctx.platformId)
    .returning('clock_offset_ms')
    .executeTakeFirstOrThrow();
  p.clock.invalidate(ctx.platformId);
  // Events and jobs this makes due run when it commits, not at the next poll.
  wakeAfterCommit(ctx.tx, 'deliveries');
  wakeAfterCommit(ctx.tx, 'jobs');
  return {
    now: new Date(ctx.now.getTime() + seconds * 1000).toISOString(),
    offsetSeconds: Math.floor(Number(row.clock_offset_ms) / 1000),
  };
}

export function createPlatformService(deps: PlatformServiceDeps) {
  // Money moves read the currency limits on every request; a change made here is seen at once, one
  // made by another process within CONFIG_CACHE_MS.
  const p: PlatformContext = { ...deps, configs: new Map(), changing: new Map() };
  return {
    create: (executor: Executor, input: { name: string; now: Date }) => createPlatform(p, executor, input),
    list: () => listPlatforms(p),
    getConfig: (scope: Scope) => getConfig(p, scope),
    webhookEndpoint: (platformId: PlatformId) => webhookEndpoint(p, platformId),
    /** Without a read: whether the platform's cached configuration has no webhook endpoint (the deliverer writes such a platform's events SKIPPED). */
    knownWithoutWebhookEndpoint: (platformId: PlatformId) => knownWithoutWebhookEndpoint(p, platformId),
    updateConfig: (ctx: UnitOfWork, patch: ConfigPatch) => updateConfig(p, ctx, patch),
    checkAmount: (executor: Executor, platformId: PlatformId, currency: string, amount: bigint, direction: 'INCOMING' | 'OUTGOING', field = 'amount') =>
      checkAmount(p, executor, platformId, currency, amount, direction, field),
    currencyLimits: (executor: Executor, platformId: PlatformId, currency: string) => currencyLimits(p, executor, platformId, currency),
    walletConfig: (executor: Executor, platformId: PlatformId) => walletConfig(p, executor, platformId),
    walletSettings: (executor: Executor, platformId: PlatformId) => walletSettings(p, executor, platformId),
    cardConfig: (executor: Executor, platformId: PlatformId) => cardConfig(p, executor, platformId),
    feeConfigs: (executor: Executor, platformId: PlatformId) => feeConfigs(p, executor, platformId),
    endUserTerms: (executor: Executor, platformId: PlatformId) => endUserTerms(p, executor, platformId),
    requiredCounterpartyFields: (executor: Executor, platformId: PlatformId, currency: string) => requiredCounterpartyFields(p, executor, platformId, currency),
    umaDomain,
    platformsByUmaDomain,
    readClock: (scope: Scope) => readClock(p, scope),
    advanceClock: (ctx: UnitOfWork, seconds: number) => advanceClock(p, ctx, seconds),
  };
}
