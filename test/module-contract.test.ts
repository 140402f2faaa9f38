import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../packages/server/src/config.js';
import { createContainer } from '../packages/server/src/container.js';
import type { TransactionId } from '../packages/server/src/core/ids.js';
import { collectMigrations } from '../packages/server/src/db/migrations/index.js';
import { Type } from 'typebox';
import { defineError } from '../packages/server/src/core/errors.js';
import { creationOrder, defineModule } from '../packages/server/src/contract/module.js';
import { SignatureRequired } from '../packages/server/src/core/signature.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import { WalletSignatureHeaders } from '../packages/server/src/http/schema-kit.js';
import { modules } from '../packages/server/src/modules/index.js';
import { tipsModule } from './fixtures/tips-module.js';
import { createTestApp, errorOf, type TestApp } from './harness.js';
import { authenticatedRoutes, createOneOfEach, fillPath, routeKey, validBody } from './route-fixtures.js';
import { WriteWatch } from './write-watch.js';
import { startReceiver } from './webhook-receiver.js';
import type { InternalAccount, List, Transaction, WebhookEvent } from './wire-types.js';

/**
 * The module contract: a module declared in one place is served, wired, swept and documented with
 * no edit to the app, the container, the worker or the sweeps; every change of state is idempotent;
 * every error a route answers is one it declares.
 */

const undeclared = defineError({ status: 409, code: 'CONFLICT', reason: 'NOT_DECLARED', description: 'raised but never declared on the route' }, () => ({ message: 'Not declared' }));

/** A module whose PATCH needs the end user's signature, and a route that raises an error it does not declare. */
const probeModule = defineModule({
  name: 'probe' as never,
  needs: [],
  createService: () => ({}) as never,
  routes(r) {
    r.patch(
      '/probe/signed',
      { schema: { tags: ['Probe'], headers: WalletSignatureHeaders, body: Type.Object({ note: Type.String() }), response: { 200: Type.Object({ note: Type.String() }) } }, signed: true },
      async (uow, req) =>
        req.headers['service-wallet-signature'] === 'sandbox-valid-signature'
          ? { note: req.body.note }
          : new SignatureRequired({ payloadToSign: JSON.stringify(req.body), requestId: 'Request:01a20061-044a-7399-9737-e82f3a74e590', expiresAt: uow.now.toISOString() }),
    );
    r.get('/probe/undeclared', { schema: { tags: ['Probe'], response: { 200: Type.Object({}) } } }, () => {
      throw undeclared();
    });
  },
  fixtures: async () => ({ bodies: { 'PATCH /probe/signed': { note: 'fixture' } } }),
});

// The modules added here are not part of the API the reference describes: no conformance check in this file.
process.env.MONETA_CONFORMANCE = 'off';

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let watch: WriteWatch;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({ MONETA_TIPS_MAX_MINOR: '2500' }, { modules: [...modules, tipsModule, probeModule] });
  watch = await WriteWatch.install(t.database.db);
});
afterAll(async () => {
  await watch?.remove();
  await t?.close();
  await receiver?.close();
});

describe('a module added to the list is served, wired and documented', () => {
  it('its route takes money through the ledger, its job runs, its payment kind is cancelled through /transactions', async () => {
    const ids = await createOneOfEach(t, t.platform, 'tips');
    const accountId = ids.get('InternalAccount')!;
    // Its settings: the largest tip comes from its own environment variable.
    const tooBig = await t.api<{ details: { max: string } }>(t.platform, 'POST', '/tips', { accountId, amount: 2_501 });
    expect(errorOf(tooBig)).toBe('AMOUNT_OUT_OF_RANGE TIP_TOO_LARGE');
    expect(tooBig.body.details.max).toBe('2500');

    const before = (await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount;
    const tip = await t.api<Transaction>(t.platform, 'POST', '/tips', { accountId, amount: 250 });
    expect(tip.status, tip.text).toBe(201);
    expect(tip.body).toMatchObject({ type: 'OUTGOING', status: 'COMPLETED', sentAmount: { amount: 250 } });
    expect((await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount).toBe(before - 250);

    // Its payment kind: POST /transactions/{id}/cancel reaches the tips module, which refunds.
    const cancelled = await t.api<Transaction>(t.platform, 'POST', `/transactions/${tip.body.id}/cancel`);
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.status).toBe('FAILED');
    expect((await t.api<InternalAccount>(t.platform, 'GET', `/internal-accounts/${accountId}`)).body.balance.amount).toBe(before);

    // Its job runs when due; after the thanks the tip cannot be cancelled.
    const kept = await t.api<Transaction>(t.platform, 'POST', '/tips', { accountId, amount: 100 });
    expect((await t.api(t.platform, 'POST', '/sandbox/clock/advance', { seconds: 61 })).status).toBe(200);
    await t.container.jobs.runDue();
    const events = await t.api<List<WebhookEvent>>(t.platform, 'GET', '/webhooks/events?type=TIP.THANKED');
    expect(events.body.data.map((e) => e.data.id)).toContain(kept.body.id);
    const late = await t.api(t.platform, 'POST', `/transactions/${kept.body.id}/cancel`);
    expect(errorOf(late)).toBe('TRANSACTION_NOT_CANCELLABLE');
  });

  it('it brings its own table, migration, id type and settings: nothing outside its file names them', async () => {
    const ids = await createOneOfEach(t, t.platform, 'tips-own');
    const tip = await t.api<Transaction>(t.platform, 'POST', '/tips', { accountId: ids.get('InternalAccount'), amount: 120 });
    expect(tip.status, tip.text).toBe(201);
    const rows = await t.database.db.selectFrom('tips').selectAll().where('transaction_id', '=', tip.body.id as TransactionId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toMatch(/^Tip:[0-9a-f-]{36}$/);
    expect(rows[0]!.amount_minor).toBe(120n);
    // Its migration ran after the history, by name.
    const applied = (await t.database.db.selectFrom('kysely_migration' as never).select('name' as never).execute()) as { name: string }[];
    expect(applied.map((m) => m.name)).toContain('20261127T033000_create_tips');
    expect(applied.map((m) => m.name).at(-1)).toBe('20261127T033000_create_tips');
    // A wrong setting stops the start, naming the module and the variable.
    const wrong = loadConfig({ MONETA_MODE: 'sandbox', LOG_LEVEL: 'silent', DATA_DIR: '/tmp/moneta-test-unused', MONETA_TIPS_MAX_MINOR: 'lots' });
    expect(() => createContainer({ config: wrong, db: t.database.db, databaseKind: t.database.kind, modules: [...modules, tipsModule] })).toThrow(/module tips: MONETA_TIPS_MAX_MINOR must be a positive whole number/);
    // A badly named or repeated migration stops it too.
    expect(() => collectMigrations([{ name: 'late', migrations: { '0011_late': { up: async () => undefined } } }])).toThrow(/module late: migration 0011_late must be named/);
    expect(() => collectMigrations([tipsModule, { name: 'copy', migrations: tipsModule.migrations! }])).toThrow(/declared twice/);
  });

  it('its gate is asked at another module\'s check point: a card does not spend from an account in the minute after it tipped', async () => {
    const ids = await createOneOfEach(t, t.platform, 'tips-gate');
    const cardId = ids.get('Card')!;
    const authorize = () => t.api<{ approved?: boolean; declineReason?: string }>(t.platform, 'POST', `/sandbox/cards/${cardId}/simulate/authorization`, { amount: 100, currency: { code: 'USD' }, merchant: { descriptor: 'GATED SHOP', mcc: '5814', country: 'US' } });
    const before = await authorize();
    expect(before.body.declineReason, before.text).toBeUndefined();
    expect((await t.api(t.platform, 'POST', '/tips', { accountId: ids.get('InternalAccount'), amount: 100 })).status).toBe(201);
    expect(t.container.gates.owners('card.spend')).toEqual(['wallets', 'tips']);
    const during = await authorize();
    expect(during.body.declineReason, during.text).toBe('INSUFFICIENT_FUNDS');
    expect((await t.api(t.platform, 'POST', '/sandbox/clock/advance', { seconds: 61 })).status).toBe(200);
    const after = await authorize();
    expect(after.body.declineReason, after.text).toBeUndefined();
  });

  it('its routes and the codes they can answer are in the OpenAPI document', async () => {
    const doc = (await t.api<{ paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties: { code: { enum: string[] }; details: { properties: { reason?: { enum: string[] } } } } } }> }> }>> }>(null, 'GET', '/openapi.json')).body;
    const tips = doc.paths['/tips']!.post!.responses;
    expect(Object.keys(tips).sort()).toEqual(['201', '400', '401', '403', '404', '409', '413', '415', '429', '500', '503']);
    const schemaOf = (status: string) => tips[status]!.content!['application/json']!.schema.properties;
    expect(schemaOf('400').code.enum).toEqual(expect.arrayContaining(['INVALID_INPUT', 'AMOUNT_OUT_OF_RANGE', 'INVALID_AMOUNT']));
    expect(schemaOf('400').details.properties.reason!.enum).toEqual(expect.arrayContaining(['TIP_TOO_LARGE', 'INSUFFICIENT_FUNDS']));
    expect(schemaOf('403').code.enum).toEqual(['FORBIDDEN', 'USER_NOT_READY']);
    // An existing route documents its reasons the same way.
    const execute = doc.paths['/quotes/{quoteId}/execute']!.post!.responses['409']!.content!['application/json']!.schema.properties;
    expect(execute.details.properties.reason!.enum).toEqual(expect.arrayContaining(['QUOTE_EXPIRED', 'QUOTE_ALREADY_EXECUTED']));
  });

  it('an error a route does not declare fails the test that sees it', async () => {
    await expect(t.api(t.platform, 'GET', '/probe/undeclared')).rejects.toThrow(/does not declare/);
  });

  it('services are created after those they need; a missing or circular need stops the start', () => {
    const order = creationOrder(modules).map((m) => m.name);
    for (const module of modules) for (const need of module.needs) expect(order.indexOf(need)).toBeLessThan(order.indexOf(module.name));
    expect(() => creationOrder([{ name: 'a', needs: ['b'] }])).toThrow(/needs b, which is not in the module list/);
    expect(() => creationOrder([{ name: 'a', needs: ['b'] }, { name: 'b', needs: ['a'] }])).toThrow(/cycle: a -> b -> a/);
  });
});

describe('the signed-action answer', () => {
  it('is a 202 with the payload to sign that is not stored under the Idempotency-Key: the signed retry with the same key executes', async () => {
    const key = `signed-${Math.random().toString(36).slice(2)}`;
    const first = await t.api(t.platform, 'PATCH', '/probe/signed', { note: 'hello' }, { 'idempotency-key': key });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ payloadToSign: '{"note":"hello"}', requestId: 'Request:01a20061-044a-7399-9737-e82f3a74e590', expiresAt: expect.any(String) as unknown });
    const signed = await t.api(t.platform, 'PATCH', '/probe/signed', { note: 'hello' }, { 'idempotency-key': key, 'service-wallet-signature': 'sandbox-valid-signature' });
    expect(signed.status).toBe(200);
    expect(signed.headers['idempotent-replayed']).toBeUndefined();
    const replay = await t.api(t.platform, 'PATCH', '/probe/signed', { note: 'hello' }, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('idempotency: every POST, PATCH and DELETE of every module honours Idempotency-Key', () => {
  const changing = (): RouteEntry[] => authenticatedRoutes(t).filter((r) => ['POST', 'PATCH', 'DELETE'].includes(r.method));

  it('the sweep covers every changing route, all declared through the module contract', () => {
    const routes = changing();
    expect(routes.map(routeKey)).toEqual(expect.arrayContaining(['POST /tips', 'POST /quotes', 'DELETE /tokens/:tokenId', 'PATCH /config']));
    expect(routes.filter((r) => !r.change).map(routeKey)).toEqual([]);
  });

  it('a replay answers the first response, marked Idempotent-Replayed, and changes nothing; the key with another request is 409', async () => {
    /** A route's first request under a fresh key, signed through to its answer when it asks for a signature. */
    const firstRequest = async (route: RouteEntry, ids: ReadonlyMap<string, string>) => {
      if (['POST /sandbox/webhooks/test', 'POST /webhooks/test'].includes(routeKey(route))) await t.api(t.platform, 'PATCH', '/config', { webhookEndpoint: receiver.url });
      const path = fillPath(t, route, ids);
      const body = route.hasBody ? validBody(t, route, ids) : undefined;
      const key = `sweep-${Math.random().toString(36).slice(2)}`;
      let first = await t.api(t.platform, route.method, path, body, { 'idempotency-key': key });
      // A signed action: its challenge is not kept under the key; the signed retry's answer is. A
      // multi-leg one (a delegated key) answers a new challenge to each signed leg until the last.
      for (let leg = 0; leg < 3; leg++) {
        const challenge = first.body as { payloadToSign?: string; requestId?: string } | undefined;
        if (!(first.status === 202 && challenge?.payloadToSign && challenge.requestId)) break;
        first = await t.api(t.platform, route.method, path, body, { 'idempotency-key': key, 'service-wallet-signature': 'sandbox-valid-signature', 'request-id': challenge.requestId });
      }
      return { path, body, key, first };
    };
    const freshFixtures = () => createOneOfEach(t, t.platform, `idem-${Math.random().toString(36).slice(2, 8)}`);

    // Routes share one set of fixtures until one of them is used up (a customer deleted, a quote
    // executed, a card closed): the route that finds it so gets a fresh set and runs again. Fresh
    // fixtures for every route cost most of this file's time.
    let ids = await freshFixtures();
    let fresh = true;
    for (const route of changing()) {
      if (routeKey(route) === 'PATCH /probe/signed') continue; // its first answer is the 202 above
      let run = await firstRequest(route, ids);
      if (run.first.status >= 300 && !fresh) {
        ids = await freshFixtures();
        run = await firstRequest(route, ids);
      }
      fresh = false;
      const { path, body, key, first } = run;
      expect(first.status, `${routeKey(route)}: ${first.text}`).toBeLessThan(300);
      expect(first.headers['idempotent-replayed'], routeKey(route)).toBeUndefined();
      const before = await watch.look();
      const replay = await t.api(t.platform, route.method, path, body, { 'idempotency-key': key });
      expect(replay.headers['idempotent-replayed'], `${routeKey(route)} ignores Idempotency-Key`).toBe('true');
      expect({ status: replay.status, text: replay.text }, routeKey(route)).toEqual({ status: first.status, text: first.text });
      expect(await watch.changedSince(before), `${routeKey(route)}: the replay changed something`).toEqual([]);
      const other = await t.api(t.platform, route.method, `${path}${path.includes('?') ? '&' : '?'}other=1`, body, { 'idempotency-key': key });
      expect(errorOf(other), routeKey(route)).toBe('CONFLICT IDEMPOTENCY_KEY_REUSED');
    }
    // One test walks every changing route (about 80): on a loaded 2-core machine that takes longer than the default minute.
  }, 900_000); // every changing route, twice, under a loaded CI machine: over 300 s seen beside the fuzz file
});
