import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import type { ApiError, ApiToken, Customer, List, PlatformConfig, SandboxClock } from '../../../../../test/wire-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

/** Creates a token through the API and returns it as a caller that authenticates with it. */
async function createToken(owner: TestPlatform, name: string, permissions: string[]): Promise<{ id: string; caller: TestPlatform; body: Record<string, unknown> }> {
  const res = await t.api<ApiToken>(owner, 'POST', '/tokens', { name, permissions });
  expect(res.status).toBe(201);
  const { id, clientId, clientSecret } = res.body as { id: string; clientId: string; clientSecret: string };
  return { id, body: res.body, caller: { id: owner.id, clientId, clientSecret, authorization: basic(clientId, clientSecret) } };
}

describe('API tokens', () => {
  it('creating a token returns 201 with its secret, which neither GET nor the list ever shows again', async () => {
    const res = await t.api<ApiToken>(t.platform, 'POST', '/tokens', { name: 'Reporting', permissions: ['VIEW'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Reporting', permissions: ['VIEW'] });
    expect(res.body.id).toMatch(/^ApiToken:[0-9a-f-]{36}$/);
    expect(res.body.clientId).toBe(res.body.id.slice('ApiToken:'.length));
    expect(res.body.clientSecret).toMatch(/^sk_[A-Za-z0-9_-]{40,}$/);
    expect(Date.parse(res.body.createdAt)).not.toBeNaN();

    const got = await t.api(t.platform, 'GET', `/tokens/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty('clientSecret');
    const { clientSecret, ...withoutSecret } = res.body as Record<string, unknown>;
    expect(got.body).toEqual(withoutSecret);
    expect(got.text).not.toContain(clientSecret as string);

    const list = await t.api<List<ApiToken>>(t.platform, 'GET', '/tokens?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(res.body.id);
    for (const token of list.body.data as Record<string, unknown>[]) expect(token).not.toHaveProperty('clientSecret');
    expect(list.text).not.toContain(clientSecret as string);
  });

  it('a new token authenticates with its clientId, or with its ApiToken:<uuid> id, as the Basic user name', async () => {
    const { id, caller } = await createToken(t.platform, 'Auth check', ['VIEW']);
    const byClientId = await t.api(caller, 'GET', '/customers');
    expect(byClientId.status).toBe(200);
    const byTokenId = await t.api({ ...caller, authorization: basic(id, caller.clientSecret) }, 'GET', '/customers');
    expect(byTokenId.status).toBe(200);

    const wrongSecret = await t.api({ ...caller, authorization: basic(caller.clientId, `${caller.clientSecret}x`) }, 'GET', '/customers');
    expect(wrongSecret.status).toBe(401);
    expect(expectErrorShape(wrongSecret).code).toBe('UNAUTHORIZED');
    const wrongSecretById = await t.api({ ...caller, authorization: basic(id, 'sk_not-the-secret') }, 'GET', '/customers');
    expect(wrongSecretById.status).toBe(401);
    const none = await t.api(null, 'GET', '/customers');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it('lists tokens in pages with a cursor, filtered by name and creation time, with a totalCount', async () => {
    const p = await t.newPlatform('token list platform');
    const early: string[] = [];
    for (let i = 0; i < 3; i++) early.push((await createToken(p, i === 0 ? 'ci-deploy' : `early-${i}`, ['VIEW'])).id);
    // Move this platform's clock forward so the next tokens are created measurably later.
    const advanced = await t.api<SandboxClock>(p, 'POST', '/sandbox/clock/advance', { seconds: 3600 });
    expect(advanced.status).toBe(200);
    const boundary = new Date(Date.parse(advanced.body.now) - 1800 * 1000).toISOString();
    const late: string[] = [];
    for (let i = 0; i < 2; i++) late.push((await createToken(p, i === 0 ? 'ci-deploy' : `late-${i}`, ['TRANSACT'])).id);

    // The platform's own MANAGE token (from the harness) is listed too.
    const all = await t.api<List<ApiToken>>(p, 'GET', '/tokens');
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe(6);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.data.slice(0, 5).map((x: { id: string }) => x.id)).toEqual([...early, ...late].reverse());

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await t.api<List<ApiToken>>(p, 'GET', `/tokens?limit=2&sortOrder=asc${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.totalCount).toBe(6);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((x: { id: string }) => x.id));
      cursor = page.body.hasMore ? page.body.nextCursor : undefined;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    expect(seen.slice(1)).toEqual([...early, ...late]);

    const byName = await t.api<List<ApiToken>>(p, 'GET', '/tokens?name=ci-deploy');
    expect(byName.body.totalCount).toBe(2);
    expect(byName.body.data.map((x: { id: string }) => x.id)).toEqual([late[0], early[0]]);

    const after = await t.api<List<ApiToken>>(p, 'GET', `/tokens?createdAfter=${encodeURIComponent(boundary)}`);
    expect(after.body.totalCount).toBe(2);
    expect(after.body.data.map((x: { id: string }) => x.id).sort()).toEqual([...late].sort());

    const before = await t.api<List<ApiToken>>(p, 'GET', `/tokens?createdBefore=${encodeURIComponent(boundary)}&limit=1`);
    expect(before.body.totalCount).toBe(4);
    expect(before.body.data).toHaveLength(1);
    expect(before.body.hasMore).toBe(true);

    const both = await t.api<List<ApiToken>>(p, 'GET', `/tokens?name=ci-deploy&createdAfter=${encodeURIComponent(boundary)}`);
    expect(both.body.data.map((x: { id: string }) => x.id)).toEqual([late[0]]);

    const badDate = await t.api<ApiError>(p, 'GET', '/tokens?createdAfter=yesterday');
    expect(badDate.status).toBe(400);
    expect(badDate.body.details!.errors!.map((e: { field: string }) => e.field)).toEqual(['createdAfter']);
  });

  it('revoking a token answers 204, and the token fails at once with 401 and is gone from GET and the list', async () => {
    const { id, caller } = await createToken(t.platform, 'Short-lived', ['TRANSACT']);
    // Authenticate first, so the process has the credential cached when it is revoked.
    expect((await t.api(caller, 'GET', '/customers')).status).toBe(200);

    const revoked = await t.api(t.platform, 'DELETE', `/tokens/${id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');

    const after = await t.api(caller, 'GET', '/customers');
    expect(after.status).toBe(401);
    expect(expectErrorShape(after).code).toBe('UNAUTHORIZED');
    const byTokenId = await t.api({ ...caller, authorization: basic(id, caller.clientSecret) }, 'GET', '/customers');
    expect(byTokenId.status).toBe(401);

    const got = await t.api(t.platform, 'GET', `/tokens/${id}`);
    expect(got.status).toBe(404);
    expect(expectErrorShape(got).code).toBe('TOKEN_NOT_FOUND');
    const list = await t.api<List<ApiToken>>(t.platform, 'GET', '/tokens?limit=100');
    expect(list.body.data.map((x: { id: string }) => x.id)).not.toContain(id);

    const again = await t.api(t.platform, 'DELETE', `/tokens/${id}`);
    expect(again.status).toBe(404);
    expect(expectErrorShape(again).code).toBe('TOKEN_NOT_FOUND');
  });

  it("a platform cannot see or revoke another platform's token", async () => {
    const other = await t.newPlatform('other platform');
    const { id, caller } = await createToken(other, 'Theirs', ['VIEW']);
    expect((await t.api(t.platform, 'GET', `/tokens/${id}`)).status).toBe(404);
    const del = await t.api(t.platform, 'DELETE', `/tokens/${id}`);
    expect(del.status).toBe(404);
    expect(expectErrorShape(del).code).toBe('TOKEN_NOT_FOUND');
    expect((await t.api(caller, 'GET', '/customers')).status).toBe(200);
  });

  it('a VIEW token can read customers but gets 403 FORBIDDEN creating one', async () => {
    const { caller } = await createToken(t.platform, 'Read only', ['VIEW']);
    expect((await t.api(caller, 'GET', '/customers')).status).toBe(200);
    const res = await t.api<ApiError>(caller, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Vee Viewer' });
    expect(res.status).toBe(403);
    expect(expectErrorShape(res).code).toBe('FORBIDDEN');
    expect(res.body.details!.requiredPermission).toBe('TRANSACT');
    const list = await t.api<List<Customer>>(t.platform, 'GET', '/customers?limit=100');
    expect(list.body.data.map((c: { fullName?: string }) => c.fullName)).not.toContain('Vee Viewer');
  });

  it('a TRANSACT token can create customers but gets 403 on creating tokens, listing tokens and changing the config', async () => {
    const { caller } = await createToken(t.platform, 'Payments backend', ['TRANSACT']);
    const customer = await t.api(caller, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Tia Transact' });
    expect(customer.status).toBe(201);
    for (const [method, path, body] of [
      ['POST', '/tokens', { name: 'escalate', permissions: ['MANAGE'] }],
      ['GET', '/tokens', undefined],
      ['PATCH', '/config', { umaDomain: 'example.com' }],
    ] as const) {
      const res = await t.api<ApiError>(caller, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(expectErrorShape(res).code).toBe('FORBIDDEN');
      expect(res.body.details!.requiredPermission).toBe('MANAGE');
    }
    const config = await t.api<PlatformConfig>(t.platform, 'GET', '/config');
    expect(config.body.umaDomain).toBeUndefined();
  });

  it('an unknown permission is refused with 400 INVALID_INPUT naming permissions.0', async () => {
    const res = await t.api(t.platform, 'POST', '/tokens', { name: 'Bad', permissions: ['ADMIN'] });
    expect(res.status).toBe(400);
    const error = expectErrorShape(res);
    expect(error.code).toBe('INVALID_INPUT');
    const errors = error.details!.errors as { field: string; constraint?: { enum?: string[] } }[];
    expect(errors.map((e) => e.field)).toEqual(['permissions.0']);
    expect(errors[0]!.constraint?.enum).toEqual(['VIEW', 'TRANSACT', 'MANAGE']);

    const empty = await t.api<ApiError>(t.platform, 'POST', '/tokens', { name: '', permissions: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['name', 'permissions']);
  });

  it('the database keeps only a hash of the secret: no api_tokens column holds it', async () => {
    const { id, caller } = await createToken(t.platform, 'Stored safely', ['VIEW']);
    const { rows } = await sql<Record<string, unknown>>`select * from api_tokens where id = ${id}`.execute(t.database.db);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : JSON.stringify(value);
      expect(text, `column ${column}`).not.toContain(caller.clientSecret);
      // Nor any long fragment of it (a truncated or re-encoded copy).
      expect(text, `column ${column}`).not.toContain(caller.clientSecret.slice(3, 23));
    }
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    const all = await sql<Record<string, unknown>>`select * from api_tokens`.execute(t.database.db);
    expect(JSON.stringify(all.rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).not.toContain(caller.clientSecret);
  });

  it('a token created with an Idempotency-Key replays its secret, yet the stored response does not hold it in clear', async () => {
    const key = `token-${Date.now()}`;
    const first = await t.api<ApiToken>(t.platform, 'POST', '/tokens', { name: 'Idempotent', permissions: ['VIEW'] }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const secret = first.body.clientSecret as string;
    const replay = await t.api(t.platform, 'POST', '/tokens', { name: 'Idempotent', permissions: ['VIEW'] }, { 'idempotency-key': key });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);

    const { rows } = await sql<Record<string, unknown>>`select * from idempotency_keys where platform_id = ${t.platform.id} and key = ${key}`.execute(t.database.db);
    expect(rows).toHaveLength(1);
    for (const [column, value] of Object.entries(rows[0]!)) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text, `column ${column}`).not.toContain(secret);
      expect(text, `column ${column}`).not.toContain(secret.slice(3, 23));
    }
  });
});
