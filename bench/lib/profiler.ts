/**
 * CPU profiles of the server, one per scenario, with BENCH_PROFILE=1: the server is started with
 * `--inspect` on a loopback port, and the bench drives V8's sampling profiler over the inspector
 * protocol (Profiler.start before the scenario, Profiler.stop after), writing
 * `bench/profiles/<database>-<scenario>.cpuprofile` (opens as a flame chart in Chrome DevTools'
 * Performance panel or https://www.speedscope.app) and a text summary beside it: where the
 * server's time went, by self time per function and per part of the stack.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { progress, ROOT } from './settings.js';

export const PROFILES_DIR = join(ROOT, 'bench', 'profiles');

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Profiler {
  profile<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): void;
}

/** Connects to the server's inspector (its HTTP endpoint lists the WebSocket address). */
export async function connectProfiler(inspectPort: number, label: string): Promise<Profiler> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((done, fail) => {
    socket.addEventListener('open', () => done(), { once: true });
    socket.addEventListener('error', () => fail(new Error('cannot reach the server inspector')), { once: true });
  });
  let nextId = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (message) => {
    const data = JSON.parse(String(message.data)) as { id?: number; result?: unknown };
    if (data.id !== undefined) waiting.get(data.id)?.(data.result);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((done) => {
      const id = nextId++;
      waiting.set(id, done);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 500 });
  mkdirSync(PROFILES_DIR, { recursive: true });
  return {
    async profile(name, work) {
      await send('Profiler.start');
      try {
        return await work();
      } finally {
        const { profile } = (await send('Profiler.stop')) as { profile: CpuProfile };
        const file = `${label}-${name}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
        writeFileSync(join(PROFILES_DIR, `${file}.cpuprofile`), JSON.stringify(profile));
        writeFileSync(join(PROFILES_DIR, `${file}.txt`), summarize(profile, `${label} ${name}`));
        progress(`[${label}] CPU profile of ${name}: bench/profiles/${file}.cpuprofile (summary in .txt)`);
      }
    },
    close: () => socket.close(),
  };
}

/** Which part of the stack a frame belongs to, by its file. */
function partOf(url: string, functionName: string): string {
  if (url === '') return functionName === '(garbage collector)' ? 'garbage collection' : functionName === '(idle)' || functionName === '(program)' ? functionName : 'V8/native';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const own = /packages\/server\/src\/([^/]+)(?:\/([^/]+))?/.exec(url);
  if (own) return own[1] === 'modules' ? `moneta modules/${own[2]}` : `moneta ${own[1]}`;
  return url.replace(/^.*\//, '');
}

/** Self time per function and per part (package, node module, Moneta folder), busiest first. */
export function summarize(profile: CpuProfile, title: string): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  /** A builtin (JSON.parse, a RegExp, a native call) counts for the part that called it. */
  const callerPart = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url) return partOf(frame.url, frame.functionName);
    }
    return partOf('', byId.get(id)!.callFrame.functionName);
  };
  const selfMs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  const perFunction = new Map<string, number>();
  const perPart = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    total += ms;
    const where = frame.url ? `${frame.url.replace(/^.*?(node_modules\/|packages\/)/, '$1')}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    perFunction.set(key, (perFunction.get(key) ?? 0) + ms);
    const part = frame.url || frame.functionName.startsWith('(') ? partOf(frame.url, frame.functionName) : callerPart(id);
    perPart.set(part, (perPart.get(part) ?? 0) + ms);
  }
  const wall = (profile.endTime - profile.startTime) / 1000;
  const lines = [
    `CPU profile: ${title}`,
    `wall ${(wall / 1000).toFixed(1)} s, busy ${(total / 1000).toFixed(1)} s (${((100 * total) / wall).toFixed(0)}% of one core), idle ${(idle / 1000).toFixed(1)} s`,
    '',
    'self time by part of the stack (builtins and native calls counted for the part that called them):',
    ...[...perPart].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([part, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${part}`),
    '',
    'self time by function (top 40):',
    ...[...perFunction].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([name, ms]) => `  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${name}`),
  ];
  return `${lines.join('\n')}\n`;
}
