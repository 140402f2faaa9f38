import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { createApi, serverRoot } from './api.js';
import { configPath, profileName, readConfig, removeConfig, writeConfig } from './config.js';
import { credentialsOf, globals, modeOf } from './context.js';
import { CliError, UsageError } from './errors.js';
import { print, renderObject } from './output.js';
import { ask } from './prompt.js';

/** `moneta login`, `logout`, `whoami`. The secret is never printed. */

interface LoginOptions {
  baseUrl?: string;
  tokenId?: string;
  secret?: string;
}

async function value(given: string | undefined, envName: string, question: string, flag: string, hidden = false): Promise<string> {
  const found = given ?? process.env[envName];
  if (found) return found;
  if (process.stdin.isTTY) {
    const answer = await ask(question, { hidden });
    if (answer) return answer;
  }
  throw new UsageError(`missing ${flag} (or ${envName})`);
}

/** What a local sandbox (`npm start`) wrote for its operator: DATA_DIR/credentials.json. */
export interface LocalSandbox {
  file: string;
  baseUrl: string;
  tokenId: string;
  clientSecret: string;
}

const SANDBOX_FILE = 'credentials.json';

/**
 * The credentials a local sandbox printed at start, from its credentials file: in `DATA_DIR` when
 * set, else in `.data/` of this folder or the nearest folder above that has one (where `npm start`
 * was run). The address is the one the sandbox recorded, else `PORT` on localhost, else :8080.
 */
export function findLocalSandbox(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): LocalSandbox | undefined {
  const candidates: string[] = [];
  if (env.DATA_DIR) candidates.push(join(resolve(cwd, env.DATA_DIR), SANDBOX_FILE));
  for (let dir = resolve(cwd), i = 0; i < 20; i++) {
    candidates.push(join(dir, '.data', SANDBOX_FILE));
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as { clientId?: unknown; clientSecret?: unknown; baseUrl?: unknown };
      if (typeof saved.clientId !== 'string' || typeof saved.clientSecret !== 'string') continue;
      const baseUrl = typeof saved.baseUrl === 'string' ? saved.baseUrl : `http://localhost:${env.PORT ?? '8080'}`;
      return { file, baseUrl, tokenId: saved.clientId, clientSecret: saved.clientSecret };
    } catch {
      continue;
    }
  }
  return undefined;
}

function platformIdOf(json: unknown): string | undefined {
  const id = (json as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

export async function login(command: Command): Promise<void> {
  const given = command.opts<LoginOptions>();
  // Nothing given at all: the local sandbox's own credentials, as `npm start` printed them.
  const nothingGiven = [given.baseUrl, given.tokenId, given.secret, process.env.MONETA_BASE_URL, process.env.MONETA_TOKEN_ID, process.env.MONETA_CLIENT_SECRET].every((v) => v === undefined);
  const sandbox = nothingGiven ? findLocalSandbox() : undefined;
  if (sandbox) process.stderr.write(`Using the local sandbox's credentials from ${sandbox.file}.\n`);
  const options: LoginOptions = sandbox ? { baseUrl: sandbox.baseUrl, tokenId: sandbox.tokenId, secret: sandbox.clientSecret } : given;
  const baseUrl = (await value(options.baseUrl, 'MONETA_BASE_URL', 'Base URL (e.g. http://localhost:8080): ', '--base-url')).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url is not a URL: ${baseUrl}`);
  }
  const tokenId = await value(options.tokenId, 'MONETA_TOKEN_ID', 'API token id: ', '--token-id');
  const clientSecret = await value(options.secret, 'MONETA_CLIENT_SECRET', 'API client secret: ', '--secret', true);
  // A real call proves the pair works before anything is stored; a refusal throws the API's error.
  const answer = await createApi({ baseUrl, tokenId, clientSecret }, { retry: { maxRetries: 0 } }).call({ method: 'GET', path: '/config' });
  const config = readConfig();
  const name = profileName(globals(command).profile, config);
  config.profiles[name] = { baseUrl, tokenId, clientSecret };
  if (!config.defaultProfile || !config.profiles[config.defaultProfile]) config.defaultProfile = name;
  const path = writeConfig(config);
  const platform = platformIdOf(answer.json);
  if (modeOf(command) === 'json') {
    print(JSON.stringify({ profile: name, baseUrl, tokenId, platformId: platform ?? null, configPath: path }));
  } else {
    print(`Logged in to ${baseUrl} as token ${tokenId}${platform ? ` (platform ${platform})` : ''}.`);
    print(`Credentials saved in ${path} (mode 0600), profile "${name}".`);
  }
}

export function logout(command: Command): void {
  const config = readConfig();
  const name = profileName(globals(command).profile, config);
  if (!config.profiles[name]) throw new CliError(`not logged in (no profile "${name}" in ${configPath()})`);
  delete config.profiles[name];
  if (config.defaultProfile === name) {
    const next = Object.keys(config.profiles)[0];
    if (next) config.defaultProfile = next;
    else delete config.defaultProfile;
  }
  if (Object.keys(config.profiles).length === 0) removeConfig();
  else writeConfig(config);
  print(`Logged out: removed profile "${name}" from ${configPath()}.`);
}

export async function whoami(command: Command): Promise<void> {
  const credentials = credentialsOf(command);
  const api = createApi(credentials, { retry: { maxRetries: 0 } });
  const health = await fetch(`${serverRoot(credentials.baseUrl)}/health`, { signal: AbortSignal.timeout(10_000) })
    .then(async (r) => (await r.json()) as { mode?: unknown; version?: unknown })
    .catch(() => undefined);
  const config = await api.call({ method: 'GET', path: '/config' });
  const who = {
    baseUrl: credentials.baseUrl,
    tokenId: credentials.tokenId,
    platformId: platformIdOf(config.json) ?? null,
    mode: typeof health?.mode === 'string' ? health.mode : 'unknown',
    profile: credentials.profile ?? null,
    credentialsFrom: credentials.source,
  };
  print(modeOf(command) === 'json' ? JSON.stringify(who) : renderObject(who));
}
