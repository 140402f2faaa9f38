import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DCS_TIMING, etcdArgs, haproxyPostgresConfig, patroniConfig, type NodeAddress } from './cluster.js';
import { describePlan, FAILOVER_RUN_OMITS, FAULT_KINDS, planFaults } from './plan.js';

const nodes: NodeAddress[] = [
  { name: 'node0', pgPort: 41000, restPort: 41001 },
  { name: 'node1', pgPort: 41002, restPort: 41003 },
];

interface PatroniFile {
  scope: string;
  name: string;
  restapi: { listen: string; connect_address: string };
  etcd3: { hosts: string[] };
  bootstrap: { dcs: Record<string, unknown> & { postgresql: { use_pg_rewind: boolean; parameters: Record<string, unknown> } } };
  postgresql: { listen: string; connect_address: string; data_dir: string; bin_dir: string; pg_hba: string[]; parameters: Record<string, unknown> };
}

const config = (node: NodeAddress): PatroniFile =>
  parse(patroniConfig({ scope: 'moneta-chaos', node, dir: `/tmp/run/${node.name}`, etcdHosts: ['127.0.0.1:42000'], binDir: '/usr/lib/postgresql/15/bin', maxConnections: 200 })) as PatroniFile;

describe("the failover run's Patroni configuration", () => {
  it('asks for a synchronous replica, strictly, and for pg_rewind when the old leader rejoins', () => {
    const dcs = config(nodes[0]!).bootstrap.dcs;
    expect(dcs.synchronous_mode).toBe(true);
    expect(dcs.synchronous_mode_strict).toBe(true);
    expect(dcs.postgresql.use_pg_rewind).toBe(true);
    expect(dcs.postgresql.parameters.synchronous_commit).toBe('on');
    expect(dcs.postgresql.parameters.max_connections).toBe(200);
  });

  it("keeps the leader key's TTL within what Patroni accepts (loop_wait + 2 × retry_timeout ≤ ttl)", () => {
    expect(DCS_TIMING.loop_wait + 2 * DCS_TIMING.retry_timeout).toBeLessThanOrEqual(DCS_TIMING.ttl);
    expect(config(nodes[1]!).bootstrap.dcs).toMatchObject(DCS_TIMING);
  });

  it("listens on loopback only, each node on its own ports, with its data under the node's directory and PostgreSQL 15's binaries", () => {
    const [a, b] = nodes.map(config) as [PatroniFile, PatroniFile];
    expect(a.name).toBe('node0');
    expect(b.name).toBe('node1');
    expect(a.scope).toBe(b.scope);
    expect(a.restapi.listen).toBe('127.0.0.1:41001');
    expect(b.postgresql.listen).toBe('127.0.0.1:41002');
    expect(b.postgresql.connect_address).toBe('127.0.0.1:41002');
    expect(a.postgresql.data_dir).toBe('/tmp/run/node0/data');
    expect(a.postgresql.bin_dir).toBe('/usr/lib/postgresql/15/bin');
    expect(a.postgresql.parameters.unix_socket_directories).toBe('/tmp/run/node0');
    expect(a.etcd3.hosts).toEqual(['127.0.0.1:42000']);
    for (const line of a.postgresql.pg_hba) expect(line).toMatch(/^local |127\.0\.0\.1\/32/);
  });
});

describe("the failover run's HAProxy and etcd", () => {
  const haproxy = haproxyPostgresConfig({ port: 43000, nodes });

  it("routes PostgreSQL to whichever node Patroni's REST API names primary, and cuts a demoted node's sessions", () => {
    expect(haproxy).toContain('mode tcp');
    expect(haproxy).toContain('bind 127.0.0.1:43000');
    expect(haproxy).toContain('option httpchk GET /primary');
    expect(haproxy).toContain('http-check expect status 200');
    expect(haproxy).toMatch(/default-server .*on-marked-down shutdown-sessions/);
    expect(haproxy).toContain('server node0 127.0.0.1:41000 check port 41001');
    expect(haproxy).toContain('server node1 127.0.0.1:41002 check port 41003');
  });

  it('runs etcd as one member on loopback only', () => {
    const args = etcdArgs({ name: 'etcd0', dataDir: '/tmp/run/etcd', clientPort: 42000, peerPort: 42001 });
    const urls = args.filter((a) => a.includes('http'));
    expect(urls.length).toBe(5);
    for (const url of urls) expect(url).toMatch(/(^|=)http:\/\/127\.0\.0\.1:4200[01]$/);
    expect(args).toContain('--data-dir');
  });
});

describe('the failover run’s fault plan', () => {
  const shape = { seconds: 60, apiProcesses: 3, workers: 2, receivers: 2, failover: true };

  it('has exactly one failover, at a seeded time in the first half of the fault window, and no pg-restart', () => {
    for (const seed of [1, 7, 42, 123456789]) {
      const faults = planFaults(seed, shape);
      const failovers = faults.filter((f) => f.kind === 'failover');
      expect(failovers).toHaveLength(1);
      expect(failovers[0]!.at).toBeGreaterThanOrEqual(2 + 55 * 0.2);
      expect(failovers[0]!.at).toBeLessThanOrEqual(2 + 55 * 0.5);
      expect(faults.some((f) => FAILOVER_RUN_OMITS.includes(f.kind))).toBe(false);
      expect(new Set(faults.map((f) => f.kind))).toEqual(new Set([...FAULT_KINDS.filter((k) => !FAILOVER_RUN_OMITS.includes(k)), 'failover']));
      expect(faults.map((f) => f.at)).toEqual([...faults.map((f) => f.at)].sort((a, b) => a - b));
    }
  });

  it('is the same for the same seed, and the failover moves with the seed', () => {
    expect(planFaults(7, shape)).toEqual(planFaults(7, shape));
    const at = (seed: number) => planFaults(seed, shape).find((f) => f.kind === 'failover')!.at;
    expect(new Set([1, 2, 3, 4, 5].map(at)).size).toBeGreaterThan(1);
  });

  it('shows the failover and what the run leaves out in the printed plan', () => {
    const text = describePlan(7, shape, planFaults(7, shape));
    expect(text).toMatch(/t= +\d+\.\d\d s {2}failover +crash of the PostgreSQL leader's node/);
    expect(text).toContain('left out: pg-restart');
  });

  it('leaves the run without --failover exactly as it was', () => {
    const single = { seconds: 60, apiProcesses: 3, workers: 2, receivers: 2 };
    expect(planFaults(7, { ...single, failover: false })).toEqual(planFaults(7, single));
    // Seed 7's 30 s schedule as it was before the failover run existed (replays stay replays).
    expect(planFaults(7, { ...single, seconds: 30 })).toEqual([
      { at: 3.33, kind: 'receiver-down', target: 0, durationMs: 3213 },
      { at: 7.66, kind: 'kill-worker', target: 0, durationMs: 1624 },
      { at: 11.33, kind: 'pg-restart', target: 0, durationMs: 0 },
      { at: 13.28, kind: 'pg-terminate', target: 0, durationMs: 0 },
      { at: 17.12, kind: 'receiver-slow', target: 1, durationMs: 2185 },
      { at: 22.65, kind: 'kill-api', target: 0, durationMs: 4511 },
      { at: 23.97, kind: 'pg-restart', target: 0, durationMs: 0 },
    ]);
    expect(describePlan(7, single, planFaults(7, single))).not.toContain('failover');
  });
});
