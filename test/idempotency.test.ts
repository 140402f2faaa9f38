import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type ApiResponse, type TestApp, type TestPlatform } from './harness.js';
import type { Customer, List, PlatformConfig } from './wire-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

let keyCounter = 0;
/** A key no other test in this file uses. */
function freshKey(label: string): string {
  keyCounter += 1;
  return `${label}-${keyCounter}-${Math.random().toString(36).slice(2)}`;
}

function withKey(key: string): Record<string, string> {
  return { 'idempotency-key': key };
}

async function customersNamed(platform: TestPlatform, platformCustomerId: string): Promise<number> {
  const res = await t.api<List<Customer>>(platform, 'GET', `/customers?platformCustomerId=${encodeURIComponent(platformCustomerId)}&limit=100`);
  expect(res.status).toBe(200);
  return res.body.totalCount as number;
}

function replayed(res: ApiResponse): boolean {
  return res.headers['idempotent-replayed'] === 'true';
}

describe('Idempotency-Key', () => {
  it('a replayed POST returns the identical status and body, marked Idempotent-Replayed, and creates one customer', async () => {
    const key = freshKey('create');
    const body = { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-1', fullName: 'Ida Empotent', email: 'ida@example.com' };
    const first = await t.api(t.platform, 'POST', '/customers', body, withKey(key));
    expect(first.status).toBe(201);
    expect(replayed(first)).toBe(false);

    const second = await t.api(t.platform, 'POST', '/customers', body, withKey(key));
    expect(second.status).toBe(201);
    expect(replayed(second)).toBe(true);
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toMatch(/^application\/json/);

    // The same body with its fields in another order is the same request.
    const reordered = await t.api(t.platform, 'POST', '/customers', { email: body.email, fullName: body.fullName, platformCustomerId: body.platformCustomerId, customerType: body.customerType }, withKey(key));
    expect(reordered.status).toBe(201);
    expect(replayed(reordered)).toBe(true);
    expect(reordered.body).toEqual(first.body);

    expect(await customersNamed(t.platform, 'idem-1')).toBe(1);
  });

  it('the same key with a different body is refused with 409 CONFLICT and changes nothing', async () => {
    const key = freshKey('conflict');
    const first = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-2', fullName: 'Con Flict' }, withKey(key));
    expect(first.status).toBe(201);
    const other = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-2b', fullName: 'Con Flict' }, withKey(key));
    expect(other.status).toBe(409);
    expect(expectErrorShape(other).code).toBe('CONFLICT');
    expect(replayed(other)).toBe(false);
    expect(await customersNamed(t.platform, 'idem-2b')).toBe(0);

    // The same key on another route is a different request too.
    const elsewhere = await t.api(t.platform, 'PATCH', '/config', { umaDomain: 'conflict.example.com' }, withKey(key));
    expect(elsewhere.status).toBe(409);
    expect(expectErrorShape(elsewhere).code).toBe('CONFLICT');
    expect((await t.api<PlatformConfig>(t.platform, 'GET', '/config')).body.umaDomain).toBeUndefined();

    // The original request still replays.
    const again = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-2', fullName: 'Con Flict' }, withKey(key));
    expect(replayed(again)).toBe(true);
    expect(again.text).toBe(first.text);
  });

  it("keys are scoped per platform: another platform may reuse a key and gets its own result", async () => {
    const key = freshKey('shared');
    const body = { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-3', fullName: 'Sam Scope' };
    const a = await t.api<Customer>(t.platform, 'POST', '/customers', body, withKey(key));
    expect(a.status).toBe(201);
    const platformB = await t.newPlatform('platform B');
    const b = await t.api<Customer>(platformB, 'POST', '/customers', body, withKey(key));
    expect(b.status).toBe(201);
    expect(replayed(b)).toBe(false);
    expect(b.body.id).not.toBe(a.body.id);
    expect(await customersNamed(t.platform, 'idem-3')).toBe(1);
    expect(await customersNamed(platformB, 'idem-3')).toBe(1);
    // B's different body under the same key does not conflict with A's.
    const bOther = await t.api(platformB, 'POST', '/customers', { ...body, platformCustomerId: 'idem-3b' }, withKey(freshKey('b-own')));
    expect(bOther.status).toBe(201);
  });

  it('20 concurrent requests with one key create exactly one customer and all get the same answer', async () => {
    const key = freshKey('race');
    const body = { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-race', fullName: 'Rae Racer' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => t.api(t.platform, 'POST', '/customers', body, withKey(key))));
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 201));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(responses.filter((r) => !replayed(r))).toHaveLength(1);
    expect(await customersNamed(t.platform, 'idem-race')).toBe(1);
  });

  it('a request refused by validation does not use up its key: the corrected retry runs', async () => {
    const key = freshKey('fix-400');
    const bad = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-4', fullName: 'Val Idation', email: 'not-an-email' }, withKey(key));
    expect(bad.status).toBe(400);
    expect(expectErrorShape(bad).code).toBe('INVALID_INPUT');
    const fixed = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-4', fullName: 'Val Idation', email: 'val@example.com' }, withKey(key));
    expect(fixed.status).toBe(201);
    expect(replayed(fixed)).toBe(false);
    const replay = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-4', fullName: 'Val Idation', email: 'val@example.com' }, withKey(key));
    expect(replayed(replay)).toBe(true);
    expect(replay.text).toBe(fixed.text);
    expect(await customersNamed(t.platform, 'idem-4')).toBe(1);
  });

  it('a request that fails inside its transaction rolls its key back with everything else', async () => {
    const taken = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-5', fullName: 'First Holder' });
    expect(taken.status).toBe(201);
    const key = freshKey('fix-409');
    const duplicate = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-5', fullName: 'Second Try' }, withKey(key));
    expect(duplicate.status).toBe(409);
    // Not stored, so the same failing request runs again rather than replaying.
    const duplicateAgain = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-5', fullName: 'Second Try' }, withKey(key));
    expect(duplicateAgain.status).toBe(409);
    expect(replayed(duplicateAgain)).toBe(false);
    const corrected = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'idem-5b', fullName: 'Second Try' }, withKey(key));
    expect(corrected.status).toBe(201);
    expect(replayed(corrected)).toBe(false);
    expect(await customersNamed(t.platform, 'idem-5b')).toBe(1);
  });

  it('a key is kept 24 hours on the platform clock; after that it may be reused for a new request', async () => {
    const p = await t.newPlatform('expiry platform');
    const key = freshKey('expire');
    const first = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'old', fullName: 'Olde Key' }, withKey(key));
    expect(first.status).toBe(201);
    const early = await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'new', fullName: 'New Key' }, withKey(key));
    expect(early.status).toBe(409);

    const advanced = await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 90_000 });
    expect(advanced.status).toBe(200);

    const reused = await t.api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'new', fullName: 'New Key' }, withKey(key));
    expect(reused.status).toBe(201);
    expect(replayed(reused)).toBe(false);
    expect(reused.body.id).not.toBe(first.body.id);
    // From now on the key stands for the new request.
    const replay = await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'new', fullName: 'New Key' }, withKey(key));
    expect(replayed(replay)).toBe(true);
    expect(replay.text).toBe(reused.text);
    const oldBody = await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'old', fullName: 'Olde Key' }, withKey(key));
    expect(oldBody.status).toBe(409);
    expect(await customersNamed(p, 'old')).toBe(1);
    expect(await customersNamed(p, 'new')).toBe(1);
  });

  it('PATCH /config replays, refuses a different body under its key, and frees the key after 24 hours', async () => {
    const p = await t.newPlatform('config platform');
    const key = freshKey('config');
    const first = await t.api<PlatformConfig>(p, 'PATCH', '/config', { umaDomain: 'first.example.com' }, withKey(key));
    expect(first.status).toBe(200);
    expect(first.body.umaDomain).toBe('first.example.com');

    // A later change without a key; replaying the keyed request must not undo it.
    const later = await t.api(p, 'PATCH', '/config', { umaDomain: 'later.example.com' });
    expect(later.status).toBe(200);
    const replay = await t.api(p, 'PATCH', '/config', { umaDomain: 'first.example.com' }, withKey(key));
    expect(replay.status).toBe(200);
    expect(replayed(replay)).toBe(true);
    expect(replay.text).toBe(first.text);
    expect((await t.api<PlatformConfig>(p, 'GET', '/config')).body.umaDomain).toBe('later.example.com');

    const different = await t.api(p, 'PATCH', '/config', { umaDomain: 'other.example.com' }, withKey(key));
    expect(different.status).toBe(409);
    expect(expectErrorShape(different).code).toBe('CONFLICT');
    expect((await t.api<PlatformConfig>(p, 'GET', '/config')).body.umaDomain).toBe('later.example.com');

    const concurrent = await Promise.all(Array.from({ length: 10 }, () => t.api(p, 'PATCH', '/config', { umaDomain: 'first.example.com' }, withKey(key))));
    expect(concurrent.every((r) => r.status === 200 && replayed(r) && r.text === first.text)).toBe(true);

    expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 90_000 })).status).toBe(200);
    const reused = await t.api<PlatformConfig>(p, 'PATCH', '/config', { umaDomain: 'other.example.com' }, withKey(key));
    expect(reused.status).toBe(200);
    expect(replayed(reused)).toBe(false);
    expect(reused.body.umaDomain).toBe('other.example.com');
    expect((await t.api<PlatformConfig>(p, 'GET', '/config')).body.umaDomain).toBe('other.example.com');
  });

  it('a malformed Idempotency-Key is refused with 400 naming the header', async () => {
    const res = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Kay Malformed' }, withKey('x'.repeat(256)));
    expect(res.status).toBe(400);
    const error = expectErrorShape(res);
    expect(error.code).toBe('INVALID_INPUT');
    expect((error.details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['Idempotency-Key']);
  });
});
