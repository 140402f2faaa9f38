import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CURRENCY_CODES } from './lib/currencies.js';
import { parseAllowList } from './outbound/allow-list.js';
import { SANDBOX_SETTLEMENT_DELAY_MS } from './sandbox/transfer-outcomes.js';

export type Mode = 'sandbox' | 'production';

export interface Config {
  mode: Mode;
  port: number;
  host: string;
  /** Public base address printed and used in hosted links, without the version segment. */
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Named prepared statements on PostgreSQL (MONETA_PG_PREPARED_STATEMENTS=false behind a proxy that cannot carry them). */
  pgPreparedStatements: boolean;
  /** Group commit of API units of work (MONETA_COALESCE_WRITES=on|off, db/group-commit.ts). */
  coalesceWrites: boolean;
  /** Group commit's lanes on PostgreSQL (MONETA_COALESCE_LANES, 1-16); undefined: db/group-commit.ts's POSTGRES_LANES. */
  coalesceLanes: number | undefined;
  /**
   * MONETA_BENCH_CEILINGS=on (sandbox only): the bench's bare routes, which do a scenario's database
   * read with no authentication, no scope and no view (the ceiling `npm run bench` compares with).
   */
  benchCeilings: boolean;
  /**
   * MONETA_SANDBOX_SETTLE_AFTER_MS (sandbox only): how long the sandbox rail takes to settle a
   * transfer out or complete a payout that goes through (2 s; the bench sets it past its window).
   */
  sandboxSettleAfterMs: number;
  apiTokenId: string | undefined;
  apiClientSecret: string | undefined;
  /** 32-byte key (hex or base64) that encrypts secrets kept at rest. */
  encryptionKey: string | undefined;
  /** Keys of earlier rotations (comma-separated), kept only to open what they sealed until it is re-sealed. */
  previousEncryptionKeys: string[];
  logLevel: string;
  bodyLimitBytes: number;
  kycLinkTtlSeconds: number;
  /** How long a cached credential check may be trusted before the database is asked again. */
  authCacheTtlMs: number;
  /** How long a webhook endpoint has to answer before the attempt counts as failed. */
  webhookTimeoutMs: number;
  /** How long a worker holds a claimed delivery before another may retry it (crash recovery). */
  webhookLeaseMs: number;
  /** How long a quote's rate and fees hold (the spec's 1 to 5 minutes). */
  quoteTtlSeconds: number;
  /** The service's own fee on cross-currency transfers, in basis points of the total sent. */
  serviceFeeBps: number;
  /** The sandbox rate source's spread below the mid-market rate, in basis points. */
  fxSpreadBps: number;
  /** How long a fetched exchange rate is reused (the spec's "about 5 minutes"). */
  rateCacheSeconds: number;
  /** The operator's own mid rates (units of each currency per USD), from FX_RATES_FILE; they replace the sandbox's. */
  fxRates: Record<string, string> | undefined;
  /** The SMTP server one-time codes are emailed through, `smtp://user:pass@host:port` or `smtps://`; unset: none. */
  smtpUrl: string | undefined;
  /** The sender of those emails when the platform names none, `Name <address>`. */
  smtpFrom: string;
  /** The HTTP SMS gateway one-time codes are texted through (POST `{to, body}`); unset: none. */
  smsUrl: string | undefined;
  /** Sent to the SMS gateway as `Authorization: Bearer <token>`. */
  smsToken: string | undefined;
  /**
   * MONETA_OUTBOUND_ALLOW: comma-separated CIDR ranges (or single addresses) production may connect
   * to although they are not public, such as the operator's own SMS gateway or identity provider,
   * over https or plain http. Every other outbound request must reach a public address over https.
   * It applies to every outbound request, platform-supplied URLs included, so keep it narrow.
   * The sandbox connects anywhere and ignores it.
   */
  outboundAllow: string[];
  /**
   * MONETA_RATE_LIMIT and MONETA_RATE_LIMIT_BURST: a token bucket per credential (API token, agent),
   * refilled at `perSecond` and holding at most `burst` requests; undefined when `off`.
   */
  rateLimit: RateLimit | undefined;
  /** MONETA_REDIS_URL: the Redis the API processes share their rate limits through; unset: each process counts alone, in memory. */
  redisUrl: string | undefined;
  /** MONETA_REDIS_PREFIX: what every key this service writes in Redis starts with (several installations may share one Redis). */
  redisPrefix: string;
  /** The environment the settings were read from; modules read their own sections from it (ModuleDefinition.settings). */
  environment: Readonly<Record<string, string | undefined>>;
}

export interface RateLimit {
  /** Requests per second the bucket refills at (a positive number; below 1 is one request every 1/perSecond seconds). */
  perSecond: number;
  /** Requests the bucket holds: how many may come at once after a quiet spell. */
  burst: number;
}

/** Stripe's: 100 requests per second in live mode, 25 in test mode. */
const DEFAULT_RATE_PER_SECOND = { production: 100, sandbox: 25 } as const;

export const API_VERSION = '2025-10-13';
export const API_PREFIX = `/${API_VERSION}`;

export class ConfigError extends Error {}

function intSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** A URL with one of `protocols`, or undefined when unset. The value is not quoted back: it may hold a password. */
function urlSetting(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || !protocols.includes(url.protocol) || url.hostname === '') {
    throw new ConfigError(`${name} must be a ${protocols.map((p) => `${p}//`).join(' or ')} URL`);
  }
  return raw;
}

function cidrListSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  try {
    return parseAllowList(env[name] ?? '');
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

function rateLimitSetting(env: NodeJS.ProcessEnv, mode: Mode): RateLimit | undefined {
  const raw = (env.MONETA_RATE_LIMIT ?? '').trim();
  if (raw.toLowerCase() === 'off') return undefined;
  let perSecond: number = DEFAULT_RATE_PER_SECOND[mode];
  if (raw !== '') {
    perSecond = Number(raw);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(raw) || !(perSecond > 0) || perSecond > 1_000_000) {
      throw new ConfigError(`MONETA_RATE_LIMIT must be "off" or the requests per second each credential may send (a positive number up to 1000000), got "${raw}"`);
    }
  }
  // One second's worth by default, at least one request.
  const burst = intSetting(env, 'MONETA_RATE_LIMIT_BURST', Math.max(1, Math.ceil(perSecond)), 1, 10_000_000);
  return { perSecond, burst };
}

/** MONETA_COALESCE_WRITES: on (the default) or off; the test harness reads it too. */
export function coalesceWritesSetting(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = (env.MONETA_COALESCE_WRITES ?? '').trim().toLowerCase();
  if (raw === 'off' || raw === 'false') return false;
  if (raw === '' || raw === 'on' || raw === 'true') return true;
  throw new ConfigError(`MONETA_COALESCE_WRITES must be "on" or "off", got "${env.MONETA_COALESCE_WRITES}"`);
}

function benchCeilingsSetting(env: NodeJS.ProcessEnv, mode: Mode): boolean {
  const raw = (env.MONETA_BENCH_CEILINGS ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'off') return false;
  if (raw !== 'on') throw new ConfigError(`MONETA_BENCH_CEILINGS must be "on" or "off", got "${env.MONETA_BENCH_CEILINGS}"`);
  // Unauthenticated reads of any platform's rows: never where real customers are.
  if (mode === 'production') throw new ConfigError('MONETA_BENCH_CEILINGS is for the sandbox only; production serves no unauthenticated reads');
  return true;
}

function sandboxSettleAfterSetting(env: NodeJS.ProcessEnv, mode: Mode): number {
  const value = intSetting(env, 'MONETA_SANDBOX_SETTLE_AFTER_MS', SANDBOX_SETTLEMENT_DELAY_MS, 0, 3_600_000);
  if (mode === 'production' && env.MONETA_SANDBOX_SETTLE_AFTER_MS) throw new ConfigError('MONETA_SANDBOX_SETTLE_AFTER_MS is for the sandbox only; a real rail settles when it settles');
  return value;
}

/** Reads every setting from the environment, validated, with defaults. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const modeRaw = (env.MONETA_MODE ?? 'sandbox').toLowerCase();
  if (modeRaw !== 'sandbox' && modeRaw !== 'production') {
    throw new ConfigError(`MONETA_MODE must be "sandbox" or "production", got "${env.MONETA_MODE}"`);
  }
  const mode: Mode = modeRaw;
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST ?? (mode === 'production' ? '0.0.0.0' : '127.0.0.1');
  const databaseUrl = env.DATABASE_URL || undefined;
  const config: Config = {
    mode,
    port,
    host,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: resolve(env.DATA_DIR ?? './.data'),
    databaseUrl,
    pgPreparedStatements: env.MONETA_PG_PREPARED_STATEMENTS !== 'false',
    coalesceWrites: coalesceWritesSetting(env),
    coalesceLanes: env.MONETA_COALESCE_LANES ? intSetting(env, 'MONETA_COALESCE_LANES', 1, 1, 16) : undefined,
    benchCeilings: benchCeilingsSetting(env, mode),
    sandboxSettleAfterMs: sandboxSettleAfterSetting(env, mode),
    apiTokenId: env.API_TOKEN_ID || undefined,
    apiClientSecret: env.API_CLIENT_SECRET || undefined,
    encryptionKey: env.MONETA_ENCRYPTION_KEY || undefined,
    previousEncryptionKeys: (env.MONETA_PREVIOUS_ENCRYPTION_KEYS ?? '').split(',').map((k) => k.trim()).filter((k) => k !== ''),
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimitBytes: intSetting(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    kycLinkTtlSeconds: intSetting(env, 'KYC_LINK_TTL_SECONDS', 24 * 3600, 60, 30 * 24 * 3600),
    authCacheTtlMs: intSetting(env, 'AUTH_CACHE_TTL_MS', 5000, 0, 600_000),
    webhookTimeoutMs: intSetting(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookLeaseMs: intSetting(env, 'WEBHOOK_LEASE_MS', 60_000, 200, 3_600_000),
    quoteTtlSeconds: intSetting(env, 'QUOTE_TTL_SECONDS', 300, 60, 300),
    serviceFeeBps: intSetting(env, 'SERVICE_FEE_BPS', 10, 0, 1000),
    fxSpreadBps: intSetting(env, 'FX_SPREAD_BPS', 50, 0, 1000),
    rateCacheSeconds: intSetting(env, 'RATE_CACHE_SECONDS', 300, 1, 3600),
    fxRates: env.FX_RATES_FILE ? readRatesFile(env.FX_RATES_FILE) : undefined,
    smtpUrl: urlSetting(env, 'MONETA_SMTP_URL', ['smtp:', 'smtps:']),
    smtpFrom: env.MONETA_SMTP_FROM || 'Moneta <no-reply@localhost>',
    smsUrl: urlSetting(env, 'MONETA_SMS_URL', ['http:', 'https:']),
    smsToken: env.MONETA_SMS_TOKEN || undefined,
    outboundAllow: cidrListSetting(env, 'MONETA_OUTBOUND_ALLOW'),
    rateLimit: rateLimitSetting(env, mode),
    redisUrl: urlSetting(env, 'MONETA_REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: env.MONETA_REDIS_PREFIX || 'moneta:',
    environment: { ...env },
  };
  if (config.webhookLeaseMs <= config.webhookTimeoutMs) {
    throw new ConfigError('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS (a lease must outlive the attempt it covers)');
  }
  if ((config.apiTokenId === undefined) !== (config.apiClientSecret === undefined)) {
    throw new ConfigError('API_TOKEN_ID and API_CLIENT_SECRET must be set together');
  }
  if (config.apiTokenId !== undefined && /[:\s]/.test(config.apiTokenId)) {
    throw new ConfigError('API_TOKEN_ID may not contain a colon or white space (it is the HTTP Basic user name)');
  }
  if (config.apiClientSecret !== undefined && config.apiClientSecret.length < 16) {
    throw new ConfigError('API_CLIENT_SECRET must be at least 16 characters');
  }
  if (mode === 'production') {
    const missing: string[] = [];
    if (!databaseUrl) missing.push('DATABASE_URL (production runs on PostgreSQL only)');
    if (!config.encryptionKey) missing.push('MONETA_ENCRYPTION_KEY (32 random bytes, hex or base64)');
    if (missing.length > 0) {
      throw new ConfigError(`production mode refuses to start without: ${missing.join('; ')}`);
    }
  }
  if (!/@[^@\s>]+>?\s*$/.test(config.smtpFrom)) {
    throw new ConfigError(`MONETA_SMTP_FROM must hold an email address, such as "Moneta <no-reply@example.com>", got "${config.smtpFrom}"`);
  }
  if (config.encryptionKey !== undefined) parseEncryptionKey(config.encryptionKey);
  for (const key of config.previousEncryptionKeys) parseEncryptionKey(key, 'MONETA_PREVIOUS_ENCRYPTION_KEYS');
  return config;
}

/** `{"USD": "1", "EUR": "0.92", ...}`: units of each currency per US dollar, as decimal strings (or numbers). */
function readRatesFile(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`FX_RATES_FILE ${path} could not be read as JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigError('FX_RATES_FILE must hold a JSON object of currency code to rate per USD');
  const rates: Record<string, string> = {};
  for (const [code, value] of Object.entries(parsed as Record<string, unknown>)) {
    const text = typeof value === 'number' ? String(value) : value;
    if (!CURRENCY_CODES.includes(code)) throw new ConfigError(`FX_RATES_FILE: unknown currency ${code} (known: ${CURRENCY_CODES.join(', ')})`);
    if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(text) || /^0(\.0+)?$/.test(text)) {
      throw new ConfigError(`FX_RATES_FILE: ${code} must be a positive decimal (units per USD), got ${JSON.stringify(value)}`);
    }
    rates[code] = text;
  }
  if (rates.USD !== undefined && rates.USD !== '1') throw new ConfigError('FX_RATES_FILE: rates are per US dollar, so USD must be 1');
  return rates;
}

export function parseEncryptionKey(raw: string, setting = 'MONETA_ENCRYPTION_KEY'): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError(`${setting} must decode to exactly 32 bytes`);
  return key;
}

/** The settings, or a one-line reason on stderr and exit code 2: how every entry point starts. */
export function loadConfigOrExit(program: string, env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${program}: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
