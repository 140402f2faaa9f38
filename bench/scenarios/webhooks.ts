/**
 * Webhook scenarios: the server's in-process deliverer sending events to a loopback receiver in the
 * bench process that answers 200 at once, compared with that receiver's raw accept rate measured by
 * autocannon in the same run. "live": BENCH_WEBHOOK_EVENTS events are made by sandbox fundings (2
 * each) from BENCH_CONNECTIONS clients while delivery runs; events/s is counted from the first
 * funding to the last receipt and latency from each event's creation to its receipt. "backlog": the
 * same number of events is made while the receiver refuses them with Retry-After: the first are
 * tried and refused until the endpoint's deliveries pause (events/breaker.ts), the rest wait parked;
 * then the platform clock is advanced past the pause, whose probe succeeds and makes all due at
 * once; events/s and latency are counted from that moment to each receipt (the clock advance's
 * commit wakes the deliverer).
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { v7 as uuidv7 } from 'uuid';
import { inParallel, measure, profiled, percentile, type Measurement, type Row } from '../lib/load.js';
import { checkInterrupted, stopping } from '../lib/interruption.js';
import { call, type Server } from '../lib/server.js';
import { CONNECTIONS, MONEY_SECONDS, progress, WEBHOOK_EVENTS, WEBHOOK_WAIT_MS } from '../lib/settings.js';
import { PAUSE_AFTER_FAILURES } from '../../packages/server/src/events/breaker.js';

/**
 * A platform's webhook endpoint on loopback, in this process: answers every request at once with
 * 200 (or, while `refusing`, 503 with Retry-After an hour), and notes when each webhook-id first
 * arrived and with which envelope timestamp.
 */
async function startWebhookReceiver(): Promise<{
  url: string;
  mode: { refusing: boolean };
  arrivals: Map<string, { at: number; createdAt: number; type: string; refused: boolean }>;
  close: () => Promise<void>;
}> {
  const mode = { refusing: false };
  const arrivals = new Map<string, { at: number; createdAt: number; type: string; refused: boolean }>();
  const server: HttpServer = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') {
        const at = Date.now();
        const envelope = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string };
        const key = mode.refusing ? `refused:${id}` : id;
        if (!arrivals.has(key)) arrivals.set(key, { at, createdAt: Date.parse(envelope.timestamp), type: envelope.type, refused: mode.refusing });
      }
      if (mode.refusing && typeof id === 'string') res.writeHead(503, { 'retry-after': '3600', 'content-type': 'text/plain' }).end('later');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    mode,
    arrivals,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export async function benchWebhooks(label: string, server: Server, notes: string[]): Promise<Row[]> {
  checkInterrupted();
  const receiver = await startWebhookReceiver();
  try {
    const customer = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers', body: { customerType: 'INDIVIDUAL', fullName: 'Bench Hooks', currencies: ['USD'] }, expect: 201 });
    const account = (await call<{ data: { id: string }[] }>(server, label, { method: 'GET', path: `/internal-account?customerId=${customer.id}`, expect: 200 })).data[0]!.id;
    const sample = JSON.stringify({ id: `Webhook:${uuidv7()}`, type: 'INTERNAL_ACCOUNT.BALANCE_UPDATED', timestamp: new Date().toISOString(), data: { id: account, balance: { amount: 1, currency: { code: 'USD', decimals: 2 } } } });
    const ceiling = await measure(label, 'webhook receiver, raw POST (autocannon)', MONEY_SECONDS, { url: receiver.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: sample });
    await call(server, label, { method: 'PATCH', path: '/config', body: { webhookEndpoint: receiver.url }, expect: 200 });
    const fundings = Math.ceil(WEBHOOK_EVENTS / 2);
    const fund = () => inParallel(CONNECTIONS, Array.from({ length: fundings }), () => call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account}/fund`, body: { amount: 1 }, expect: 200 }));
    /** Waits until `count` events (not the TEST greeting) arrived in the given mode since `since`; returns their arrivals. */
    const arrived = async (since: number, count: number, refused: boolean) => {
      const deadline = Date.now() + WEBHOOK_WAIT_MS;
      let list: { at: number; createdAt: number }[] = [];
      while (!stopping && Date.now() < deadline) {
        list = [...receiver.arrivals.values()].filter((a) => a.refused === refused && a.type !== 'TEST' && a.at >= since);
        if (list.length >= count) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      checkInterrupted();
      return list;
    };
    const row = (scenario: string, list: { at: number; createdAt: number }[], from: number, latencies: number[], expected: number): Row => {
      latencies.sort((a, b) => a - b);
      const last = Math.max(...list.map((a) => a.at));
      const result: Measurement = { database: label, scenario, reqPerSec: list.length / ((last - from) / 1000), p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), failures: Math.max(0, expected - list.length), fractional: true };
      progress(`[${label}] ${scenario}: ${Math.round(result.reqPerSec)} events/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${result.failures ? `, ${result.failures} not delivered within ${WEBHOOK_WAIT_MS / 1000} s` : ''}`);
      return { ...result, ceiling };
    };

    // Live: events made by fundings while the deliverer sends them. Their timestamps are the
    // platform's clock, which the quote scenarios moved ahead: its offset brings them back to real time.
    const { offsetSeconds } = await call<{ offsetSeconds: number }>(server, label, { method: 'GET', path: '/sandbox/clock', expect: 200 });
    const expected = fundings * 2;
    progress(`[${label}] webhook delivery (live): ${fundings} fundings from ${CONNECTIONS} clients, ${expected} events`);
    const liveFrom = Date.now();
    await fund();
    const live = await arrived(liveFrom, expected, false);
    const liveRow = row(`webhook delivery, live (${expected} events)`, live, liveFrom, live.map((a) => a.at - (a.createdAt - offsetSeconds * 1000)), expected);

    // Backlog: events made while refused (the first tried until the endpoint's deliveries pause, the
    // rest parked), then all made due at once.
    progress(`[${label}] webhook delivery (backlog): ${expected} events made while the endpoint refuses with Retry-After, then released`);
    receiver.mode.refusing = true;
    const heldFrom = Date.now();
    await fund();
    await arrived(heldFrom, Math.min(expected, PAUSE_AFTER_FAILURES), true);
    // The attempts in flight when the pause began finish.
    await new Promise((r) => setTimeout(r, 1_000));
    const tried = [...receiver.arrivals.values()].filter((a) => a.refused && a.type !== 'TEST' && a.at >= heldFrom).length;
    progress(`[${label}] webhook delivery (backlog): ${tried} tried and refused, the others parked by the endpoint's pause`);
    receiver.mode.refusing = false;
    const released = Date.now();
    const backlog = await profiled('webhook delivery, backlog', async () => {
      await call(server, label, { method: 'POST', path: '/sandbox/clock/advance', body: { seconds: 3600 }, expect: 200 });
      return arrived(released, expected, false);
    });
    const backlogRow = row(`webhook delivery, backlog of ${expected} released at once (${tried} tried before the pause)`, backlog, released, backlog.map((a) => a.at - released), expected);
    notes.push(`${label} webhook rows: events/s delivered by the server's in-process deliverer (each event handed over in memory when the commit that writes it returns, written leased to the deliverer so nothing claims it; claimed after a wake-up or a poll only past 16 in flight, for retries, or for events of another process; 16 requests in flight) to a loopback receiver answering 200; "live" latency is event creation to receipt while fundings run (its events/s cannot exceed the rate fundings create events; the latency shows whether delivery keeps up), "backlog" latency is release (platform clock advanced past the Retry-After and the endpoint's pause: one probe, then all) to receipt. Ceiling: the same receiver's raw accept rate under autocannon (${CONNECTIONS} connections).`);
    return [ceiling, liveRow, backlogRow];
  } finally {
    await receiver.close();
  }
}
