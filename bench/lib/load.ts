/**
 * The load generators and what they measure: autocannon against the server for a fixed time
 * (`measure`), closed loops in this process for MONEY_SECONDS (`measureLoops`), and `inParallel`
 * for setup work. Every loop is bounded by its time or its item count.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import autocannon from 'autocannon';
import { checkInterrupted, stopping } from './interruption.js';
import type { Profiler } from './profiler.js';
import { CONNECTIONS, MONEY_SECONDS, progress, WARMUP_SECONDS } from './settings.js';

export interface Measurement {
  database: string;
  scenario: string;
  reqPerSec: number;
  p50: number;
  p99: number;
  failures: number;
  /** autocannon reports whole milliseconds; the raw-SQL loops time each transaction to the microsecond. */
  fractional: boolean;
}

/** A measured scenario, beside what it is compared with (none for the ceilings themselves). */
export interface Row extends Measurement {
  ceiling?: Measurement;
}

/** The server's profiler while BENCH_PROFILE runs: every API scenario is profiled on its own. */
let profiler: Profiler | undefined;
export function useProfiler(next: Profiler | undefined): void {
  profiler = next;
}

/** `work` under the server's profiler when BENCH_PROFILE runs (a scenario not driven by autocannon). */
export function profiled<T>(scenario: string, work: () => Promise<T>): Promise<T> {
  return profiler ? profiler.profile(scenario, work) : work();
}

/** autocannon against the server for `seconds`, after WARMUP_SECONDS unless `warmUp` is false (a soak's later minutes: the server is warm). */
export async function measure(label: string, scenario: string, seconds: number, options: autocannon.Options, warmUp = true): Promise<Measurement> {
  return profiler ? profiler.profile(scenario, () => measureApi(label, scenario, seconds, options, warmUp)) : measureApi(label, scenario, seconds, options, warmUp);
}

async function measureApi(label: string, scenario: string, seconds: number, options: autocannon.Options, warmUp: boolean): Promise<Measurement> {
  checkInterrupted();
  const warmup = warmUp ? WARMUP_SECONDS : 0;
  progress(`[${label}] ${scenario}: ${warmup ? `${warmup} s warm-up, then ` : ''}${seconds} s with ${CONNECTIONS} connections`);
  const result = await autocannon({
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 30,
    ...(warmup ? { warmup: { connections: CONNECTIONS, duration: warmup } } : {}),
    ...options,
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  const reqPerSec = result['2xx'] / result.duration;
  progress(`[${label}] ${scenario}: ${Math.round(reqPerSec)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${failures ? `, ${failures} FAILED (${JSON.stringify(result.statusCodeStats)}, errors ${result.errors}, timeouts ${result.timeouts})` : ''}`);
  return { database: label, scenario, reqPerSec, p50: result.latency.p50, p99: result.latency.p99, failures, fractional: false };
}

/** Runs `work` over `items`, at most `width` at a time, keeping the order of the results. */
export async function inParallel<T, R>(width: number, items: T[], work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/**
 * Runs `operation` from CONNECTIONS closed loops for MONEY_SECONDS (after the warm-up), timing each
 * from the moment the loop was ready for it to its end; failures are counted, not timed.
 */
export async function measureLoops(label: string, scenario: string, unit: string, operation: () => Promise<void>): Promise<Measurement> {
  checkInterrupted();
  progress(`[${label}] ${scenario}: ${WARMUP_SECONDS ? `${WARMUP_SECONDS} s warm-up, then ` : ''}${MONEY_SECONDS} s with ${CONNECTIONS} concurrent loops`);
  let lastError: unknown;
  const run = async (seconds: number, latencies: number[] | undefined) => {
    const begun = performance.now();
    const deadline = begun + seconds * 1000;
    let failures = 0;
    const loop = async () => {
      while (!stopping && performance.now() < deadline) {
        const started = performance.now();
        await nextMacrotask();
        try {
          await operation();
          latencies?.push(performance.now() - started);
        } catch (error) {
          failures++;
          lastError = error;
        }
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, loop));
    return { seconds: (performance.now() - begun) / 1000, failures };
  };
  if (WARMUP_SECONDS) await run(WARMUP_SECONDS, undefined);
  checkInterrupted();
  const latencies: number[] = [];
  const { seconds, failures } = await run(MONEY_SECONDS, latencies);
  checkInterrupted();
  latencies.sort((a, b) => a - b);
  const result: Measurement = {
    database: label,
    scenario,
    reqPerSec: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    failures,
    fractional: true,
  };
  const failed = failures ? `, ${failures} FAILED (last: ${lastError instanceof Error ? lastError.message : String(lastError)})` : '';
  progress(`[${label}] ${scenario}: ${Math.round(result.reqPerSec)} ${unit}, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms${failed}`);
  return result;
}
