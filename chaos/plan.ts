/**
 * The fault schedule of a chaos run: a pure function of the seed and the run's shape, so a failing
 * seed is replayed with the same faults at the same moments (`npm run chaos -- --plan --seed S`).
 */

/** mulberry32: a tiny, well-known 32-bit PRNG; the same seed gives the same sequence on every machine. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed given as text (`--seed 1`, `--seed 2318812345`, `--seed abc`) as 32 bits: numbers as themselves, anything else hashed. */
export function seedNumber(seed: string): number {
  if (/^[0-9]+$/.test(seed)) return Number(BigInt(seed) % 4294967296n);
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

export const FAULT_KINDS = ['kill-api', 'kill-worker', 'pg-restart', 'pg-terminate', 'receiver-down', 'receiver-slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number] | 'failover';

export interface Fault {
  /** Seconds after the load starts. */
  at: number;
  kind: FaultKind;
  /** Which API process, worker or receiver (0-based); 0 for the database faults. */
  target: number;
  /** How long the thing stays down (kill: until restarted; receiver: down or slow), in ms; 0 for pg-terminate. */
  durationMs: number;
}

export interface PlanShape {
  seconds: number;
  apiProcesses: number;
  workers: number;
  receivers: number;
  /** The failover run (Patroni): one failover, and no pg-restart (see FAILOVER_RUN_OMITS). */
  failover?: boolean;
}

/**
 * Left out of the failover run: an immediate restart of one server behind Patroni's back is a crash
 * its Patroni repairs in place (the single-server run covers crash recovery); the failover is its
 * stronger form. pg-terminate stays: it cuts the connections on the current leader, through HAProxy.
 */
export const FAILOVER_RUN_OMITS: readonly FaultKind[] = ['pg-restart'];

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * Faults between 2 s after the start and 3 s before the end of the load: at least one of each kind
 * when there is room, else about one every 3.5 s. Every
 * kind comes once first (in a seeded order) when there is room, so a short run still meets each;
 * the rest are drawn at random. Kills and receiver faults last 1 to 5 s.
 */
export function planFaults(seed: number, shape: PlanShape): Fault[] {
  const rng = mulberry32(seed);
  const from = 2;
  const until = Math.max(from, shape.seconds - 3);
  const span = until - from;
  const pool: FaultKind[] = FAULT_KINDS.filter((kind) => !(shape.failover && FAILOVER_RUN_OMITS.includes(kind)));
  const count = Math.max(1, Math.min(pool.length, Math.floor(span / 1.5)), Math.floor(span / 3.5));
  const kinds: FaultKind[] = [...pool];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  const chosen = kinds.slice(0, Math.min(count, kinds.length));
  while (chosen.length < count) chosen.push(pool[Math.floor(rng() * pool.length)]!);
  const slot = (until - from) / count;
  const faults = chosen.map((kind, i): Fault => {
    const at = round(from + slot * i + rng() * slot * 0.8, 2);
    const targets = kind === 'kill-api' ? shape.apiProcesses : kind === 'kill-worker' ? shape.workers : kind.startsWith('receiver') ? shape.receivers : 1;
    const target = Math.floor(rng() * targets);
    const durationMs = kind === 'pg-terminate' ? 0 : kind === 'pg-restart' ? 0 : Math.round(1000 + rng() * 4000);
    return { at, kind, target, durationMs };
  });
  if (!shape.failover) return faults;
  // One failover, between 20% and 50% of the window (room to promote, rejoin and drain before the
  // end), from a PRNG of its own so the other faults' draws stay as they are.
  const at = round(from + span * (0.2 + 0.3 * mulberry32(seed ^ 0x5a17f0e5)()), 2);
  return [...faults, { at, kind: 'failover' as const, target: 0, durationMs: 0 }].sort((a, b) => a.at - b.at);
}

export function describePlan(seed: number, shape: PlanShape, faults: Fault[]): string {
  const lines = [`chaos plan for seed ${seed}: ${shape.seconds} s of load, ${shape.apiProcesses} API processes, ${shape.workers} workers, ${shape.receivers} receivers, ${faults.length} faults`];
  if (shape.failover) lines.push(`  failover run: PostgreSQL leader + synchronous replica under Patroni behind HAProxy; left out: ${FAILOVER_RUN_OMITS.join(', ')} (a crash Patroni repairs in place; the failover is its stronger form)`);
  for (const f of faults) {
    const what =
      f.kind === 'kill-api' ? `kill -9 API process ${f.target}, restarted after ${f.durationMs} ms`
      : f.kind === 'kill-worker' ? `kill -9 worker ${f.target}, restarted after ${f.durationMs} ms`
      : f.kind === 'pg-restart' ? 'PostgreSQL immediate restart (pg_ctl restart -m immediate)'
      : f.kind === 'pg-terminate' ? "pg_terminate_backend of every service connection"
      : f.kind === 'receiver-down' ? `webhook receiver ${f.target} down for ${f.durationMs} ms`
      : f.kind === 'receiver-slow' ? `webhook receiver ${f.target} answers after the delivery timeout for ${f.durationMs} ms`
      : "crash of the PostgreSQL leader's node (kill -9 of its Patroni and its postmaster); Patroni promotes the synchronous replica, the node rejoins as a replica";
    lines.push(`  t=${f.at.toFixed(2).padStart(7)} s  ${f.kind.padEnd(14)} ${what}`);
  }
  return lines.join('\n');
}
