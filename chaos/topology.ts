/**
 * The production topology on one machine: API processes and workers as child processes in their
 * own process groups (so kill -9 takes the whole group), HAProxy in front of the API processes, and
 * loopback webhook receivers that record what they get and can go down or answer late. Its
 * PostgreSQL is a server of the run's own (tools/private-postgres.ts: initdb in the run's temporary
 * directory, on a free loopback port; never the machine's shared server, which the run restarts).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { join } from 'node:path';
import { children, exited, freePort, killGroup, stopChild } from '../tools/processes.js';
import type { NoisyCounts } from './noisy-check.js';

export const ROOT = new URL('..', import.meta.url).pathname;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- API processes and workers

export interface ServiceProcess {
  role: 'api' | 'worker';
  index: number;
  port: number;
  child: ChildProcess | undefined;
  /** The last few kB it printed, kept across restarts. */
  output: string;
  starts: number;
  /** Exits the run did not cause (a crash: a dropped connection must not kill a process). */
  crashes: string[];
  /** Set while the run itself kills or stops it. */
  stopping?: boolean;
  /** Set once it has started: an exit during start-up (PostgreSQL still recovering) is a failed start, not a crash. */
  up?: boolean;
}

export function isRunning(p: ServiceProcess): boolean {
  return p.child !== undefined && p.child.exitCode === null && p.child.signalCode === null;
}

export function serviceEnvironment(base: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'MONETA_MODE', 'HOST', 'PUBLIC_URL', 'MONETA_ENCRYPTION_KEY', 'PORT', 'NODE_OPTIONS']) delete env[name];
  return { ...env, ...base };
}

/** Starts (or restarts) one process; an API process is waited for until /livez answers (bounded). */
export async function startService(p: ServiceProcess, env: NodeJS.ProcessEnv): Promise<void> {
  const entry = p.role === 'api' ? 'packages/server/src/main.ts' : 'packages/server/src/worker.ts';
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: { ...env, PORT: String(p.port) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  p.child = child;
  p.starts++;
  children.add(child);
  // This start's own output: `p.output` spans restarts, and a worker's earlier "worker started" must not make a failed restart look up.
  let ownOutput = '';
  const keep = (chunk: Buffer) => {
    p.output = (p.output + chunk.toString('utf8')).slice(-6000);
    ownOutput = (ownOutput + chunk.toString('utf8')).slice(-6000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  p.stopping = false;
  p.up = false;
  child.once('exit', (code, signal) => {
    children.delete(child);
    if (p.up && !p.stopping) p.crashes.push(`${p.role} ${p.index} exited by itself (${signal ?? `code ${code}`}): ${p.output.slice(-300).replace(/\s+/g, ' ')}`);
  });
  if (p.role === 'worker') {
    // A worker has no port: it is up once it says so (bounded), or we go on without waiting.
    for (let i = 0; i < 300 && !ownOutput.includes('worker started') && child.exitCode === null; i++) await sleep(100);
    if (child.exitCode !== null) throw new Error(`worker ${p.index} exited during start-up:\n${p.output}`);
    p.up = true;
    return;
  }
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`API process ${p.index} exited during start-up:\n${p.output}`);
    try {
      if ((await fetch(`http://127.0.0.1:${p.port}/livez`, { signal: AbortSignal.timeout(1000) })).ok) {
        p.up = true;
        return;
      }
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`API process ${p.index} did not answer /livez within 60 s:\n${p.output}`);
}

/** kill -9 of the process's group: no shutdown hook runs, in-flight work is cut mid-transaction. */
export async function killService(p: ServiceProcess): Promise<void> {
  const child = p.child;
  if (!child) return;
  p.stopping = true;
  killGroup(child, 'SIGKILL');
  await exited(child);
  p.child = undefined;
}

/** SIGTERM (the workers' graceful drain), SIGKILL after `graceMs`. */
export async function stopService(p: ServiceProcess, graceMs = 8000): Promise<void> {
  const child = p.child;
  if (!child) return;
  p.stopping = true;
  await stopChild(child, graceMs);
  p.child = undefined;
}

// ---------------------------------------------------------------- the noisy client

export interface NoisyClient {
  /** Resolves once the process has loaded (its start-up is over before the measured phases). */
  ready: Promise<void>;
  /** Its counts once it has finished; undefined when it exited without them. */
  result: Promise<NoisyCounts | undefined>;
  /** Tells it when to start and stop (wall-clock ms). */
  start(startAt: number, until: number): void;
  /** What it printed (for the report when it failed). */
  output: () => string;
  child: ChildProcess;
}

/** Starts chaos/noisy.ts as a process of its own; once ready it waits for start(). */
export function startNoisyClient(input: { url: string; authorization: string; concurrency: number }): NoisyClient {
  const env: NodeJS.ProcessEnv = { ...process.env, CHAOS_NOISY: JSON.stringify(input) };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--import', 'tsx', 'chaos/noisy.ts'], { cwd: ROOT, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.includes('noisy ready\n')) markReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const result = exited(child).then((code) => {
    children.delete(child);
    markReady();
    const line = output.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !line.startsWith('{')) return undefined;
    return JSON.parse(line) as NoisyCounts;
  });
  child.stdin?.on('error', () => {}); // it may have exited already
  const start = (startAt: number, until: number) => child.stdin?.end(`${JSON.stringify({ startAt, until })}\n`);
  return { ready, result, start, output: () => output, child };
}

// ---------------------------------------------------------------- HAProxy

export function haproxyAvailable(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v haproxy'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** Debian's haproxy, installed the way .ci/run installs chromium (root, apt-get). */
export function ensureHaproxy(say: (line: string) => void): void {
  if (haproxyAvailable()) return;
  say("haproxy not found: installing Debian's package (apt-get install -y haproxy)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq haproxy >/dev/null'], { stdio: 'inherit', env, timeout: 300_000 });
  if (!haproxyAvailable()) throw new Error('haproxy could not be installed');
}

/**
 * Round robin over the API processes, each checked on /livez every 500 ms (down after 2 failures,
 * up after 1 success). A request whose connection fails is redispatched once to another server
 * (option redispatch, retries 2, connection failures only: a request the server received is never
 * sent again by the proxy; the client's idempotency key covers that).
 */
export function startHaproxy(dir: string, port: number, apiPorts: number[]): ChildProcess {
  const config = [
    'global',
    '  maxconn 2048',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    '  retries 2',
    '  option redispatch',
    '  retry-on conn-failure empty-response',
    'frontend api',
    `  bind 127.0.0.1:${port}`,
    '  default_backend moneta',
    'backend moneta',
    '  balance roundrobin',
    '  option httpchk GET /livez',
    '  http-check expect status 200',
    ...apiPorts.map((p, i) => `  server api${i} 127.0.0.1:${p} check inter 500 fall 2 rise 1`),
    '',
  ].join('\n');
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child = spawn('haproxy', ['-f', file, '-db'], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

// ---------------------------------------------------------------- webhook receivers

export interface Receipt {
  eventId: string;
  receiver: number;
  at: number;
}

export interface Receiver {
  index: number;
  url: string;
  port: number;
  /** While set, every answer waits this long (longer than the service's delivery timeout). */
  slowMs: number;
  up: boolean;
  down(): Promise<void>;
  start(): Promise<void>;
}

/** A loopback receiver that records each event id it is sent (the webhook-id header) and answers 200. */
export async function startReceiver(index: number, receipts: Receipt[]): Promise<Receiver> {
  const port = await freePort();
  let server: Server | undefined;
  const receiver: Receiver = {
    index,
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    slowMs: 0,
    up: false,
    async start() {
      const s = createHttpServer((req, res) => {
        req.resume();
        req.on('end', () => {
          const id = req.headers['webhook-id'];
          if (typeof id === 'string') receipts.push({ eventId: id, receiver: index, at: Date.now() });
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('ok');
          };
          if (receiver.slowMs > 0) setTimeout(send, receiver.slowMs).unref();
          else send();
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.listen(port, '127.0.0.1', () => resolve());
      });
      server = s;
      receiver.up = true;
    },
    async down() {
      const s = server;
      server = undefined;
      receiver.up = false;
      if (!s) return;
      await new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      });
    },
  };
  await receiver.start();
  return receiver;
}
