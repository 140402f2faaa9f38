import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './errors.js';

/**
 * Where `moneta login` keeps credentials: `$XDG_CONFIG_HOME/moneta/config.json` (default
 * `~/.config/moneta`), the directory mode 0700 and the file 0600, since it holds client secrets.
 * Environment variables (MONETA_BASE_URL, MONETA_TOKEN_ID, MONETA_CLIENT_SECRET) override it, for CI.
 */

export interface Profile {
  baseUrl: string;
  tokenId: string;
  clientSecret: string;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

export type Env = Record<string, string | undefined>;

export const DEFAULT_PROFILE = 'default';
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function configDir(env: Env = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'moneta');
}

export function configPath(env: Env = process.env): string {
  return join(configDir(env), 'config.json');
}

function isProfile(value: unknown): value is Profile {
  if (typeof value !== 'object' || value === null) return false;
  const p = value as Record<string, unknown>;
  return typeof p.baseUrl === 'string' && typeof p.tokenId === 'string' && typeof p.clientSecret === 'string';
}

export function readConfig(env: Env = process.env): ConfigFile {
  const path = configPath(env);
  if (!existsSync(path)) return { profiles: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const raw = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { defaultProfile?: unknown; profiles?: unknown };
  const profiles: Record<string, Profile> = {};
  if (typeof raw.profiles === 'object' && raw.profiles !== null) {
    for (const [name, profile] of Object.entries(raw.profiles)) if (isProfile(profile)) profiles[name] = profile;
  }
  return { ...(typeof raw.defaultProfile === 'string' ? { defaultProfile: raw.defaultProfile } : {}), profiles };
}

/** Writes atomically (temp file, then rename), the directory 0700 and the file 0600 whatever the umask. */
export function writeConfig(config: ConfigFile, env: Env = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  chmodSync(dir, DIR_MODE);
  const path = configPath(env);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: FILE_MODE });
  chmodSync(temp, FILE_MODE);
  renameSync(temp, path);
  return path;
}

export function removeConfig(env: Env = process.env): void {
  rmSync(configPath(env), { force: true });
}

export interface Credentials extends Profile {
  /** The profile they came from, when any. */
  profile?: string;
  /** What supplied them: `env`, `profile` or both. */
  source: 'env' | 'profile' | 'env+profile';
}

/** The profile to use: --profile, then MONETA_PROFILE, then the file's default. */
export function profileName(explicit: string | undefined, config: ConfigFile, env: Env = process.env): string {
  return explicit ?? env.MONETA_PROFILE ?? config.defaultProfile ?? DEFAULT_PROFILE;
}

/** Credentials for a call: each of MONETA_BASE_URL, MONETA_TOKEN_ID, MONETA_CLIENT_SECRET overrides the stored profile's. */
export function resolveCredentials(options: { profile?: string | undefined }, env: Env = process.env): Credentials {
  const config = readConfig(env);
  const name = profileName(options.profile, config, env);
  const stored = config.profiles[name];
  if (options.profile !== undefined && !stored && !(env.MONETA_TOKEN_ID && env.MONETA_CLIENT_SECRET)) {
    throw new CliError(`no profile "${options.profile}": run moneta login --profile ${options.profile}`);
  }
  const baseUrl = env.MONETA_BASE_URL || stored?.baseUrl;
  const tokenId = env.MONETA_TOKEN_ID || stored?.tokenId;
  const clientSecret = env.MONETA_CLIENT_SECRET || stored?.clientSecret;
  if (!baseUrl || !tokenId || !clientSecret) {
    throw new CliError('not logged in: run moneta login (or set MONETA_BASE_URL, MONETA_TOKEN_ID and MONETA_CLIENT_SECRET)');
  }
  const fromEnv = Boolean(env.MONETA_BASE_URL || env.MONETA_TOKEN_ID || env.MONETA_CLIENT_SECRET);
  return {
    baseUrl,
    tokenId,
    clientSecret,
    ...(stored ? { profile: name } : {}),
    source: stored ? (fromEnv ? 'env+profile' : 'profile') : 'env',
  };
}
