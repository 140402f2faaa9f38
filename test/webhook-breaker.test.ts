import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PAUSE_AFTER_FAILURES } from '../packages/server/src/events/breaker.js';
import { wakeupsOf } from '../packages/server/src/db/wake.js';
import { MAX_RETRY_GAP_MS } from '../packages/server/src/events/retry.js';
import { createTestApp, type TestApp, type TestPlatform } from './harness.js';
import { startReceiver, type Answer } from './webhook-receiver.js';
import type { List, SandboxClock, WebhookEvent } from './wire-types.js';

/**
 * Deliveries to an endpoint that keeps failing pause as a whole (events/breaker.ts): after
 * PAUSE_AFTER_FAILURES failed attempts in a row the platform's other events are not sent one by one
 * (each would fail and be retried alone) but wait, unattempted, for the pause to end; then ONE event
 * probes the endpoint. Its success sends the rest at once; its failure starts a longer pause. A
 * platform's pause is its own: other platforms' deliveries go on.
 */
const CONCURRENCY = 16;
/**
 * A request's timeout here: short, so that a probe window is too, but long enough that a loaded
 * machine (the clean-clone CI runs both databases' suites at once on two cores) does not time out a
 * request the receiver answers at once: at 500 ms some did, and an event counted as attempted had
 * not reached the receiver, or one sent after the pause ended failed and waited for its own retry.
 */
const TIMEOUT_MS = 2_500;
/** How long past a pause's end its events are parked: two probe windows (the timeout, and 5 s). */
const PARKED_PAST_PAUSE_MS = 2 * (TIMEOUT_MS + 5_000);

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** How the receiver answers each platform's requests, by the path of its endpoint. */
const answers = new Map<string, () => Answer>();
beforeAll(async () => {
  t = await createTestApp({ WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_LEASE_MS: '5000' });
  receiver = await startReceiver();
  receiver.answer((r) => (answers.get(r.path) ?? (() => ({ status: 200 })))());
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
});

/** A platform whose endpoint is the receiver at its own path, answering `answer` (after the greeting). */
async function platformAnswering(name: string, answer: () => Answer): Promise<{ p: TestPlatform; url: string; requests: () => number }> {
  const p = await t.newPlatform(name);
  const url = `${receiver.url}/${encodeURIComponent(p.id)}`;
  const path = new URL(url).pathname;
  expect((await t.api(p, 'PATCH', '/config', { webhookEndpoint: url })).status).toBe(200);
  await t.container.webhooks.runDue();
  answers.set(path, answer);
  // The greeting (a TEST event) reached it already.
  const count = () => receiver.received.filter((r) => r.path === path).length;
  const greeted = count();
  return { p, url, requests: () => count() - greeted };
}

const advance = (p: TestPlatform, seconds: number) => t.api<SandboxClock>(p, 'POST', '/sandbox/clock/advance', { seconds });
const now = async (p: TestPlatform) => Date.parse((await t.api<SandboxClock>(p, 'GET', '/sandbox/clock')).body.now);

async function customers(p: TestPlatform, count: number): Promise<void> {
  for (let i = 0; i < count; i++) expect((await t.api(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Customer ${i}` })).status).toBe(201);
}

async function events(p: TestPlatform): Promise<WebhookEvent[]> {
  const all: WebhookEvent[] = [];
  let cursor: string | undefined;
  do {
    const page = (await t.api<List<WebhookEvent>>(p, 'GET', `/webhooks/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
    all.push(...page.data.filter((e) => e.type !== 'TEST'));
    cursor = page.hasMore ? page.nextCursor : undefined;
  } while (cursor);
  return all;
}

describe('deliveries to an endpoint failing again and again', () => {
  it('pause after PAUSE_AFTER_FAILURES failures: the other events wait unattempted, one probe goes when the pause ends, its success sends the rest', async () => {
    let status = 500;
    const { p, requests } = await platformAnswering('failing', () => ({ status }));
    await customers(p, 60);
    const sending = await now(p);
    await t.container.webhooks.runDue();
    const sent = await now(p);
    // Only what was in flight when the pause began was attempted (at most CONCURRENCY - 1 more).
    const attempted = requests();
    expect(attempted).toBeGreaterThanOrEqual(PAUSE_AFTER_FAILURES);
    expect(attempted).toBeLessThan(PAUSE_AFTER_FAILURES + CONCURRENCY);
    const paused = await events(p);
    expect(paused).toHaveLength(60);
    expect(paused.every((e) => e.deliveryStatus === 'PENDING')).toBe(true);
    const waiting = paused.filter((e) => e.attempts === 0);
    expect(waiting).toHaveLength(60 - attempted);
    // They are parked, all at one time: past the pause's end (10 s, ±20 %, from the failure that
    // began it) and its probe's, so no claim sees them; the probe goes when the pause ends, alone.
    const parked = Date.parse(waiting[0]!.nextAttemptAt!);
    expect(waiting.every((e) => Date.parse(e.nextAttemptAt!) === parked)).toBe(true);
    const pauseEnds = parked - PARKED_PAST_PAUSE_MS;
    expect(pauseEnds).toBeGreaterThanOrEqual(sending + 8_000);
    expect(pauseEnds).toBeLessThanOrEqual(sent + 12_000);
    // (Tried only while the pause certainly lasts: a slow machine may be past it already.)
    if ((await now(p)) < pauseEnds - 2_000) {
      await t.container.webhooks.runDue();
      expect(requests()).toBe(attempted);
    }

    // When it ends (and every attempted event's own retry is due too), ONE request probes the endpoint; it fails: a longer pause.
    await advance(p, 60);
    const probing = await now(p);
    await t.container.webhooks.runDue();
    const probed = await now(p);
    expect(requests()).toBe(attempted + 1);
    const afterProbe = await events(p);
    expect(afterProbe.filter((e) => e.deliveryStatus === 'PENDING')).toHaveLength(60);
    // A 20 s pause now (±20 %), the events parked past it; all but the probe, which waits for its own
    // next retry (10 or 20 s).
    const nextAttempts = afterProbe.map((e) => Date.parse(e.nextAttemptAt!));
    const parkedAgain = nextAttempts.find((at) => nextAttempts.filter((other) => other === at).length > 1)!;
    expect(nextAttempts.filter((at) => at !== parkedAgain).length).toBeLessThanOrEqual(1);
    expect(parkedAgain - PARKED_PAST_PAUSE_MS).toBeGreaterThanOrEqual(probing + 16_000);
    expect(parkedAgain - PARKED_PAST_PAUSE_MS).toBeLessThanOrEqual(probed + 24_000);
    for (const at of nextAttempts) expect(at).toBeGreaterThanOrEqual(probing + 8_000);

    // The endpoint recovers: the next probe succeeds and every event goes at once.
    status = 200;
    await advance(p, 60);
    await t.container.webhooks.runDue();
    await t.container.webhooks.runDue();
    const delivered = await events(p);
    expect(delivered.filter((e) => e.deliveryStatus !== 'DELIVERED')).toEqual([]);
    expect(requests()).toBe(attempted + 1 + 60);
  });

  it("one platform's pause is its own: another's events are delivered meanwhile", async () => {
    const failing = await platformAnswering('failing alone', () => ({ status: 503 }));
    const healthy = await platformAnswering('healthy', () => ({ status: 204 }));
    await customers(failing.p, 40);
    await t.container.webhooks.runDue();
    expect(failing.requests()).toBeLessThan(PAUSE_AFTER_FAILURES + CONCURRENCY);
    await customers(healthy.p, 5);
    await t.container.webhooks.runDue();
    expect(healthy.requests()).toBe(5);
    expect((await events(healthy.p)).every((e) => e.deliveryStatus === 'DELIVERED')).toBe(true);
  });

  it('honours Retry-After for the pause, and an event whose retry window ends during it is given up', async () => {
    const { p, requests } = await platformAnswering('retry-after', () => ({ status: 503, headers: { 'retry-after': '7200' } }));
    await customers(p, PAUSE_AFTER_FAILURES);
    await t.container.webhooks.runDue();
    expect(requests()).toBe(PAUSE_AFTER_FAILURES);
    await advance(p, 7 * 24 * 3600 - 600);
    // Retry-After (2 h) is beyond the longest pause (30 min): capped.
    await customers(p, 3);
    await t.container.webhooks.runDue();
    const all = await events(p);
    // A week less ten minutes later, one probe; it fails, and the next pause (30 min) ends past the
    // first events' retry window: given up. The three new ones wait for it.
    expect(requests()).toBe(PAUSE_AFTER_FAILURES + 1);
    expect(all.filter((e) => e.deliveryStatus === 'FAILED')).toHaveLength(PAUSE_AFTER_FAILURES);
    const waiting = all.filter((e) => e.deliveryStatus === 'PENDING');
    expect(waiting).toHaveLength(3);
    const clock = await now(p);
    // Parked past the pause's end.
    for (const e of waiting) expect(Date.parse(e.nextAttemptAt!) - clock).toBeLessThanOrEqual(MAX_RETRY_GAP_MS + PARKED_PAST_PAUSE_MS);
    for (const e of waiting) expect(Date.parse(e.nextAttemptAt!) - clock).toBeGreaterThan(MAX_RETRY_GAP_MS - 5 * 60_000);
  });

  it('a new endpoint ends the pause: the waiting events go to it at once', async () => {
    const { p, requests } = await platformAnswering('moved', () => ({ status: 500 }));
    await customers(p, 30);
    await t.container.webhooks.runDue();
    const attempted = requests();
    expect(attempted).toBeLessThan(30);
    const moved = await platformAnswering('moved to', () => ({ status: 200 }));
    expect((await t.api(p, 'PATCH', '/config', { webhookEndpoint: moved.url })).status).toBe(200);
    // The first drain notices the change and makes the held events due (and the retries due before
    // the pause would have ended); the next sends them.
    await t.container.webhooks.runDue();
    await t.container.webhooks.runDue();
    const all = await events(p);
    expect(all.filter((e) => e.attempts === 0)).toEqual([]);
    expect(all.filter((e) => e.attempts === 1 && e.deliveryStatus === 'DELIVERED').length).toBeGreaterThanOrEqual(30 - attempted);
    // Every one reaches the new endpoint once its own retry is due.
    await advance(p, 60);
    await t.container.webhooks.runDue();
    expect((await events(p)).filter((e) => e.deliveryStatus !== 'DELIVERED')).toEqual([]);
    expect(moved.requests()).toBe(30 + 1); // and the platform's greeting to its new endpoint
    expect(requests()).toBe(attempted);
  });

  it('a test event the endpoint accepts ends the pause at once', async () => {
    let status = 500;
    const { p, requests } = await platformAnswering('tested', () => ({ status }));
    await customers(p, 30);
    await t.container.webhooks.runDue();
    const attempted = requests();
    expect(attempted).toBeLessThan(30);
    status = 200;
    expect((await t.api(p, 'POST', '/sandbox/webhooks/test')).status).toBe(200);
    await t.container.webhooks.runDue();
    const all = await events(p);
    expect(all.filter((e) => e.attempts === 0)).toEqual([]);
    expect(all.filter((e) => e.attempts === 1 && e.deliveryStatus === 'DELIVERED').length).toBeGreaterThanOrEqual(30 - attempted);
  });

  it('while paused, a running deliverer is not handed the events its commits write: they are written parked with the others and wake nobody', async () => {
    const { p, requests } = await platformAnswering('handoff', () => ({ status: 500 }));
    await customers(p, 30);
    await t.container.webhooks.runDue();
    const attempted = requests();
    const held = await events(p);
    const before = new Set(held.map((e) => e.id));
    const parked = Date.parse(held.find((e) => e.attempts === 0)!.nextAttemptAt!);
    // This process's commits that announce events for a deliverer to claim.
    const wakeups = wakeupsOf(t.database.db);
    const committed = wakeups.committed.bind(wakeups);
    let announced = 0;
    wakeups.committed = (channels) => {
      if ([...channels].includes('deliveries')) announced++;
      committed(channels);
    };
    t.container.webhooks.start(60_000);
    try {
      await customers(p, 5);
      expect(announced).toBe(0);
      const fresh = (await events(p)).filter((e) => !before.has(e.id));
      expect(fresh).toHaveLength(5);
      for (const e of fresh) {
        expect(e.attempts).toBe(0);
        expect(Date.parse(e.nextAttemptAt!)).toBe(parked);
      }
      await t.container.webhooks.runDue();
      expect(requests()).toBe(attempted);
    } finally {
      wakeups.committed = committed;
      await t.container.webhooks.stop();
    }
  });
});
