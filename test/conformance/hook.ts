/**
 * The test hook: every response a test helper receives goes through `checkConformance`.
 *
 *   MONETA_CONFORMANCE=enforce  (default) the call throws, listing the violations, so the test
 *                               fails there
 *   MONETA_CONFORMANCE=report   each violation is appended as one JSON line to
 *                               MONETA_CONFORMANCE_REPORT (default /tmp/moneta-conformance.jsonl);
 *                               so is, once per process, each (operation, status) seen
 *   MONETA_CONFORMANCE=off      nothing is loaded or checked
 *
 * Summarise a report with `npx tsx test/conformance/summarize.ts [report.jsonl] [out.md]`.
 */
import { appendFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { ResponseSample, Violation } from './reference.js';

export type ConformanceMode = 'off' | 'report' | 'enforce';

export function conformanceMode(): ConformanceMode {
  const value = (process.env.MONETA_CONFORMANCE ?? '').trim().toLowerCase();
  if (value === '') return 'enforce';
  if (value === 'off' || value === '0' || value === 'false') return 'off';
  if (value === 'report' || value === 'enforce') return value;
  throw new Error(`MONETA_CONFORMANCE must be off, report or enforce (got "${value}")`);
}

export function reportFile(): string {
  return process.env.MONETA_CONFORMANCE_REPORT || '/tmp/moneta-conformance.jsonl';
}

/** One line of the report file. */
export type ReportLine =
  | { t: 'violation'; rule: Violation['rule']; document?: Violation['document']; op: string; status: number; pointer: string; keyword: string; schemaPath: string; message: string; value?: string; test?: string }
  | { t: 'hit'; kind: string; op: string; status: number; alias?: string }
  | { t: 'error'; op: string; status: number; message: string; test?: string };

const hits = new Set<string>();

function currentTest(): string | undefined {
  try {
    const state = expect.getState();
    const file = state.testPath ? state.testPath.replace(/^.*?\/(test|packages)\//, '$1/') : undefined;
    return [file, state.currentTestName].filter(Boolean).join(' > ') || undefined;
  } catch {
    return undefined;
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

function append(line: ReportLine): void {
  appendFileSync(reportFile(), `${JSON.stringify(line)}\n`);
}

/**
 * Checks one response against the reference (see ./reference.ts) according to MONETA_CONFORMANCE.
 * `url` is the path requested (with or without origin and query).
 */
export async function checkConformance(sample: ResponseSample): Promise<void> {
  const mode = conformanceMode();
  if (mode === 'off') return;
  const { inspectResponse, formatViolation } = await import('./reference.js');
  if (mode === 'enforce') {
    const { violations } = inspectResponse(sample);
    if (violations.length > 0) {
      throw new Error(`response does not conform to the reference (MONETA_CONFORMANCE=enforce):\n${violations.map((v) => `  - ${formatViolation(v)}`).join('\n')}`);
    }
    return;
  }
  const test = currentTest();
  let result: ReturnType<typeof inspectResponse>;
  try {
    result = inspectResponse(sample);
  } catch (error) {
    append({ t: 'error', op: `${sample.method} ${sample.url}`, status: sample.status, message: clip(String(error), 300), ...(test ? { test } : {}) });
    return;
  }
  const { route, violations } = result;
  const op = route.kind === 'extension' || route.kind === 'no-route' ? route.route : route.operation;
  const hitKey = `${route.kind} ${op} ${sample.status}`;
  if (!hits.has(hitKey)) {
    hits.add(hitKey);
    append({ t: 'hit', kind: route.kind, op, status: sample.status, ...(route.kind === 'reference' && route.alias ? { alias: route.alias } : {}) });
  }
  for (const v of violations) {
    append({
      t: 'violation',
      rule: v.rule,
      ...(v.document ? { document: v.document } : {}),
      op: v.operation,
      status: v.status,
      pointer: clip(v.pointer, 200),
      keyword: v.keyword,
      schemaPath: clip(v.schemaPath, 200),
      message: clip(v.message, 400),
      ...(v.value !== undefined ? { value: v.value } : {}),
      ...(test ? { test: clip(test, 200) } : {}),
    });
  }
}
