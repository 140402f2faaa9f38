import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Db } from './db/schema.js';
import { hashSecret } from './lib/secrets.js';
import type { Container } from './contract/container.js';
import type { ApiTokenId, PlatformId } from './core/ids.js';

export interface Credentials {
  platformId: PlatformId;
  tokenId: ApiTokenId;
  clientId: string;
  /** Known only when it came from the environment or the credentials file this service wrote. */
  clientSecret: string | undefined;
  source: 'environment' | 'generated' | 'credentials file' | 'existing token';
}

const CREDENTIALS_FILE = 'credentials.json';

async function firstPlatform(db: Db, services: Container, now: Date, name: string): Promise<PlatformId> {
  const existing = await db.selectFrom('platforms').select('id').orderBy('created_at').limit(1).executeTakeFirst();
  if (existing) return existing.id;
  return (await services.platforms.create(db, { name, now })).id;
}

/**
 * Makes sure the operator can authenticate on first start. With API_TOKEN_ID/API_CLIENT_SECRET the
 * token is created (or its secret reset) to match; in sandbox without them, a token is generated
 * once and its pair written to DATA_DIR with mode 0600 so it can be found again.
 */
export async function ensureCredentials(config: Config, db: Db, services: Container): Promise<Credentials | undefined> {
  const now = new Date();
  if (config.apiTokenId && config.apiClientSecret) {
    const token = await db.selectFrom('api_tokens').select(['id', 'platform_id', 'secret_hash']).where('client_id', '=', config.apiTokenId).where('revoked_at', 'is', null).executeTakeFirst();
    if (token) {
      const secretHash = hashSecret(config.apiClientSecret);
      if (token.secret_hash !== secretHash) {
        await db.updateTable('api_tokens').set({ secret_hash: secretHash, updated_at: now }).where('id', '=', token.id).execute();
      }
      return { platformId: token.platform_id, tokenId: token.id, clientId: config.apiTokenId, clientSecret: config.apiClientSecret, source: 'environment' };
    }
    const platformId = await firstPlatform(db, services, now, 'Default platform');
    const created = await services.tokens.insertToken(db, {
      platformId,
      name: 'Operator token (from API_TOKEN_ID)',
      permissions: ['MANAGE'],
      clientId: config.apiTokenId,
      secret: config.apiClientSecret,
      now,
    });
    return { platformId, tokenId: created.id, clientId: created.clientId, clientSecret: config.apiClientSecret, source: 'environment' };
  }

  if (config.mode !== 'sandbox') return undefined;

  const file = join(config.dataDir, CREDENTIALS_FILE);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { clientId: string; clientSecret: string };
    const auth = await services.tokens.verify(saved.clientId, saved.clientSecret);
    if (auth) return { platformId: auth.platformId, tokenId: auth.tokenId, clientId: saved.clientId, clientSecret: saved.clientSecret, source: 'credentials file' };
  }
  const platformId = await firstPlatform(db, services, now, 'Sandbox platform');
  const created = await services.tokens.insertToken(db, { platformId, name: 'Sandbox token', permissions: ['MANAGE'], now });
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify({ platformId, tokenId: created.id, clientId: created.clientId, clientSecret: created.clientSecret }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { platformId, tokenId: created.id, clientId: created.clientId, clientSecret: created.clientSecret, source: 'generated' };
}

export function credentialsFilePath(config: Config): string {
  return join(config.dataDir, CREDENTIALS_FILE);
}

/**
 * Records where this sandbox answers in the credentials file it wrote (or read), so `moneta login`
 * run with nothing else finds both the credentials and the address. Left alone when the
 * credentials came from the environment (there is no file of ours then).
 */
export function recordSandboxAddress(config: Config, credentials: Credentials | undefined, baseUrl: string): void {
  if (!credentials || (credentials.source !== 'generated' && credentials.source !== 'credentials file')) return;
  const file = credentialsFilePath(config);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (saved.baseUrl === baseUrl) return;
  writeFileSync(file, JSON.stringify({ ...saved, baseUrl }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
}
