import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, invalidInput } from '../../core/errors.js';
import type { AuthMethodId, InternalAccountId, PlatformId } from '../../core/ids.js';
import { SignatureRequired } from '../../core/signature.js';
import { runUnitOfWork, type Scope } from '../../core/unit-of-work.js';
import type { Db, Tx } from '../../db/schema.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { Clock } from '../../lib/clock.js';
import { toJson } from '../../lib/json.js';
import { escapeHtml } from '../../lib/html.js';
import { browserBundle } from '../../http/browser-bundle.js';
import type { WalletService } from './service.js';

/** How long a demo link works. */
export const DEMO_LINK_TTL_MS = 30 * 60_000;

interface DemoLink {
  platformId: PlatformId;
  accountId: InternalAccountId;
  expiresAt: number;
}

/**
 * The sandbox wallet page: what a platform's wallet app does, in one page a person can use. It
 * registers a passkey, logs in with it and signs an action; the session key is made, opened and
 * used in the browser only. Its small backend (under the link) stands in for the platform's own.
 * A link names a wallet and works for 30 minutes; it is kept as a hash.
 */
export function createDemoLinks(db: Db) {
  return {
    async issue(tx: Tx, platformId: PlatformId, accountId: InternalAccountId, now: Date): Promise<{ token: string; expiresAt: Date }> {
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(now.getTime() + DEMO_LINK_TTL_MS);
      await tx.insertInto('wallet_demo_links').values({ token_hash: sha256Hex(token), platform_id: platformId, account_id: accountId, expires_at: expiresAt }).execute();
      return { token, expiresAt };
    },
    async find(token: string): Promise<DemoLink | undefined> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
      const row = await db.selectFrom('wallet_demo_links').selectAll().where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
      return row ? { platformId: row.platform_id, accountId: row.account_id, expiresAt: row.expires_at.getTime() } : undefined;
    },
  };
}

export type DemoLinks = ReturnType<typeof createDemoLinks>;

/** The browser builds of @hpke/core and @noble/curves (and what they import), served as they are published. */
function packageDir(name: string): string {
  return dirname(fileURLToPath(import.meta.resolve(name)));
}

/** Scripts from this origin only, plus the page's import map (inline, so it carries a nonce). */
function pageCsp(nonce: string): string {
  return `default-src 'none'; script-src 'self' 'nonce-${nonce}'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

/** The page's script, browser/demo.ts; the libraries stay imports, resolved by the import map below. */
const DEMO_ENTRY = new URL('./browser/demo.ts', import.meta.url);
const DEMO_EXTERNAL = ['@hpke/core', '@noble/curves/*'];

const IMPORT_MAP = JSON.stringify({
  imports: {
    '@hpke/core': '/hosted/wallets/assets/hpke-core/mod.js',
    '@hpke/common': '/hosted/wallets/assets/hpke-common/mod.js',
    '@noble/curves/': '/hosted/wallets/assets/noble-curves/',
    '@noble/hashes/': '/hosted/wallets/assets/noble-hashes/',
  },
});

function page(token: string, nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Moneta sandbox wallet</title>
<style>
 body{max-width:40rem;margin:2rem auto;padding:0 1rem;font:16px/1.5 system-ui,sans-serif;color:#1d2330}
 button{font:inherit;padding:.5rem 1rem;margin:.25rem .5rem .25rem 0;border-radius:8px;border:1px solid #3454d1;background:#3454d1;color:#fff;cursor:pointer}
 button:disabled{opacity:.5;cursor:default} pre{background:#f4f6fb;padding:.75rem;border-radius:8px;white-space:pre-wrap;word-break:break-all}
 .step{margin:1.25rem 0;padding:1rem;border:1px solid #dfe3ee;border-radius:12px}
</style>
<script type="importmap" nonce="${nonce}">${IMPORT_MAP}</script>
</head><body data-token="${token}">
<h1>Sandbox wallet</h1>
<p>This page plays the end user’s wallet app: the passkey lives in this browser, and the session key is opened and used here only.</p>
<div class="step"><h2>1. Register a passkey</h2><button id="register">Register a passkey</button></div>
<div class="step"><h2>2. Log in with it</h2><button id="login" disabled>Log in with the passkey</button></div>
<div class="step"><h2>3. Sign an action</h2><button id="sign" disabled>Make the wallet private (signed)</button></div>
<pre id="status">Ready.</pre>
<script type="module" src="/hosted/wallets/assets/wallet.js"></script>
</body></html>`;
}

export async function walletDemoPages(app: FastifyInstance, deps: { wallets: WalletService; db: Db; clock: Clock; links: DemoLinks }): Promise<void> {
  const { wallets, db, clock, links } = deps;
  const script = await browserBundle(DEMO_ENTRY, { external: DEMO_EXTERNAL });
  const assetRoots: Record<string, string> = {
    'hpke-core': packageDir('@hpke/core'),
    'hpke-common': packageDir('@hpke/common'),
    'noble-curves': packageDir('@noble/curves/nist.js'),
    'noble-hashes': packageDir('@noble/hashes/sha2.js'),
  };

  async function linkOf(request: FastifyRequest<{ Params: { token: string } }>): Promise<{ link: DemoLink; scope: Scope } | undefined> {
    const link = await links.find(request.params.token);
    if (!link) return undefined;
    const now = await clock.now(link.platformId);
    return link.expiresAt > now.getTime() ? { link, scope: { platformId: link.platformId, now, actor: { type: 'HOSTED_PAGE' } } } : undefined;
  }

  function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
    return reply.code(status).header('cache-control', 'no-store').type('application/json').send(toJson(body));
  }

  /** Runs one of the page's calls as the platform would make it, answering as the API does. */
  async function act(request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, work: (found: { link: DemoLink; scope: Scope }) => Promise<unknown>): Promise<FastifyReply> {
    const found = await linkOf(request);
    if (!found) return send(reply, 410, { status: 410, code: 'EXPIRED', message: 'This link has expired; ask the platform for a new one' });
    try {
      const result = await work(found);
      if (result instanceof SignatureRequired) return send(reply, 202, result.challenge);
      return send(reply, 200, result ?? {});
    } catch (error) {
      if (error instanceof DomainError) return send(reply, error.status, error.toBody());
      throw error;
    }
  }

  app.get<{ Params: { token: string } }>('/wallets/demo/:token', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const found = await linkOf(request);
    const nonce = randomBytes(16).toString('base64url');
    void reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff').header('content-security-policy', pageCsp(nonce)).type('text/html; charset=utf-8');
    if (!found) return reply.code(410).send('<!doctype html><title>Link expired</title><p id="gone">This link has expired. Ask the platform for a new one.</p>');
    return reply.send(page(escapeHtml(request.params.token), nonce));
  });

  app.get<{ Params: { file: string } }>('/wallets/assets/wallet.js', { schema: { hide: true }, config: { public: true } }, async (_request, reply) =>
    reply.header('cache-control', 'no-store').type('text/javascript; charset=utf-8').send(script),
  );

  app.get<{ Params: { pkg: string; '*': string } }>('/wallets/assets/:pkg/*', { schema: { hide: true }, config: { public: true } }, async (request, reply) => {
    const root = assetRoots[request.params.pkg];
    const relative = normalize(request.params['*']);
    if (!root || relative.startsWith('..') || !relative.endsWith('.js')) return reply.code(404).send();
    try {
      return reply.header('cache-control', 'public, max-age=3600').type('text/javascript; charset=utf-8').send(await readFile(join(root, relative), 'utf8'));
    } catch {
      return reply.code(404).send();
    }
  });

  app.get<{ Params: { token: string } }>('/wallets/demo/:token/state', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, async ({ link, scope }) => {
      const settings = await wallets.settings(link.platformId);
      return {
        accountId: link.accountId,
        relyingParty: { id: settings.relyingPartyId, name: settings.appName },
        credentials: (await wallets.credentials.list(scope, link.accountId)).data,
      };
    }),
  );

  app.post<{ Params: { token: string } }>('/wallets/demo/:token/passkey-options', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, async ({ link }) => {
      const settings = await wallets.settings(link.platformId);
      return { challenge: randomBytes(32).toString('base64url'), rp: { id: settings.relyingPartyId, name: settings.appName }, user: { id: Buffer.from(link.accountId).toString('base64url'), name: link.accountId } };
    }),
  );

  app.post<{ Params: { token: string }; Body: Record<string, unknown> }>('/wallets/demo/:token/passkeys', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, async ({ link, scope }) => {
      const { nickname, challenge, attestation } = request.body ?? {};
      const fields = attestation as Record<string, unknown> | undefined;
      const strings = typeof challenge === 'string' && typeof fields === 'object' && fields !== null && ['credentialId', 'clientDataJson', 'attestationObject'].every((f) => typeof fields[f] === 'string');
      if (!strings) throw invalidInput([{ field: 'attestation', message: 'challenge and the attestation’s credentialId, clientDataJson and attestationObject are required' }]);
      return wallets.credentials.create(scope, { type: 'PASSKEY', accountId: link.accountId, nickname: typeof nickname === 'string' ? nickname.slice(0, 100) : 'This browser', challenge, attestation: attestation as never }, {});
    }),
  );

  app.post<{ Params: { token: string; id: string }; Body: { clientPublicKey?: string } }>('/wallets/demo/:token/credentials/:id/challenge', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, ({ scope }) => wallets.login.challenge(scope, request.params.id as AuthMethodId, request.body.clientPublicKey)),
  );

  app.post<{ Params: { token: string; id: string }; Body: { assertion?: unknown; requestId?: string } }>('/wallets/demo/:token/credentials/:id/verify', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, async ({ scope }) => {
      const assertion = request.body?.assertion as Record<string, unknown> | undefined;
      const strings = typeof assertion === 'object' && assertion !== null && ['credentialId', 'clientDataJson', 'authenticatorData', 'signature'].every((f) => typeof assertion[f] === 'string');
      if (!strings) throw invalidInput([{ field: 'assertion', message: 'the assertion’s credentialId, clientDataJson, authenticatorData and signature are required' }]);
      return wallets.login.verify(scope, request.params.id as AuthMethodId, { type: 'PASSKEY', assertion: assertion as never }, { requestId: request.body.requestId });
    }),
  );

  app.post<{ Params: { token: string }; Body: { privateEnabled?: boolean; signature?: string; requestId?: string } }>('/wallets/demo/:token/account', { schema: { hide: true }, config: { public: true } }, (request, reply) =>
    act(request, reply, ({ link, scope }) =>
      runUnitOfWork(db, scope, (uow) => wallets.accounts.update(uow, link.accountId, { privateEnabled: request.body.privateEnabled === true }, { signature: request.body.signature, requestId: request.body.requestId })),
    ),
  );
}
