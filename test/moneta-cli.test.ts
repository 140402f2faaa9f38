/**
 * The `moneta` developer CLI end to end: the real server runs as a process (on PGlite, or on
 * PostgreSQL with DATABASE_URL), and `node packages/client/bin/moneta.js …` runs as child processes
 * with HOME and XDG_CONFIG_HOME in a temporary directory. Every check of an effect asks the API
 * itself. Only loopback traffic; every wait is bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhookEvent } from '../packages/client/src/webhooks.js';
import { exited, freePort } from '../tools/processes.js';
import { ProcessTestBed } from './processes.js';
import { monetaCliEntry, SOURCE_BIN } from './cli-build.js';
import { startReceiver } from './webhook-receiver.js';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CREDENTIALS = { clientId: 'moneta-cli-test', secret: 'moneta-cli-test-secret-0123456789' };

const bed = new ProcessTestBed(CREDENTIALS);
let base = '';
let home = '';
afterAll(async () => {
  await bed.teardown();
  if (home) rmSync(home, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cliEnv(extra: Record<string, string> = {}, dir = home): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: join(dir, '.config'), ...extra };
}

/** Starts the CLI; `done` resolves when it exits (killed after `timeoutMs`). */
function start(args: string[], options: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {}): { child: ChildProcess; output: () => Run; done: Promise<Run> } {
  const child = spawn(process.execPath, [monetaCliEntry(), ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  bed.children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const done = exited(child).then((code) => {
    clearTimeout(timer);
    return { code, stdout, stderr };
  });
  return { child, output: () => ({ code: child.exitCode, stdout, stderr }), done };
}

function moneta(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<Run> {
  return start(args, options).done;
}

async function json<T>(args: string[]): Promise<T> {
  const run = await moneta([...args, '--json']);
  if (run.code !== 0) throw new Error(`moneta ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

interface Customer {
  id: string;
  createdAt: string;
  kycStatus?: string;
  platformCustomerId: string;
}
interface Account {
  id: string;
  balance: { amount: number; currency: { code: string; decimals: number } };
}
interface List<T> {
  data: T[];
  totalCount: number;
}

const call = <T>(method: string, path: string, body?: unknown) => bed.call<T>(base, method, path, body);

async function usdAccount(customerId: string): Promise<Account> {
  const { body } = await call<List<Account>>('GET', `/internal-account?customerId=${encodeURIComponent(customerId)}&currency=USD`);
  return body.data[0]!;
}

async function newCustomer(fullName: string): Promise<Customer> {
  return json<Customer>(['customers', 'create', '--full-name', fullName, '--currencies', 'USD', '--email', `${fullName.replace(/\W/g, '').toLowerCase()}@example.com`]);
}

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'moneta-cli-home-'));
  const { env } = await bed.serverEnvironment('moneta_cli');
  base = (await bed.startServer(env)).base;
});

describe('moneta CLI against a real server', () => {
  it('runs from the repository as `packages/client/bin/moneta.js`, through its TypeScript sources (the other tests run it compiled)', async () => {
    const run = await new Promise<Run>((resolveRun) => {
      const child = spawn(process.execPath, [SOURCE_BIN, '--version'], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      void exited(child).then((code) => resolveRun({ code, stdout, stderr: '' }));
    });
    expect(run).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('login refuses a bad secret with the API error and stores nothing; a good one is stored 0600 and never printed', async () => {
    const bad = await moneta(['login', '--base-url', base, '--token-id', CREDENTIALS.clientId, '--secret', 'not-the-secret']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^UNAUTHORIZED: /);
    expect(existsSync(join(home, '.config/moneta/config.json'))).toBe(false);

    const good = await moneta(['login', '--base-url', base, '--token-id', CREDENTIALS.clientId, '--secret', CREDENTIALS.secret]);
    expect(good.code).toBe(0);
    const file = join(home, '.config/moneta/config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config/moneta')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ profiles: { default: { baseUrl: base, tokenId: CREDENTIALS.clientId, clientSecret: CREDENTIALS.secret } } });
    expect(good.stdout + good.stderr).not.toContain(CREDENTIALS.secret);

    const who = await json<{ baseUrl: string; tokenId: string; mode: string }>(['whoami']);
    expect(who).toMatchObject({ baseUrl: base, tokenId: CREDENTIALS.clientId, mode: 'sandbox' });
    const whoTable = await moneta(['whoami', '--table']);
    expect(whoTable.stdout).toContain('sandbox');
    expect(whoTable.stdout).not.toContain(CREDENTIALS.secret);
  });

  it('creates and lists customers: --json is exactly what the API answers', async () => {
    const created = await newCustomer('Cli Person');
    const { body: fromApi } = await call<Customer>('GET', `/customers/${created.id}`);
    expect(created).toEqual(fromApi);

    const listed = await json<List<Customer>>(['customers', 'list', '--limit', '100']);
    const { body: apiList } = await call<List<Customer>>('GET', '/customers?limit=100');
    expect(listed).toEqual(apiList);
    expect(listed.data.map((c) => c.id)).toContain(created.id);
  });

  it('trigger funding moves the balance by exactly that amount; the table shows it with the currency decimals', async () => {
    const customer = await newCustomer('Fund Me');
    const before = await usdAccount(customer.id);
    const funded = await moneta(['trigger', 'funding', before.id, '--amount', '123456']);
    expect(funded.code).toBe(0);
    const after = await usdAccount(customer.id);
    expect(after.balance.amount - before.balance.amount).toBe(123456);

    const table = await moneta(['accounts', 'list', '--customer-id', customer.id, '--table']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(after.id);
    expect(table.stdout).toContain('1,234.56 USD');
  });

  it('trigger kyc, clock advance and a card authorization change what the API reports', async () => {
    const undecided = await newCustomer('Kyc Person 003');
    expect(undecided.kycStatus).toBe('UNVERIFIED');
    expect((await moneta(['trigger', 'kyc', undecided.id, '--status', 'HOLD'])).code).toBe(0);
    expect((await call<Customer>('GET', `/customers/${undecided.id}`)).body.kycStatus).toBe('HOLD');

    const clockBefore = (await call<{ offsetSeconds: number }>('GET', '/sandbox/clock')).body.offsetSeconds;
    expect((await moneta(['trigger', 'clock.advance', '--seconds', '3600'])).code).toBe(0);
    expect((await call<{ offsetSeconds: number }>('GET', '/sandbox/clock')).body.offsetSeconds).toBe(clockBefore + 3600);

    const holder = await newCustomer('Card Holder');
    const account = await usdAccount(holder.id);
    expect((await moneta(['trigger', 'fund', account.id, '--amount', '10000'])).code).toBe(0);
    const card = await json<{ id: string }>(['cards', 'create', '--cardholder-id', holder.id, '--funding-sources', account.id]);
    await until(async () => (await call<{ state: string }>('GET', `/cards/${card.id}`)).body.state === 'ACTIVE', 'the card to activate');
    const auth = await json<{ id: string; status: string }>(['trigger', 'card.authorization', card.id, '--amount', '1250', '--merchant', 'BLUE BOTTLE', '--mcc', '5814']);
    const { body: txn } = await call<{ id: string; status: string; authorizedAmount: { amount: number } }>('GET', `/transactions/${auth.id}`);
    expect(txn).toMatchObject({ id: auth.id, status: 'AUTHORIZED', authorizedAmount: { amount: 1250 } });
    expect((await usdAccount(holder.id)).balance.amount).toBe(10000 - 1250);
  });

  it('errors: the API code and every field error with exit 1, usage errors exit 2, no stack traces', async () => {
    const missing = await moneta(['customers', 'get', 'Customer:00000000-0000-7000-8000-000000000000']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^USER_NOT_FOUND: /);

    const invalid = await moneta(['customers', 'create', '--email', 'not-an-email', '--birth-date', 'yesterday']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^INVALID_INPUT: /);
    expect(invalid.stderr).toMatch(/^ {2}email: /m);
    expect(invalid.stderr).toMatch(/^ {2}birthDate: /m);

    const usage = await moneta(['trigger', 'funding', 'InternalAccount:00000000-0000-7000-8000-000000000000']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('missing --amount');
    expect((await moneta(['customers', 'list', '--no-such-option'])).code).toBe(2);

    for (const run of [missing, invalid, usage]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('credentials from MONETA_* environment variables work without a login', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'moneta-cli-env-'));
    try {
      const run = await moneta(['customers', 'list', '--limit', '1', '--json'], {
        env: cliEnv({ MONETA_BASE_URL: base, MONETA_TOKEN_ID: CREDENTIALS.clientId, MONETA_CLIENT_SECRET: CREDENTIALS.secret }, bare),
      });
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as List<Customer>).data).toHaveLength(1);
      const none = await moneta(['customers', 'list'], { env: cliEnv({}, bare) });
      expect(none.code).toBe(1);
      expect(none.stderr).toContain('not logged in');
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('listen --forward-to forwards the events created after it started, verifiable with the printed public key', async () => {
    const customer = await newCustomer('Listen Person');
    const account = await usdAccount(customer.id);
    const undecided = await newCustomer('Listen Person 003');
    const { body: existing } = await call<List<{ id: string }>>('GET', '/webhooks/events?limit=100');

    const receiver = await startReceiver();
    bed.cleanups.push(receiver.close);
    const listener = start(['listen', '--forward-to', receiver.url, '--max-events', '3', '--timeout', '90']);
    await until(() => listener.output().stderr.includes('Ready.') || listener.output().code !== null, 'the listener to start');
    const pem = /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----\n/.exec(listener.output().stderr)?.[0];
    expect(pem).toBeDefined();

    await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 777 }); // INCOMING_PAYMENT.COMPLETED, INTERNAL_ACCOUNT.BALANCE_UPDATED
    await call('POST', `/sandbox/customers/${undecided.id}/kyc-decision`, { status: 'HOLD' }); // CUSTOMER.KYC_HOLD
    const run = await listener.done;
    expect(run.code).toBe(0);

    const { body: latest } = await call<List<{ id: string; type: string }>>('GET', '/webhooks/events?limit=3&sortOrder=desc');
    const expected = latest.data.map((e) => e.id).reverse();
    expect(receiver.received).toHaveLength(3);
    const events = receiver.received.map((r) => parseWebhookEvent({ rawBody: r.body, headers: r.headers, publicKeyPem: pem! }));
    expect(events.map((e) => e.id)).toEqual(expected);
    expect(events.map((e) => e.type)).toEqual(['INCOMING_PAYMENT.COMPLETED', 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'CUSTOMER.KYC_HOLD']);
    expect(events[0]!.data).toMatchObject({ id: expect.any(String) as string });
    for (const old of existing.data) expect(events.map((e) => e.id)).not.toContain(old.id);
    for (const r of receiver.received) expect(r.headers['webhook-id']).toBe((JSON.parse(r.body) as { id: string }).id);

    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => expect(line).toMatch(new RegExp(`${events[i]!.type.replace('.', '\\.')}\\s+${events[i]!.id}\\s+-> 200$`)));

    const printed = await moneta(['listen', '--print-public-key']);
    expect(printed.stdout).toBe(pem);
  });

  it('customers import creates one customer per line; a re-run creates none', async () => {
    const tag = `imp-${Date.now()}`;
    const file = join(home, 'customers.jsonl');
    writeFileSync(
      file,
      [1, 2, 3].map((n) => JSON.stringify({ customerType: 'INDIVIDUAL', platformCustomerId: `${tag}-${n}`, fullName: `Imported ${n}`, email: `imported${n}@example.com` })).join('\n') + '\n',
    );
    const countOf = async () => (await call<List<Customer>>('GET', '/customers?limit=1')).body.totalCount;
    const before = await countOf();

    const first = await json<{ created: number; existing: number; failed: number }>(['customers', 'import', file]);
    expect(first).toMatchObject({ created: 3, existing: 0, failed: 0 });
    expect(await countOf()).toBe(before + 3);
    for (const n of [1, 2, 3]) {
      const { body } = await call<List<Customer>>('GET', `/customers?platformCustomerId=${tag}-${n}`);
      expect(body.data).toHaveLength(1);
    }

    const again = await moneta(['customers', 'import', file, '--table']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 created, 3 already imported, 0 failed');
    expect(await countOf()).toBe(before + 3);
  });

  it('completion scripts are generated from the command tree and complete in bash', async () => {
    const bash = await moneta(['completion', 'bash']);
    expect(bash.code).toBe(0);
    for (const word of ['customers', 'trigger', 'listen', 'card.authorization', '--forward-to', 'kyc-link', 'exchange-rates']) expect(bash.stdout).toContain(word);
    const zsh = await moneta(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^#compdef moneta/);
    expect(zsh.stdout).toContain('card.clearing');
    expect((await moneta(['completion', 'fish'])).code).toBe(2);

    const script = join(home, 'moneta-completion.bash');
    writeFileSync(script, bash.stdout);
    const complete = (words: string[]) =>
      new Promise<string>((done, fail) => {
        const child = spawn('bash', ['-c', `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _moneta; echo "\${COMPREPLY[*]}"`], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
        child.on('error', fail);
        child.on('exit', () => done(out.trim()));
      });
    expect(await complete(['moneta', 'trig'])).toBe('trigger');
    expect((await complete(['moneta', 'trigger', 'card.cl'])).split(' ')).toEqual(['card.clearing']);
    expect(await complete(['moneta', 'listen', '--forw'])).toBe('--forward-to');
  });

  it('logout forgets the credentials', async () => {
    const out = await moneta(['logout']);
    expect(out.code).toBe(0);
    expect(existsSync(join(home, '.config/moneta/config.json'))).toBe(false);
    const after = await moneta(['whoami']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('not logged in');
  });
});

describe('moneta listen --events', () => {
  // The first describe ends logged out: these pass credentials in the environment.
  const env = () => cliEnv({ MONETA_BASE_URL: base, MONETA_TOKEN_ID: CREDENTIALS.clientId, MONETA_CLIENT_SECRET: CREDENTIALS.secret });
  const customer = async (fullName: string) => (await call<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName, currencies: ['USD'] })).body;

  it('forwards only the types asked for (case-insensitive), and --created-after replays what came before it started', async () => {
    const held = await customer('Filter Person 003');
    const since = held.createdAt;
    const person = await customer('Filter Person');
    const account = await usdAccount(person.id);
    await call('POST', `/sandbox/customers/${held.id}/kyc-decision`, { status: 'HOLD' }); // before the listener: replayed

    const receiver = await startReceiver();
    bed.cleanups.push(receiver.close);
    const listener = start(['listen', '--forward-to', receiver.url, '--events', 'customer.kyc_hold,INCOMING_PAYMENT.COMPLETED', '--created-after', since, '--max-events', '3', '--timeout', '90'], { env: env() });
    await until(() => listener.output().stderr.includes('Ready.') || listener.output().code !== null, 'the listener to start');
    expect(listener.output().stderr).toContain('only CUSTOMER.KYC_HOLD, INCOMING_PAYMENT.COMPLETED');
    await call('POST', `/sandbox/internal-accounts/${account.id}/fund`, { amount: 321 }); // INCOMING_PAYMENT.COMPLETED (and BALANCE_UPDATED, filtered out)
    const later = await customer('Filter Person 003 later');
    await call('POST', `/sandbox/customers/${later.id}/kyc-decision`, { status: 'HOLD' });
    const run = await listener.done;
    expect(run.code).toBe(0);
    const types = receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type);
    expect(types).toEqual(['CUSTOMER.KYC_HOLD', 'INCOMING_PAYMENT.COMPLETED', 'CUSTOMER.KYC_HOLD']);
    const data = receiver.received.map((r) => (JSON.parse(r.body) as { data: { id?: string } }).data);
    expect(data[0]!.id).toBe(held.id);
    expect(data[2]!.id).toBe(later.id);
  });

  it('refuses an --events value that is not an event type, and one the server does not send', async () => {
    const bad = await moneta(['listen', '--events', 'payments/completed', '--timeout', '5'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not an event type');
    const unknown = await moneta(['listen', '--events', 'NO_SUCH.EVENT', '--timeout', '20'], { env: env() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('INVALID_INPUT');
  });
});

describe('moneta logs tail and open', () => {
  const env = () => cliEnv({ MONETA_BASE_URL: base, MONETA_TOKEN_ID: CREDENTIALS.clientId, MONETA_CLIENT_SECRET: CREDENTIALS.secret });

  it('logs tail shows each refused request as it completes, with status, method and path, code and request id; 2XX filtered out', async () => {
    const tailer = start(['logs', 'tail', '--status', '4xx', '--max-lines', '2', '--timeout', '90', '--table'], { env: env() });
    await until(() => tailer.output().stderr.includes('Ready.') || tailer.output().code !== null, 'logs tail to start');
    expect(tailer.output().stderr).toContain('only 4XX');
    const ok = await fetch(`${base}/2025-10-13/customers`, { headers: { authorization: bed.authorization } });
    expect(ok.status).toBe(200);
    const missing = await fetch(`${base}/2025-10-13/cards/Card:00000000-0000-7000-8000-000000000000`, { headers: { authorization: bed.authorization } });
    const bad = await fetch(`${base}/2025-10-13/customers`, { method: 'POST', headers: { authorization: bed.authorization, 'content-type': 'application/json' }, body: '{"customerType":"NOBODY"}' });
    const run = await tailer.done;
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('GET /cards/Card:00000000-0000-7000-8000-000000000000');
    expect(lines[0]).toContain(`  404  `);
    expect(lines[0]).toContain(missing.headers.get('x-request-id')!);
    expect(lines[1]).toMatch(/ 400 {2}POST \/customers {2}INVALID_INPUT {2}Request:/);
    expect(lines[1]).toContain(bad.headers.get('x-request-id')!);
  });

  it('open prints the dashboard page of an id or a named page; an id the dashboard does not show is a usage error', async () => {
    const id = 'Customer:019542f5-b3e7-1d02-0000-000000000001';
    const page = await moneta(['open', id, '--print'], { env: env() });
    expect(page.code).toBe(0);
    expect(page.stdout.trim()).toBe(`${base}/dashboard#/customers/${encodeURIComponent(id)}`);
    expect((await moneta(['open', 'reference', '--print'], { env: env() })).stdout.trim()).toBe(`${base}/2025-10-13/reference`);
    const event = await moneta(['open', 'Webhook:019542f5-b3e7-1d02-0000-000000000007'], { env: env() }); // not a terminal: printed
    expect(event.stdout.trim()).toBe(`${base}/dashboard#/events/${encodeURIComponent('Webhook:019542f5-b3e7-1d02-0000-000000000007')}`);
    const unknown = await moneta(['open', 'Quote:019542f5-b3e7-1d02-0000-000000000001'], { env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no page for Quote ids');
  });
});

describe('moneta login with nothing given', () => {
  it("uses the local sandbox's credentials and address, as npm start printed them, from its .data folder", { timeout: 180_000 }, async () => {
    const sandboxBed = new ProcessTestBed(CREDENTIALS);
    const project = mkdtempSync(join(tmpdir(), 'moneta-cli-project-'));
    const cliHome = mkdtempSync(join(tmpdir(), 'moneta-cli-login-'));
    try {
      const { env } = await sandboxBed.serverEnvironment('moneta_cli_login');
      const port = await freePort();
      // Started as `npm start` is, without API_TOKEN_ID: it generates a token and keeps it in .data.
      const server = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', ...env, DATA_DIR: join(project, '.data'), MONETA_MODE: 'sandbox', PORT: String(port), LOG_LEVEL: 'error' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      sandboxBed.children.push(server);
      let printed = '';
      server.stdout.on('data', (d: Buffer) => (printed += d.toString()));
      server.stderr.on('data', (d: Buffer) => (printed += d.toString()));
      await until(() => printed.includes('API client secret') || server.exitCode !== null, 'the sandbox banner');
      const secret = /API client secret\s+(\S+)/.exec(printed)?.[1];
      expect(secret).toBeDefined();
      expect(printed).toContain('npx moneta login');
      const saved = JSON.parse(readFileSync(join(project, '.data', 'credentials.json'), 'utf8')) as { clientSecret: string; baseUrl: string };
      expect(saved.clientSecret).toBe(secret);
      expect(saved.baseUrl).toBe(`http://localhost:${port}`);

      // From a folder below the project, with no MONETA_* variables and nothing stored.
      const env2 = { PATH: process.env.PATH ?? '', HOME: cliHome, XDG_CONFIG_HOME: join(cliHome, '.config') };
      const inside = join(project, '.data');
      const run = await moneta(['login'], { env: env2, cwd: inside });
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`Using the local sandbox's credentials from ${join(project, '.data', 'credentials.json')}`);
      expect(JSON.parse(run.stdout)).toMatchObject({ baseUrl: `http://localhost:${port}` });
      expect(run.stdout + run.stderr).not.toContain(secret!);
      const who = await moneta(['whoami', '--json'], { env: env2, cwd: cliHome });
      expect(who.code).toBe(0);
      expect(JSON.parse(who.stdout)).toMatchObject({ baseUrl: `http://localhost:${port}`, mode: 'sandbox' });

      // Elsewhere, with nothing to find, it asks for the values as before (no terminal here: a usage error).
      const nowhere = await moneta(['login'], { env: env2, cwd: cliHome });
      expect(nowhere.code).toBe(2);
      expect(nowhere.stderr).toContain('missing --base-url');
    } finally {
      await sandboxBed.teardown();
      rmSync(project, { recursive: true, force: true });
      rmSync(cliHome, { recursive: true, force: true });
    }
  });
});

describe('moneta listen across a server restart', () => {
  // Two server starts and a CLI process: on a loaded 2-core machine that can pass a minute.
  it('reconnects with backoff when the server goes away and resumes without losing or repeating events', { timeout: 180_000 }, async () => {
    const restartBed = new ProcessTestBed(CREDENTIALS);
    const dir = mkdtempSync(join(tmpdir(), 'moneta-cli-restart-'));
    try {
      const { env } = await restartBed.serverEnvironment('moneta_cli_restart');
      const port = await freePort();
      const serve = async () => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/main.ts'], {
          cwd: ROOT,
          env: { ...process.env, ...env, MONETA_MODE: 'sandbox', PORT: String(port), LOG_LEVEL: 'error', API_TOKEN_ID: CREDENTIALS.clientId, API_CLIENT_SECRET: CREDENTIALS.secret },
          stdio: 'ignore',
        });
        restartBed.children.push(child);
        await until(async () => child.exitCode === null && (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok).catch(() => false)), 'the server to be healthy');
        return child;
      };
      let server = await serve();
      const url = `http://127.0.0.1:${port}`;
      const api = <T>(method: string, path: string, body?: unknown) => restartBed.call<T>(url, method, path, body);
      const { body: customer } = await api<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Restart Person', currencies: ['USD'] });
      const { body: accounts } = await api<List<Account>>('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}`);
      const { body: undecided } = await api<Customer>('POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Restart Person 003' });

      const receiver = await startReceiver();
      restartBed.cleanups.push(receiver.close);
      const env2 = cliEnv({ MONETA_BASE_URL: url, MONETA_TOKEN_ID: CREDENTIALS.clientId, MONETA_CLIENT_SECRET: CREDENTIALS.secret }, dir);
      const listener = start(['listen', '--forward-to', receiver.url, '--max-events', '3', '--timeout', '120'], { env: env2, timeoutMs: 150_000 });
      await until(() => listener.output().stderr.includes('Ready.') || listener.output().code !== null, 'the listener to start');

      await api('POST', `/sandbox/internal-accounts/${accounts.data[0]!.id}/fund`, { amount: 500 }); // two events
      await until(() => receiver.received.length === 2, 'the first events');

      server.kill('SIGTERM');
      await exited(server);
      await until(() => listener.output().stderr.includes('reconnecting'), 'the listener to notice');
      server = await serve();
      await api('POST', `/sandbox/customers/${undecided.id}/kyc-decision`, { status: 'HOLD' }); // the third
      const run = await listener.done;
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('reconnected');

      const ids = receiver.received.map((r) => (JSON.parse(r.body) as { id: string }).id);
      expect(new Set(ids).size).toBe(3);
      const { body: latest } = await api<List<{ id: string }>>('GET', '/webhooks/events?limit=3&sortOrder=desc');
      expect(ids).toEqual(latest.data.map((e) => e.id).reverse());
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
    } finally {
      await restartBed.teardown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
