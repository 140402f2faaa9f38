/**
 * `npm run chaos -- --seconds N --seed S [--plan] [--api 3] [--workers 2] [--clients 12] [--no-noisy] [--failover] [--no-faults] [--customers 8]`
 *
 * Starts the production topology on this machine (a PostgreSQL server of the run's own, API
 * processes and workers against it, HAProxy in front, loopback webhook receivers), drives a mixed
 * load with idempotency keys while injecting the seed's faults, drains, then checks the recorded
 * history against the final database state (checker.ts). The last line printed is the verdict as
 * JSON; the exit code is 1 when it is not valid. `--plan` prints the seed's fault schedule only;
 * `--sabotage` deletes one acknowledged funding's ledger entry before the final read (the checker
 * must then say INVALID: a check of the whole pipeline on real data).
 *
 * Mode: the processes run in sandbox mode (production mode has no funding route and no card
 * simulator, so no money could move), on PostgreSQL, in the production process split: API processes
 * that deliver no webhooks (MONETA_DELIVER_WEBHOOKS=false) and separate workers that do, all with one
 * fixed MONETA_ENCRYPTION_KEY.
 *
 * The noisy client (issue 26, item 6; on unless --no-noisy): the API processes enforce a
 * per-credential limit (NOISY_LIMIT) with their buckets shared through Redis (CHAOS_REDIS_URL,
 * default redis://127.0.0.1:6379, given to them as MONETA_REDIS_URL with a key prefix of the run's
 * own, whose keys are deleted at the end; the run fails at once when Redis does not answer). Each load client calls with an API token of its own
 * and keeps under half the limit (load.ts's Pacer); one more client, with a token of its own
 * (chaos/noisy.ts, a process of its own), sends cheap reads as fast as it can through the whole
 * faulted window. The load runs a fault-free baseline of a few seconds first, then the window with
 * the faults and the noisy client. noisy-check.ts judges it: the noisy client limited, to the limit
 * across all the processes together; no 429 for the others; their p99 latency (outside the fault
 * windows) not grossly worse than the baseline's. The verdict's `noisyClient` object carries the
 * numbers.
 *
 * `--failover` (issue 26, item 3; chaos/cluster.ts): the database is a leader and a synchronous
 * replica under Patroni (etcd on loopback), behind an HAProxy that routes to whichever node Patroni
 * names primary; the service's DATABASE_URL points at that HAProxy. Mid-load, at the seed's time,
 * the leader's node crashes (kill -9 of its Patroni and its postmaster), Patroni promotes the
 * replica, and the service reconnects through HAProxy by itself. pg-restart is left out of that
 * run (plan.ts's FAILOVER_RUN_OMITS); pg-terminate hits the current leader.
 *
 * `--no-faults` runs the same load and checks with no fault injected (with --no-noisy: the clients
 * unpaced, as fast as the service answers them, a measure of what the topology sustains; the load's
 * throughput and latency are printed as `load:` when it stops).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { API_PREFIX } from '../packages/server/src/config.js';
import { openDatabase } from '../packages/server/src/db/database.js';
import { check, type Verdict } from './checker.js';
import { ensureFailoverTools, startCluster, type Cluster } from './cluster.js';
import { History } from './history.js';
import { describeThroughput, Load, Pacer, send, type Api } from './load.js';
import { judgeNoisyClient, latenciesIn, type NoisyCounts, type NoisySummary, type RateLimitSetting, type Span } from './noisy-check.js';
import { describePlan, FAILOVER_RUN_OMITS, mulberry32, planFaults, seedNumber, type Fault, type FaultKind, type PlanShape } from './plan.js';
import { outstanding, readSnapshot } from './snapshot.js';
import {
  ensureHaproxy,
  isRunning,
  killService,
  serviceEnvironment,
  startHaproxy,
  startNoisyClient,
  startReceiver,
  startService,
  stopService,
  type Receipt,
  type NoisyClient,
  type Receiver,
  type ServiceProcess,
} from './topology.js';
import { freePort, killChildren } from '../tools/processes.js';
import { startPrivatePostgres, type PrivatePostgres } from '../tools/private-postgres.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Stops the run's PostgreSQL (a daemon, not a child; with --failover, the whole cluster) and removes its data when the run is interrupted. */
let stopPostgres: (() => void) | undefined;
const started = Date.now();
const say = (line: string) => process.stderr.write(`chaos ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s  ${line}\n`);

interface Options {
  seconds: number;
  seed: string;
  plan: boolean;
  api: number;
  workers: number;
  clients: number;
  failover: boolean;
  /** Deletes one acknowledged funding's ledger entry before the final read: the checker must say INVALID (a check of the checker on real data). */
  sabotage: boolean;
  /** The noisy client and the rate limits (on unless --no-noisy). */
  noisy: boolean;
  /** The seed's faults (on unless --no-faults). */
  faults: boolean;
  /** Customers with a funded account the load moves money on (fewer: hotter rows). */
  customers: number;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '20' },
      seed: { type: 'string' },
      plan: { type: 'boolean', default: false },
      api: { type: 'string', default: '3' },
      workers: { type: 'string', default: '2' },
      clients: { type: 'string', default: '12' },
      failover: { type: 'boolean', default: false },
      sabotage: { type: 'boolean', default: false },
      'no-noisy': { type: 'boolean', default: false },
      'no-faults': { type: 'boolean', default: false },
      customers: { type: 'string', default: '8' },
    },
    strict: true,
  });
  const int = (name: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got ${raw}`);
    return n;
  };
  return {
    seconds: int('seconds', values.seconds, 5, 600),
    seed: values.seed ?? String(Math.floor(Math.random() * 2 ** 31)),
    plan: values.plan,
    api: int('api', values.api, 1, 8),
    workers: int('workers', values.workers, 1, 4),
    clients: int('clients', values.clients, 1, 64),
    failover: values.failover,
    sabotage: values.sabotage,
    noisy: !values['no-noisy'],
    faults: !values['no-faults'],
    customers: int('customers', values.customers, 1, 256),
  };
}

const RECEIVERS = 2;
/** The service's webhook delivery timeout in this run; a slow receiver answers after twice that. */
const WEBHOOK_TIMEOUT_MS = 1000;

/**
 * The per-credential limit every API process enforces in the noisy-client run: low enough that the
 * noisy client exceeds it many times over even on a loaded 2-core machine, so that 3 processes
 * counting alone (about 3 × 20/s) stand out clearly from a shared bucket (20/s).
 */
const NOISY_LIMIT: RateLimitSetting = { perSecond: 20, burst: 20 };
/** The noisy client's requests in flight at once. */
const NOISY_CONCURRENCY = 8;
/** The fault-free, noisy-free stretch of load before the window: max(5 s, 15% of --seconds), at most 15 s. */
const baselineSeconds = (seconds: number) => Math.min(15, Math.max(5, Math.round(seconds * 0.15)));
/**
 * Faults that touch the API processes' requests (a killed process and its restart under tsx, which
 * takes a core for seconds; PostgreSQL cut or restarted): the latency comparison leaves out every
 * request that overlaps one, from its injection until FAULT_SETTLE_MS after it is over (HAProxy's
 * checks and the pools come back). The receiver faults only slow the workers' deliveries.
 */
const LATENCY_FAULTS: ReadonlySet<FaultKind> = new Set(['kill-api', 'kill-worker', 'pg-restart', 'pg-terminate', 'failover']);
const FAULT_SETTLE_MS = 2000;

const redisUrl = () => process.env.CHAOS_REDIS_URL ?? 'redis://127.0.0.1:6379';

function redisClient(url: string): Redis {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  redis.on('error', () => {}); // reported by the awaited command
  return redis;
}

/** Why Redis does not answer at `url`, or undefined when it does. */
async function redisProblem(url: string): Promise<string | undefined> {
  const redis = redisClient(url);
  let cause: string | undefined;
  redis.on('error', (error: Error) => (cause ??= error.message));
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    return cause ?? (error instanceof Error ? error.message : String(error));
  } finally {
    redis.disconnect();
  }
}

/** Deletes the run's rate-limit keys (they expire within a second anyway); a bounded SCAN. */
async function deleteRedisKeys(url: string, prefix: string): Promise<number> {
  const redis = redisClient(url);
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    for (let i = 0; i < 200; i++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } catch (error) {
    say(`could not delete the run's Redis keys (${prefix}*): ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    redis.disconnect();
  }
  return deleted;
}

/** Well-behaved callers keep under half the limit by themselves (no pacing without a limit). */
const pacer = (o: Options): Pick<Api, 'pace'> => (o.noisy ? { pace: new Pacer(1000 / (NOISY_LIMIT.perSecond / 2)) } : {});

/** A new API token of the platform (POST /tokens), as a caller's Basic authorization. */
async function newToken(operator: Api, name: string, permissions: string[], key: string): Promise<string> {
  for (let i = 0; i < 5; i++) {
    const answer = await send(operator, 'POST', '/tokens', { name, permissions }, key);
    if (answer?.status === 201) {
      const { clientId, clientSecret } = answer.body as { clientId: string; clientSecret: string };
      return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    }
    if (answer && answer.status < 500 && answer.status !== 409 && answer.status !== 429) throw new Error(`POST /tokens answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    await sleep(500);
  }
  throw new Error('POST /tokens: no answer');
}

interface Topology {
  postgres: PrivatePostgres;
  /** With --failover: the same database as `postgres`, a Patroni cluster. */
  cluster?: Cluster;
  apis: ServiceProcess[];
  workers: ServiceProcess[];
  receivers: Receiver[];
  apiEnv: NodeJS.ProcessEnv;
  workerEnv: NodeJS.ProcessEnv;
}

/** (Re)starts a process, up to 3 times (PostgreSQL may be restarting under it). */
async function restart(p: ServiceProcess, env: NodeJS.ProcessEnv): Promise<void> {
  for (let i = 1; i <= 3; i++) {
    try {
      await killService(p);
      await startService(p, env);
      return;
    } catch (error) {
      say(`start of ${p.role} ${p.index} failed (try ${i}): ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      await sleep(1000);
    }
  }
}

/** What a fault acts on: faults on the same one run one after another. */
function faultTarget(fault: Fault): string {
  switch (fault.kind) {
    case 'kill-api':
      return `api ${fault.target}`;
    case 'kill-worker':
      return `worker ${fault.target}`;
    case 'receiver-down':
    case 'receiver-slow':
      return `receiver ${fault.target}`;
    default:
      return 'database';
  }
}

async function injectFault(t: Topology, fault: Fault, done: Record<FaultKind, number>): Promise<void> {
  say(`fault t=${fault.at}s ${fault.kind} target ${fault.target}${fault.durationMs ? ` for ${fault.durationMs} ms` : ''}`);
  done[fault.kind]++;
  switch (fault.kind) {
    case 'kill-api':
    case 'kill-worker': {
      const p = fault.kind === 'kill-api' ? t.apis[fault.target]! : t.workers[fault.target]!;
      await killService(p);
      await sleep(fault.durationMs);
      await restart(p, p.role === 'api' ? t.apiEnv : t.workerEnv);
      return;
    }
    case 'pg-restart':
      await t.postgres.restart('immediate').catch((error: unknown) => say(`pg restart: ${String(error)}`));
      return;
    case 'pg-terminate': {
      const n = await t.postgres.terminateBackends().catch(() => -1);
      say(`pg_terminate_backend cut ${n} connections`);
      return;
    }
    case 'receiver-down': {
      const r = t.receivers[fault.target]!;
      await r.down();
      await sleep(fault.durationMs);
      await r.start();
      return;
    }
    case 'receiver-slow': {
      const r = t.receivers[fault.target]!;
      r.slowMs = WEBHOOK_TIMEOUT_MS * 2;
      await sleep(fault.durationMs);
      r.slowMs = 0;
      return;
    }
    case 'failover':
      if (t.cluster) await t.cluster.crashLeader(say).catch((error: unknown) => say(`failover: ${String(error)}`));
      return;
  }
}

/** Waits (bounded) until nothing is left to deliver, moving the platform clock ahead so retries and settlements fall due. */
async function drain(api: Api, db: Awaited<ReturnType<typeof openDatabase>>['db'], label: string, boundMs: number): Promise<{ events: number; jobs: number }> {
  const until = Date.now() + boundMs;
  let left = await outstanding(db);
  let advanced = false; // at least once: the 30 s settlements and reviews fall due
  while (Date.now() < until) {
    left = await outstanding(db);
    if (left.events === 0 && left.jobs === 0 && advanced) return left;
    advanced = true;
    await send(api, 'POST', '/sandbox/clock/advance', { seconds: 3600 }, undefined);
    await sleep(1000);
  }
  say(`${label}: ${left.events} events and ${left.jobs} due jobs still pending after ${boundMs / 1000} s`);
  // What the service's connections are doing, for the report.
  const activity = await sql<{ state: string | null; wait: string | null; n: number; query: string | null }>`
    SELECT state, wait_event_type || ':' || wait_event AS wait, count(*)::int AS n, left(max(query), 120) AS query
    FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1, 2`.execute(db).catch(() => ({ rows: [] }));
  for (const a of activity.rows) say(`  connections: ${a.n} ${a.state ?? '-'} ${a.wait ?? ''} ${a.query ?? ''}`);
  const leases = await sql<{ leased: number; due: number }>`
    SELECT count(*) FILTER (WHERE lease_until > now())::int AS leased, count(*) FILTER (WHERE e.next_attempt_at <= now() + p.clock_offset_ms * interval '1 millisecond')::int AS due
    FROM events e JOIN platforms p ON p.id = e.platform_id WHERE e.delivery_status = 'PENDING'`.execute(db).catch(() => ({ rows: [] }));
  for (const l of leases.rows) say(`  pending events: ${l.leased} leased now, ${l.due} due`);
  return left;
}

interface NoisyResult {
  summary: NoisySummary;
  findings: string[];
}

function printVerdict(o: Options, verdict: Verdict, faults: Record<FaultKind, number>, noisy: NoisyResult | undefined): void {
  const shown = verdict.findings.slice(0, 40);
  for (const f of shown) process.stdout.write(`  ${f.kind}: ${f.detail}\n`);
  if (verdict.findings.length > shown.length) process.stdout.write(`  … and ${verdict.findings.length - shown.length} more findings\n`);
  for (const f of noisy?.findings ?? []) process.stdout.write(`  noisy-client: ${f}\n`);
  const valid = verdict.valid && (noisy?.summary.valid ?? true);
  if (noisy) {
    const n = noisy.summary;
    const ms = (x: number | null) => (x === null ? '-' : `${x}`);
    process.stdout.write(
      `noisy client: ${n.sent} requests, ${n.accepted} accepted (${n.acceptedPerSecond}/s over ${n.windowSeconds} s; limit ${n.limit}/s, burst ${n.burst}, shared by ${o.api} API processes: at most ${n.allowedPerSecond}/s allowed), ` +
        `${n.limited} limited (429 RATE_LIMITED with Retry-After), ${n.malformedLimited} malformed 429s, ${n.other} other answers, ${n.noAnswer} without an answer; ` +
        `well-behaved clients: ${n.othersLimited} refused with 429, latency p50/p99 ${ms(n.othersP50BaselineMs)}/${ms(n.othersP99BaselineMs)} ms before (${n.othersBaselineSamples} requests), ` +
        `${ms(n.othersP50NoisyMs)}/${ms(n.othersP99NoisyMs)} ms with the noisy client (${n.othersNoisySamples} requests outside fault windows)${n.latencyJudged ? '' : ', too few to judge'}: ${n.valid ? 'VALID' : 'INVALID'}\n`,
    );
  }
  process.stdout.write(
    `chaos summary: seed ${o.seed}, ${o.seconds} s, ${o.api} API processes, ${o.workers} workers: ${verdict.acknowledged} moves acknowledged, ${verdict.unknown} unknown (${verdict.unknownApplied} of them took effect once); ` +
      `lost ${verdict.lost}, duplicated ${verdict.duplicated}, phantom ${verdict.phantom}, ledger imbalances ${verdict.ledgerImbalance}, negative balances ${verdict.negativeBalances}, undelivered events ${verdict.undeliveredEvents}` +
      `${noisy ? `, noisy client ${noisy.summary.valid ? 'held to its limit' : 'check failed'}` : ''}: ${valid ? 'VALID' : 'INVALID'}\n`,
  );
  process.stdout.write(
    `${JSON.stringify({
      seed: o.seed,
      seconds: o.seconds,
      apiProcesses: o.api,
      workers: o.workers,
      acknowledged: verdict.acknowledged,
      unknown: verdict.unknown,
      lost: verdict.lost,
      duplicated: verdict.duplicated,
      phantom: verdict.phantom,
      ledgerImbalance: verdict.ledgerImbalance,
      negativeBalances: verdict.negativeBalances,
      undeliveredEvents: verdict.undeliveredEvents,
      faults: { 'kill-api': faults['kill-api'], 'kill-worker': faults['kill-worker'], 'pg-restart': faults['pg-restart'], 'pg-terminate': faults['pg-terminate'], 'receiver-down': faults['receiver-down'], 'receiver-slow': faults['receiver-slow'], failover: faults.failover },
      noisyClient: noisy ? noisy.summary : null,
      valid,
    })}\n`,
  );
}

/** The failover run's own summary line (before the verdict, which stays the last line). */
function printFailovers(cluster: Cluster): void {
  const s = (ms: number | undefined) => (ms === undefined ? 'never' : `after ${(ms / 1000).toFixed(1)} s`);
  const each = cluster.failovers.map((f) => `${f.killed} crashed, ${f.promoted ?? 'no replica'} promoted ${s(f.promotedAfterMs)}, ${f.killed} back as the synchronous replica ${s(f.rejoinedAfterMs)}`);
  process.stdout.write(
    `failover: ${cluster.failovers.length} (${each.join('; ') || 'none injected'}); the service reconnected through HAProxy with no restart; left out of this run: ${FAILOVER_RUN_OMITS.join(', ')} (pg-terminate hits the current leader)\n`,
  );
}

/**
 * Makes the clients' tokens, sets up the accounts, starts the noisy client, then runs the load: a
 * baseline without faults or noisy client, then the window with both. Returns the history and how to
 * judge the noisy client once the run is over.
 */
async function runLoad(ctx: {
  o: Options;
  seed: number;
  plan: Fault[];
  t: Topology;
  api: Api;
  historyPath: string;
  faultsDone: Record<FaultKind, number>;
  redis: string;
  redisPrefix: string;
}): Promise<{ history: History; load: Load; judgeNoisy: () => NoisyResult | undefined }> {
  const { o, seed, plan, t, api, faultsDone, redis, redisPrefix } = ctx;
  let noisy: NoisyClient | undefined;
  // Each load client calls with an API token of its own (MANAGE: it changes the webhook endpoint).
  const clients: Api[] = [];
  for (let i = 0; i < o.clients; i++) {
    const authorization = await newToken(api, `chaos client ${i}`, ['MANAGE'], `${api.keyPrefix}-token-${i}`);
    clients.push({ base: api.base, authorization, keyPrefix: api.keyPrefix, ...pacer(o), samples: [] });
  }
  if (o.noisy) {
    const authorization = await newToken(api, 'chaos noisy client', ['VIEW'], `${api.keyPrefix}-token-noisy`);
    noisy = startNoisyClient({ url: `${api.base}${API_PREFIX}/customers?limit=1`, authorization, concurrency: NOISY_CONCURRENCY });
  }
  say(`${o.clients} client tokens${o.noisy ? `, one for the noisy client; every API process limits each credential to ${NOISY_LIMIT.perSecond}/s (burst ${NOISY_LIMIT.burst}) in Redis ${redis} under ${redisPrefix}` : ' (no rate limit: --no-noisy)'}`);

  const history = new History(ctx.historyPath);
  const load = new Load(api, history, t.receivers.map((r) => r.url));
  await load.setup(o.customers);
  await Promise.all(load.accounts.map((a) => load.fund(api, a, 20_000)));
  // The noisy client's start-up (tsx) is over before anything is measured.
  if (noisy) await Promise.race([noisy.ready, sleep(60_000)]);
  const baselineMs = o.noisy ? baselineSeconds(o.seconds) * 1000 : 0;
  say(
    `setup: ${load.accounts.length} funded customer accounts (${load.accounts.filter((a) => a.cardId).length} with a card); load from ${o.clients} clients` +
      `${baselineMs ? `: ${baselineMs / 1000} s of baseline (no faults, no noisy client), then` : ''} for ${o.seconds} s${o.noisy ? ` with the faults and the noisy client (${NOISY_CONCURRENCY} requests in flight)` : ''}`,
  );

  const baselineStart = Date.now();
  const loadStart = baselineStart + baselineMs;
  const until = loadStart + o.seconds * 1000;
  load.deadline = until;
  noisy?.start(loadStart, until);
  const faultSpans: Span[] = [];
  // Faults on one target (a receiver, a process, the database) take turns: a second receiver-down
  // drawn inside the first one's window would otherwise bring the receiver up twice on one port.
  const lastOnTarget = new Map<string, Promise<void>>();
  const faultRuns = plan.map(async (fault) => {
    await sleep(Math.max(0, loadStart + fault.at * 1000 - Date.now()));
    const key = faultTarget(fault);
    const before = lastOnTarget.get(key) ?? Promise.resolve();
    const run = before.then(async () => {
      const from = Date.now();
      await injectFault(t, fault, faultsDone).catch((error: unknown) => say(`fault ${fault.kind} target ${fault.target} failed: ${error instanceof Error ? error.message : String(error)}`));
      if (LATENCY_FAULTS.has(fault.kind)) faultSpans.push({ from, to: Date.now() + FAULT_SETTLE_MS });
    });
    lastOnTarget.set(key, run);
    await run;
  });
  await Promise.all(clients.map((caller, i) => load.client(caller, until, mulberry32(seed ^ (i + 1)))));
  await Promise.all(faultRuns);
  const noisyCounts: NoisyCounts | undefined = noisy ? await Promise.race([noisy.result, sleep(30_000).then(() => undefined)]) : undefined;
  if (noisy && !noisyCounts) say(`the noisy client did not report: ${noisy.output().slice(-500)}`);
  if (noisyCounts?.other) say(`the noisy client's other answers (faults): ${JSON.stringify(noisyCounts.otherStatuses ?? {})}`);
  say(`load stopped: ${history.ops.length} operations, ${load.retried} needed a retry; ${load.unresolved.length} without an answer yet, asked again now with their keys`);
  say(`load: ${describeThroughput([...clients, ...load.agents.map((a) => a.caller)].flatMap((c) => c.samples ?? []), loadStart, until, history.ops)}`);
  // The well-behaved clients' latencies: the baseline against the window with the noisy client,
  // leaving out what overlapped a fault (their effect is not the noisy client's).
  const judgeNoisy = (): NoisyResult | undefined => {
    if (!o.noisy) return undefined;
    const samples = clients.flatMap((c) => c.samples ?? []);
    const othersLimited = [api, ...clients, ...load.agents.map((a) => a.caller)].flatMap((c) => c.samples ?? []).filter((x) => x.status === 429).length;
    return judgeNoisyClient({
      limit: NOISY_LIMIT,
      noisy: noisyCounts,
      othersLimited,
      baselineMs: latenciesIn(samples, baselineStart, loadStart),
      noisyMs: latenciesIn(samples, loadStart, until, faultSpans),
    });
  };
  return { history, load, judgeNoisy };
}

/** The verdict of a run that did not get to its checks. */
const notRun = (detail: string): Verdict => ({ acknowledged: 0, unknown: 0, unknownApplied: 0, lost: 0, duplicated: 0, phantom: 0, ledgerImbalance: 0, negativeBalances: 0, undeliveredEvents: 0, findings: [{ kind: 'lost', detail }], valid: false });

/** Whether Redis answers; when it does not, says so and prints the failed verdict. */
async function redisAnswers(o: Options, redis: string, faultsDone: Record<FaultKind, number>): Promise<boolean> {
  const problem = await redisProblem(redis);
  if (problem === undefined) return true;
  say(`Redis at ${redis} does not answer (${problem}).`);
  say('The noisy-client check needs the API processes to share their rate limits through Redis: start redis-server (as .ci/run does), set CHAOS_REDIS_URL, or run with --no-noisy.');
  printVerdict(o, notRun(`the run did not start: Redis at ${redis} does not answer (${problem})`), faultsDone, undefined);
  return false;
}

async function main(): Promise<number> {
  const o = options();
  const seed = seedNumber(o.seed);
  const shape: PlanShape = { seconds: o.seconds, apiProcesses: o.api, workers: o.workers, receivers: RECEIVERS, ...(o.failover ? { failover: true } : {}) };
  const plan = o.faults ? planFaults(seed, shape) : [];
  if (o.plan) {
    process.stdout.write(`${describePlan(seed, shape, plan)}\n`);
    return 0;
  }
  const faultsDone: Record<FaultKind, number> = { 'kill-api': 0, 'kill-worker': 0, 'pg-restart': 0, 'pg-terminate': 0, 'receiver-down': 0, 'receiver-slow': 0, failover: 0 };
  const redis = redisUrl();
  if (o.noisy && !(await redisAnswers(o, redis, faultsDone))) return 1;
  const dir = mkdtempSync(join(tmpdir(), 'moneta-chaos-'));
  chmodSync(dir, 0o755); // PostgreSQL runs as the postgres user below it
  const historyPath = join(dir, 'history.jsonl');
  say(`seed ${o.seed} (${seed}); history and logs in ${dir}`);
  say('mode: sandbox on PostgreSQL in the production process split (API processes deliver no webhooks; workers do); production mode has no funding or card simulation routes to move money with');
  process.stderr.write(`${describePlan(seed, shape, plan)}\n`);
  ensureHaproxy(say);
  if (o.failover) ensureFailoverTools(say);

  const pgDir = join(dir, 'pg');
  rmSync(pgDir, { recursive: true, force: true });
  mkdirSync(pgDir);
  chmodSync(pgDir, 0o755);
  const cluster = o.failover ? await startCluster({ dir: pgDir, maxConnections: 200, say, register: (remove) => (stopPostgres = remove) }) : undefined;
  const postgres = cluster ?? (await startPrivatePostgres({ dir: pgDir, maxConnections: 200 }));
  stopPostgres = () => postgres.remove();
  say(cluster ? `PostgreSQL under Patroni (leader ${await cluster.leader()}, synchronous replica streaming; etcd, HAProxy ${postgres.url})` : `PostgreSQL of the run's own at ${postgres.url}`);
  const clientId = 'chaos-operator';
  const secret = randomBytes(24).toString('hex');
  // Every key the API processes write in Redis starts with it (the numeric seed: no glob characters).
  const redisPrefix = `moneta-chaos-${seed}-${randomBytes(4).toString('hex')}:`;
  const common = {
    DATABASE_URL: postgres.url,
    DATA_DIR: join(dir, 'data'),
    MONETA_MODE: 'sandbox',
    MONETA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    API_TOKEN_ID: clientId,
    API_CLIENT_SECRET: secret,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
    WEBHOOK_LEASE_MS: '5000',
    WORKER_POLL_MS: '250',
  };
  // The limit is per credential: each load client has a token of its own and keeps under it; the
  // noisy client has one too (see the header). Without the noisy client, no limit at all.
  const limits: Record<string, string> = o.noisy
    ? { MONETA_RATE_LIMIT: String(NOISY_LIMIT.perSecond), MONETA_RATE_LIMIT_BURST: String(NOISY_LIMIT.burst), MONETA_REDIS_URL: redis, MONETA_REDIS_PREFIX: redisPrefix }
    : { MONETA_RATE_LIMIT: 'off' };
  const apiEnv = serviceEnvironment({ ...common, ...limits, MONETA_DELIVER_WEBHOOKS: 'false' });
  // info: a worker says when it has started (its only sign of life; it has no port).
  const workerEnv = serviceEnvironment({ ...common, LOG_LEVEL: 'info' });
  const apis: ServiceProcess[] = [];
  for (let i = 0; i < o.api; i++) apis.push({ role: 'api', index: i, port: await freePort(), child: undefined, output: '', starts: 0, crashes: [] });
  const workers: ServiceProcess[] = Array.from({ length: o.workers }, (_, i) => ({ role: 'worker', index: i, port: 0, child: undefined, output: '', starts: 0, crashes: [] }));
  const receipts: Receipt[] = [];
  const receivers: Receiver[] = [];
  let verdict: Verdict | undefined;
  let noisyResult: NoisyResult | undefined;
  const t: Topology = { postgres, cluster, apis, workers, receivers, apiEnv, workerEnv };
  try {
    // The first process migrates the schema and makes the credentials; the others then start together.
    await startService(apis[0]!, apiEnv);
    say('API process 0 up (schema migrated)');
    await Promise.all(apis.slice(1).map((p) => startService(p, apiEnv)));
    await Promise.all(workers.map((p) => startService(p, workerEnv)));
    say(`${o.api} API processes and ${o.workers} workers up`);
    const proxyPort = await freePort();
    startHaproxy(dir, proxyPort, apis.map((p) => p.port));
    // The operator (setup, drain, the retry rounds): the platform's own token.
    const api: Api = { base: `http://127.0.0.1:${proxyPort}`, authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, keyPrefix: `chaos-${seed}`, ...pacer(o), samples: [] };
    for (let i = 0; i < 100; i++) {
      if ((await fetch(`${api.base}/livez`).catch(() => undefined))?.ok) break;
      await sleep(100);
    }
    for (let i = 0; i < RECEIVERS; i++) receivers.push(await startReceiver(i, receipts));
    say(`HAProxy on ${api.base} (roundrobin, /livez checks); receivers ${receivers.map((r) => r.url).join(', ')}`);

    const { history, load, judgeNoisy } = await runLoad({ o, seed, plan, t, api, historyPath, faultsDone, redisPrefix, redis });
    for (const p of [...apis, ...workers]) if (!isRunning(p)) await restart(p, p.role === 'api' ? apiEnv : workerEnv);
    for (const r of receivers) {
      r.slowMs = 0;
      if (!r.up) await r.start();
    }
    await sleep(1500); // HAProxy's checks see every API process up again
    load.deadline = Number.POSITIVE_INFINITY;
    await load.resolveUnknowns();
    say(`operations: ${[...load.counts].filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ')}`);

    // Drain: settle what is due, deliver what is pending; then stop the API processes (nothing new
    // is made) and let the workers deliver the last events, then stop them too.
    const database = await openDatabase({ databaseUrl: postgres.url, poolSize: 2 });
    try {
      await drain(api, database.db, 'drain with the API up', 60_000);
      await Promise.all(apis.map((p) => stopService(p)));
      const left = await outstanding(database.db);
      const until2 = Date.now() + 30_000;
      while ((await outstanding(database.db)).events > 0 && Date.now() < until2) await sleep(500);
      await Promise.all(workers.map((p) => stopService(p)));
      say(`drained (jobs still scheduled for later: ${left.jobs}); reading the final state`);
      if (o.sabotage) {
        const victim = history.ops.find((op) => op.kind === 'fund' && op.status === 'ok' && op.resultId);
        if (victim) {
          await sql`DELETE FROM ledger_postings WHERE entry_id IN (SELECT id FROM ledger_entries WHERE transaction_id = ${victim.resultId})`.execute(database.db);
          await sql`DELETE FROM ledger_entries WHERE transaction_id = ${victim.resultId}`.execute(database.db);
          say(`--sabotage: deleted the ledger entry of acknowledged funding #${victim.id} (${victim.resultId}); the checker must find it`);
        }
      }
      const snapshot = await readSnapshot(database.db, receipts.map((r) => r.eventId));
      writeFileSync(join(dir, 'receipts.jsonl'), receipts.map((r) => JSON.stringify(r)).join('\n') + '\n');
      verdict = check(history.ops, snapshot);
      // After the drain: its requests (the operator's) count in "no 429 for the others" too.
      noisyResult = judgeNoisy();
      const crashes = [...apis, ...workers].flatMap((p) => p.crashes);
      // A process the faults killed without our hand (a dropped connection must not end one) fails the run too.
      for (const crash of crashes) process.stdout.write(`  crash: ${crash}\n`);
      if (crashes.length > 0) verdict = { ...verdict, valid: false };
      say(`processes that exited by themselves: ${crashes.length}`);
      say(`final state: ${snapshot.transactions.length} transactions, ${snapshot.cardTransactions.length} card transactions, ${snapshot.entries.length} ledger entries, ${snapshot.events.length} events, ${receipts.length} receipts`);
    } finally {
      await database.close();
    }
  } catch (error) {
    say(`the run failed: ${error instanceof Error ? error.message : String(error)}`);
    for (const p of [...apis, ...workers]) if (p.output.trim()) writeFileSync(join(dir, `${p.role}-${p.index}.log`), p.output);
  } finally {
    for (const p of [...apis, ...workers]) if (p.output.trim()) writeFileSync(join(dir, `${p.role}-${p.index}.log`), p.output);
    killChildren();
    for (const r of receivers) await r.down();
    postgres.remove();
    if (o.noisy) say(`deleted ${await deleteRedisKeys(redis, redisPrefix)} Redis keys under ${redisPrefix}`);
  }
  say(`history: ${historyPath}`);
  if (cluster) printFailovers(cluster);
  if (!verdict) {
    printVerdict(o, notRun('the run did not complete'), faultsDone, noisyResult);
    return 1;
  }
  printVerdict(o, verdict, faultsDone, noisyResult);
  return verdict.valid && (noisyResult?.summary.valid ?? true) ? 0 : 1;
}

process.on('exit', killChildren);

/** Stops every process this run started, its private PostgreSQL included, and exits. */
function abandon(why: string, code: number): never {
  say(`${why}: stopping every process and removing the database's directory`);
  killChildren();
  try {
    stopPostgres?.();
  } catch (error) {
    say(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => abandon(signal, 130));
// An error no part of the run caught (an emitter's 'error' without a listener) would otherwise end
// the harness and leave its private PostgreSQL running.
process.on('uncaughtException', (error) => abandon(`uncaught: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1));
process.on('unhandledRejection', (error) => abandon(`unhandled rejection: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1));

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`chaos: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
