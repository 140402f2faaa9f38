/**
 * The failover run's database (issue 26, item 3): the stack operators already run, on loopback.
 *
 * - **etcd** (one member, loopback only): Patroni's distributed configuration store, where the
 *   leader key lives with a TTL.
 * - **Patroni**, one per PostgreSQL node (PostgreSQL 15's binaries, each node's data under the
 *   run's temporary directory): a leader and a replica with `synchronous_mode` and
 *   `synchronous_mode_strict`, so a commit is acknowledged only once the synchronous replica has
 *   it, and only that replica may be promoted.
 * - **HAProxy** in TCP mode in front of the nodes, checking each node's Patroni REST API
 *   (`GET /primary`: 200 on the leader only) and cutting the sessions of a node marked down. The
 *   service's DATABASE_URL points at HAProxy: it needs no failover logic of its own, only to
 *   reconnect, which its pool does.
 *
 * The failover fault (`crashLeader`) is a crash of the leader's node: kill -9 of its Patroni and
 * of its postmaster's whole session, at once. Killing the postmaster alone would not fail over
 * (the node's Patroni restarts it in place, still holding the leader key: a crash recovery, which
 * the single-server run's pg-restart covers); killing Patroni alone would leave a primary running
 * without a supervisor, which is a network partition, not a crash. Once the replica is promoted
 * the node is started again, as its supervisor would after a reboot, and rejoins as a replica
 * (pg_rewind): with `synchronous_mode_strict` on two nodes, writes wait for a synchronous replica
 * again, so that is also when they resume.
 *
 * The config generators are pure (tested in chaos/cluster.test.ts); docs/operations.md shows the
 * same files for an operator.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { postgresBinDir, terminateBackends, type PrivatePostgres } from '../tools/private-postgres.js';
import { children, freePort, killGroup } from '../tools/processes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- the configuration (pure)

export interface NodeAddress {
  name: string;
  /** PostgreSQL's port. */
  pgPort: number;
  /** Patroni's REST API port (HAProxy's health check). */
  restPort: number;
}

export interface PatroniInput {
  scope: string;
  node: NodeAddress;
  /** The node's own directory: data, socket, pgpass. */
  dir: string;
  etcdHosts: string[];
  binDir: string;
  maxConnections: number;
}

/**
 * Leader key TTL and loop: Patroni requires loop_wait + 2 × retry_timeout ≤ ttl. 15 s keeps a
 * leader that a loaded 2-core machine starves for a few seconds (etcd, Python) from losing its key,
 * and bounds the write pause after a crash to about 15 s plus the promotion.
 */
export const DCS_TIMING = { ttl: 15, loop_wait: 2, retry_timeout: 5 } as const;

/** One node's Patroni configuration (YAML). Trust on loopback: the run's nodes accept nothing else. */
export function patroniConfig(input: PatroniInput): string {
  const { node, dir } = input;
  const config = {
    scope: input.scope,
    name: node.name,
    restapi: { listen: `127.0.0.1:${node.restPort}`, connect_address: `127.0.0.1:${node.restPort}` },
    etcd3: { hosts: input.etcdHosts },
    bootstrap: {
      dcs: {
        ...DCS_TIMING,
        maximum_lag_on_failover: 1048576,
        synchronous_mode: true,
        synchronous_mode_strict: true,
        postgresql: {
          use_pg_rewind: true,
          // A process crash leaves WAL written at commit in the kernel's page cache, so fsync may
          // stay off (as tools/private-postgres.ts argues); the synchronous replica is what a
          // commit waits for here.
          parameters: { max_connections: input.maxConnections, fsync: 'off', synchronous_commit: 'on', wal_log_hints: 'on', hot_standby: 'on' },
        },
      },
      initdb: [{ encoding: 'UTF8' }, { 'auth-local': 'trust' }, { 'auth-host': 'trust' }, 'no-sync'],
    },
    postgresql: {
      listen: `127.0.0.1:${node.pgPort}`,
      connect_address: `127.0.0.1:${node.pgPort}`,
      data_dir: join(dir, 'data'),
      bin_dir: input.binDir,
      pgpass: join(dir, 'pgpass'),
      authentication: {
        superuser: { username: 'postgres' },
        replication: { username: 'replicator' },
        rewind: { username: 'postgres' },
      },
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication replicator 127.0.0.1/32 trust'],
      parameters: { unix_socket_directories: dir },
      remove_data_directory_on_rewind_failure: true,
      remove_data_directory_on_diverged_timelines: true,
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
  return stringify(config);
}

/** etcd's command line: one member, client and peer URLs on loopback only. */
export function etcdArgs(input: { name: string; dataDir: string; clientPort: number; peerPort: number }): string[] {
  const client = `http://127.0.0.1:${input.clientPort}`;
  const peer = `http://127.0.0.1:${input.peerPort}`;
  return [
    '--name', input.name,
    '--data-dir', input.dataDir,
    '--listen-client-urls', client,
    '--advertise-client-urls', client,
    '--listen-peer-urls', peer,
    '--initial-advertise-peer-urls', peer,
    '--initial-cluster', `${input.name}=${peer}`,
    '--initial-cluster-state', 'new',
    '--log-level', 'warn',
  ];
}

/**
 * HAProxy in TCP mode: one frontend for PostgreSQL; each node checked on its Patroni REST port with
 * `GET /primary` (200 on the leader only) every second, down after 2 failures, up after 1 success;
 * `on-marked-down shutdown-sessions` cuts the connections to a node that stopped being the primary,
 * so no client keeps writing to a demoted or dead one. Long client/server timeouts: pooled
 * connections sit idle between requests.
 */
export function haproxyPostgresConfig(input: { port: number; nodes: NodeAddress[] }): string {
  return [
    'global',
    '  maxconn 2048',
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    '  timeout client 30m',
    '  timeout server 30m',
    '  timeout check 2s',
    'listen postgres',
    `  bind 127.0.0.1:${input.port}`,
    '  option httpchk GET /primary',
    '  http-check expect status 200',
    '  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions',
    ...input.nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.pgPort} check port ${n.restPort}`),
    '',
  ].join('\n');
}

// ---------------------------------------------------------------- installing the tools

function onPath(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

/** Debian's patroni (3.0.2) and etcd (3.4), installed as topology.ts installs HAProxy when missing. */
export function ensureFailoverTools(say: (line: string) => void): void {
  if (onPath('patroni') && onPath('etcd')) return;
  say("patroni or etcd not found: installing Debian's packages (apt-get install -y patroni etcd-server etcd-client)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('sh', ['-c', 'apt-get update -qq && apt-get install -y -qq patroni etcd-server etcd-client >/dev/null'], { stdio: 'inherit', env, timeout: 600_000 });
  if (!onPath('patroni') || !onPath('etcd')) throw new Error('patroni and etcd could not be installed');
}

// ---------------------------------------------------------------- the running cluster

export interface FailoverReport {
  /** The node that was the leader and was killed. */
  killed: string;
  /** The node Patroni promoted (undefined: none within the bound). */
  promoted: string | undefined;
  /** From the kill until the other node answered /primary. */
  promotedAfterMs: number | undefined;
  /** From the kill until the killed node was a streaming replica again. */
  rejoinedAfterMs: number | undefined;
}

export interface Cluster extends PrivatePostgres {
  /** The node that answers /primary now, if any. */
  leader(): Promise<string | undefined>;
  /** The failover fault (see the header); resolves once the killed node is back as a replica (bounded). */
  crashLeader(say: (line: string) => void): Promise<FailoverReport>;
  failovers: FailoverReport[];
}

interface Node extends NodeAddress {
  dir: string;
  config: string;
  patroni: ChildProcess | undefined;
}

/** GET on a node's Patroni REST API: the status, or undefined without an answer. */
async function rest(node: NodeAddress, path: string): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  try {
    const answer = await fetch(`http://127.0.0.1:${node.restPort}${path}`, { signal: AbortSignal.timeout(2000) });
    const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
    return { status: answer.status, body };
  } catch {
    return undefined;
  }
}

async function waitFor<T>(what: string, boundMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(250);
  }
  throw new Error(`${what}: not within ${boundMs / 1000} s`);
}

/** The postmaster's pid (first line of postmaster.pid), or undefined when it is not running. */
function postmasterPid(node: Node): number | undefined {
  try {
    const pid = Number(readFileSync(join(node.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** kill -9 of the postmaster's session (Patroni starts it with setsid: every backend goes with it). */
function killPostmaster(node: Node): number | undefined {
  const pid = postmasterPid(node);
  if (pid === undefined) return undefined;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already, or not a group
    }
  }
  return pid;
}

/** Whether a process still runs (a zombie, which nobody may reap in a container, writes nothing). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Blocks up to `boundMs` until none of `pids` runs (for the synchronous stop: a signal handler cannot await). */
function waitGone(pids: number[], boundMs: number): void {
  const until = Date.now() + boundMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some(running) && Date.now() < until) Atomics.wait(pause, 0, 0, 50);
}

export interface ClusterOptions {
  /** An empty directory for etcd, the nodes and HAProxy's config. */
  dir: string;
  maxConnections: number;
  say: (line: string) => void;
  /** Called at once with the cluster's synchronous stop, so an interrupted start-up is cleaned up too. */
  register: (stop: () => void) => void;
  /** 2: a leader and its synchronous replica. */
  nodes?: number;
}

/** Starts etcd, the Patroni nodes (the first bootstraps, the others clone it) and HAProxy; resolves once a synchronous replica streams. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { dir, say } = options;
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()) } : undefined;
  const own = (path: string) => owner && chownSync(path, owner.uid, owner.gid);
  const binDir = postgresBinDir();
  const etcdClient = await freePort();
  const etcdPeer = await freePort();
  const proxyPort = await freePort();
  const nodes: Node[] = [];
  for (let i = 0; i < (options.nodes ?? 2); i++) {
    const address: NodeAddress = { name: `node${i}`, pgPort: await freePort(), restPort: await freePort() };
    const nodeDir = join(dir, address.name);
    mkdirSync(nodeDir, { recursive: true, mode: 0o700 });
    own(nodeDir);
    const config = join(nodeDir, 'patroni.yml');
    writeFileSync(config, patroniConfig({ scope: 'moneta-chaos', node: address, dir: nodeDir, etcdHosts: [`127.0.0.1:${etcdClient}`], binDir, maxConnections: options.maxConnections }));
    own(config);
    nodes.push({ ...address, dir: nodeDir, config, patroni: undefined });
  }
  const processes: ChildProcess[] = [];
  const spawnLogged = (file: string, args: string[], log: string): ChildProcess => {
    const fd = openSync(log, 'a');
    const child = spawn(file, args, { detached: true, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    children.add(child);
    child.once('exit', () => children.delete(child));
    return child;
  };
  const startPatroni = (node: Node) => {
    node.patroni = asRoot ? spawnLogged('runuser', ['-u', 'postgres', '--', 'patroni', node.config], join(node.dir, 'patroni.log')) : spawnLogged('patroni', [node.config], join(node.dir, 'patroni.log'));
  };
  const stopNode = (node: Node) => {
    if (node.patroni) killGroup(node.patroni, 'SIGKILL');
    node.patroni = undefined;
    return killPostmaster(node);
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    const postmasters = nodes.map(stopNode).filter((pid) => pid !== undefined);
    for (const child of processes) killGroup(child, 'SIGKILL');
    // Nothing may still write under the directory while it is removed.
    waitGone(postmasters, 5000);
  };
  const remove = () => {
    stop();
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  };
  options.register(remove);

  try {
    const etcdData = join(dir, 'etcd');
    mkdirSync(etcdData, { recursive: true, mode: 0o700 });
    processes.push(spawnLogged('etcd', etcdArgs({ name: 'etcd0', dataDir: etcdData, clientPort: etcdClient, peerPort: etcdPeer }), join(dir, 'etcd.log')));
    await waitFor('etcd up', 60_000, async () => ((await fetch(`http://127.0.0.1:${etcdClient}/health`).catch(() => undefined))?.ok ? true : undefined));
    const haproxyConfig = join(dir, 'haproxy-postgres.cfg');
    writeFileSync(haproxyConfig, haproxyPostgresConfig({ port: proxyPort, nodes }));
    processes.push(spawnLogged('haproxy', ['-f', haproxyConfig, '-db'], join(dir, 'haproxy-postgres.log')));
    // The first node bootstraps (initdb) and takes the leader key; the others then clone it.
    startPatroni(nodes[0]!);
    await waitFor('the first node leads', 120_000, async () => ((await rest(nodes[0]!, '/primary'))?.status === 200 ? true : undefined));
    for (const node of nodes.slice(1)) startPatroni(node);
    await waitFor('a synchronous replica streams', 180_000, async () => ((await syncStandby(nodes)) ? true : undefined));
  } catch (error) {
    say('the cluster did not start; the end of its logs:');
    for (const log of [join(dir, 'etcd.log'), ...nodes.map((n) => join(n.dir, 'patroni.log'))]) {
      if (existsSync(log)) say(`  ${log}: ${readFileSync(log, 'utf8').slice(-1500)}`);
    }
    remove();
    throw error;
  }

  const url = (database: string) => `postgres://postgres@127.0.0.1:${proxyPort}/${database}`;
  const admin = new pg.Client({ connectionString: url('postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE moneta');
  await admin.end();

  const leaderNode = async () => {
    for (const node of nodes) if ((await rest(node, '/primary'))?.status === 200) return node;
    return undefined;
  };
  const failovers: FailoverReport[] = [];
  return {
    url: url('moneta'),
    adminUrl: url('postgres'),
    dir,
    failovers,
    async leader() {
      return (await leaderNode())?.name;
    },
    async crashLeader(report) {
      const old = await leaderNode();
      if (!old) throw new Error('no node answers /primary');
      const killedAt = Date.now();
      stopNode(old);
      report(`failover: ${old.name} crashed (kill -9 of its Patroni and its postmaster's session)`);
      const record: FailoverReport = { killed: old.name, promoted: undefined, promotedAfterMs: undefined, rejoinedAfterMs: undefined };
      failovers.push(record);
      const survivors = nodes.filter((n) => n !== old);
      const promoted = await waitFor('a replica promoted', 90_000, async () => {
        for (const node of survivors) if ((await rest(node, '/primary'))?.status === 200) return node;
        return undefined;
      }).catch(() => undefined);
      record.promoted = promoted?.name;
      record.promotedAfterMs = promoted ? Date.now() - killedAt : undefined;
      report(promoted ? `failover: ${promoted.name} promoted after ${record.promotedAfterMs} ms; restarting ${old.name}, which rejoins as a replica` : 'failover: no replica promoted within 90 s');
      startPatroni(old);
      const rejoined = await waitFor(`${old.name} rejoins`, 120_000, async () => ((await syncStandby(nodes)) === old.name ? true : undefined)).catch(() => undefined);
      record.rejoinedAfterMs = rejoined ? Date.now() - killedAt : undefined;
      report(rejoined ? `failover: ${old.name} is the synchronous replica again after ${record.rejoinedAfterMs} ms` : `failover: ${old.name} did not rejoin within 120 s`);
      return record;
    },
    terminateBackends: () => terminateBackends(url('postgres'), { clientsOnly: true }),
    restart() {
      return Promise.reject(new Error('pg-restart is not part of the failover run (the failover fault crashes the leader instead)'));
    },
    stop,
    remove,
  };
}

/** The member Patroni lists as the synchronous standby and that streams, or undefined. */
async function syncStandby(nodes: NodeAddress[]): Promise<string | undefined> {
  for (const node of nodes) {
    const answer = await rest(node, '/cluster');
    const members = answer?.body.members as { name: string; role: string; state: string }[] | undefined;
    if (!members) continue;
    return members.find((m) => m.role === 'sync_standby' && (m.state === 'streaming' || m.state === 'running'))?.name;
  }
  return undefined;
}
