/**
 * `moneta trigger <EVENT_TYPE>` end to end: the real server runs as a process (PGlite, or PostgreSQL
 * with DATABASE_URL) with its webhook endpoint on a loopback receiver; for every event type the
 * server sends, `node packages/client/bin/moneta.js trigger <TYPE> --json` runs as a child process,
 * creates what the event needs through the API, and the event it names must be delivered to the
 * receiver, signed, with that type. Every run and every wait is bounded.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_RECIPES, EVENT_TYPES } from '../packages/client/src/cli/trigger-events.js';
import { exited } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { monetaCliEntry } from './cli-build.js';
import { startReceiver, type Received } from './webhook-receiver.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CREDENTIALS = { clientId: 'trigger-test', secret: 'trigger-test-secret-0123456789' };

const bed = new ProcessTestBed(CREDENTIALS);
let base = '';
let home = '';
let receiver: Awaited<ReturnType<typeof startReceiver>>;
afterAll(async () => {
  await bed.teardown();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with credentials from the environment; killed after `timeoutMs`. */
async function moneta(args: string[], timeoutMs = 100_000): Promise<Run> {
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), MONETA_BASE_URL: base, MONETA_TOKEN_ID: CREDENTIALS.clientId, MONETA_CLIENT_SECRET: CREDENTIALS.secret };
  const child = spawn(process.execPath, [monetaCliEntry(), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  bed.children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

async function until<T>(check: () => T | undefined, what: string, seconds = 60): Promise<T> {
  for (let i = 0; i < seconds * 10; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function delivered(eventId: string): Received | undefined {
  return receiver.received.find((r) => r.headers['webhook-id'] === eventId);
}

const call = <T>(method: string, path: string, body?: unknown) => bed.call<T>(base, method, path, body);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'moneta-trigger-home-'));
  const { env } = await bed.serverEnvironment('moneta_trigger');
  base = (await bed.startServer(env)).base;
  receiver = await startReceiver();
  bed.cleanups.push(receiver.close);
  const configured = await call('PATCH', '/config', { webhookEndpoint: receiver.url });
  expect(configured.status).toBe(200);
});

const TRIGGERABLE = EVENT_TYPES.filter((type) => !('unavailable' in EVENT_RECIPES[type]));
const UNAVAILABLE = EVENT_TYPES.filter((type) => 'unavailable' in EVENT_RECIPES[type]);

describe('moneta trigger <EVENT_TYPE> against a real server', () => {
  it.each(TRIGGERABLE)('%s: creates what it needs and the event is delivered to the webhook endpoint', async (type) => {
    // Event types in any case: every other one in lower case.
    const name = TRIGGERABLE.indexOf(type) % 2 === 0 ? type : type.toLowerCase();
    const run = await moneta(['trigger', name, '--json', '--wait', '60']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { type: string; event: { id: string; type: string }; created: { label: string; id: string }[] };
    expect(result.type).toBe(type);
    expect(result.event.type).toBe(type);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // What it says it created exists (ids are typed: Customer:…, Card:…).
    for (const created of result.created) expect(created.id).toMatch(/^[A-Za-z]+:[0-9a-f-]{36}$/);

    const delivery = await until(() => delivered(result.event.id), `${type} ${result.event.id} to be delivered`);
    const body = JSON.parse(delivery.body) as { id: string; type: string };
    expect(body).toMatchObject({ id: result.event.id, type });
    expect(delivery.headers['x-service-signature']).toBeTruthy();
  }, 180_000);

  it('an event type nothing can cause yet exits 1 saying why, and creates nothing', async () => {
    for (const type of UNAVAILABLE) {
      const before = (await call<{ totalCount?: number; data: unknown[] }>('GET', '/customers?limit=1')).body;
      const run = await moneta(['trigger', type]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${type} cannot be triggered in the sandbox: `);
      expect((await call<{ totalCount?: number; data: unknown[] }>('GET', '/customers?limit=1')).body.totalCount).toBe(before.totalCount);
    }
  });

  it('reuses --customer and --account instead of creating them, with --amount', async () => {
    const customer = (await call<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Reused Person', currencies: ['USD'] })).body;
    const accounts = (await call<{ data: { id: string }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}&currency=USD`)).body;
    const accountId = accounts.data[0]!.id;
    expect((await call('POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 50_000 })).status).toBe(200);

    const run = await moneta(['trigger', 'CARD_TRANSACTION.AUTHORIZED', '--account', accountId, '--amount', '1234', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { created: { label: string; id: string }[] };
    expect(result.created.map((c) => c.id.split(':')[0])).toEqual(['Card', 'CardTransaction']);
    const card = (await call<{ cardholderId: string }>('GET', `/cards/${result.created[0]!.id}`)).body;
    expect(card.cardholderId).toBe(customer.id);
    const transaction = (await call<{ authorizedAmount: { amount: number } }>('GET', `/transactions/${result.created[1]!.id}`)).body;
    expect(transaction.authorizedAmount.amount).toBe(1234);

    const kyc = await moneta(['trigger', 'customer.kyc_hold', '--customer', customer.id, '--json']);
    expect(kyc.code, kyc.stderr).toBe(0);
    expect((JSON.parse(kyc.stdout) as { created: unknown[] }).created).toEqual([]);
    expect((await call<{ kycStatus: string }>('GET', `/customers/${customer.id}`)).body.kycStatus).toBe('HOLD');
  }, 180_000);

  it('simulations keep their names and options; unknown names and misplaced options are usage errors (exit 2)', async () => {
    const customer = (await call<{ id: string }>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Simulated Person', currencies: ['USD'] })).body;
    const accountId = (await call<{ data: { id: string }[] }>('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}&currency=USD`)).body.data[0]!.id;
    const funded = await moneta(['trigger', 'funding', accountId, '--amount', '4321', '--json']);
    expect(funded.code, funded.stderr).toBe(0);
    expect((JSON.parse(funded.stdout) as { balance: { amount: number } }).balance.amount).toBe(4321);

    const unknown = await moneta(['trigger', 'payment_intent.succeeded']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('unknown event or simulation payment_intent.succeeded; see `moneta trigger --list`');
    const option = await moneta(['trigger', 'CUSTOMER.KYC_APPROVED', '--amount', '5']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--amount'");

    const list = await moneta(['trigger', '--list']);
    expect(list.code).toBe(0);
    for (const type of EVENT_TYPES) expect(list.stdout).toContain(type);
    expect(list.stdout).toContain('card.balance_inquiry');
  });
});
