/**
 * The SDK as another project gets it: `npm pack` of packages/client, unpacked into a fresh folder
 * outside this repository, imported by plain `node` (no tsx, no bundler) and type-checked by
 * `tsc --strict` under both module resolutions a project may use. The fresh project reaches the
 * package's dependencies through links to this repository's node_modules, so nothing is fetched
 * from the network.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './harness.js';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(REPO, 'node_modules/typescript/bin/tsc');

let t: TestApp;
let project: string;
let packed: { dependencies: Record<string, string>; files: string[]; version: string };
let tarballFiles: string[];

function link(name: string): void {
  const target = join(project, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(join(REPO, 'node_modules', name), target, 'dir');
}

async function tsc(config: Record<string, unknown>, file: string): Promise<{ code: number; output: string }> {
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, types: ['node'], ...config }, files: [file] }));
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', project], { cwd: project });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  project = mkdtempSync(join(tmpdir(), 'moneta-sdk-consumer-'));
  const packs = join(project, 'packs');
  mkdirSync(packs);
  // prepack compiles src/ to dist/ first, as it does for a real publish.
  await run('npm', ['pack', '-w', 'packages/client', '--pack-destination', packs, '--loglevel', 'error'], { cwd: REPO });
  const [tarball] = readdirSync(packs);
  const listing = await run('tar', ['-tzf', join(packs, tarball!)]);
  tarballFiles = listing.stdout.trim().split('\n');
  const installed = join(project, 'node_modules/@moneta/client');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(packs, tarball!), '-C', installed, '--strip-components=1']);
  packed = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as typeof packed;
  for (const name of Object.keys(packed.dependencies)) link(name);
  link('@types/node');
  link('undici-types');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { '@moneta/client': packed.version } }));
}, 180_000);

afterAll(async () => {
  await t?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the SDK package (npm pack) used from a fresh project', () => {
  it('ships compiled JavaScript and declarations only: no TypeScript sources, no tests', () => {
    expect(tarballFiles).toContain('package/dist/index.js');
    expect(tarballFiles).toContain('package/dist/index.d.ts');
    expect(tarballFiles).toContain('package/dist/wallet/index.d.ts');
    expect(tarballFiles).toContain('package/bin/moneta.js');
    expect(tarballFiles.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    expect(tarballFiles.filter((f) => /\.test\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('runs under plain node: a customer is created and read back, and a 404 is a typed MonetaApiError', async () => {
    writeFileSync(
      join(project, 'consumer.mjs'),
      `import { createMonetaClient, isMonetaApiError, generateKeyPair } from '@moneta/client';
import { verifyWebhookSignature } from '@moneta/client/webhooks';
import { generateKeyPair as walletKeyPair } from '@moneta/client/wallet';
const [baseUrl, tokenId, clientSecret] = process.argv.slice(2);
const moneta = createMonetaClient({ baseUrl, tokenId, clientSecret });
const { data: created } = await moneta.POST('/customers', { body: { customerType: 'INDIVIDUAL', platformCustomerId: 'sdk-package-1', fullName: 'Package Person', region: 'US' } });
const { data: read } = await moneta.GET('/customers/{customerId}', { params: { path: { customerId: created.id } } });
let missing;
try { await moneta.GET('/customers/{customerId}', { params: { path: { customerId: 'Customer:00000000-0000-4000-8000-000000000000' } } }); } catch (error) { missing = isMonetaApiError(error) ? { status: error.status, code: error.code } : String(error); }
console.log(JSON.stringify({ created: created.id, read: read.id, fullName: read.fullName, missing, keyPair: typeof generateKeyPair, walletKeyPair: typeof walletKeyPair, verifier: typeof verifyWebhookSignature }));
`,
    );
    const { stdout } = await run(process.execPath, ['consumer.mjs', t.baseUrl!, t.platform.clientId, t.platform.clientSecret], { cwd: project });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    expect(out.created).toMatch(/^Customer:/);
    expect(out).toMatchObject({ read: out.created, fullName: 'Package Person', missing: { status: 404, code: 'USER_NOT_FOUND' }, keyPair: 'function', walletKeyPair: 'function', verifier: 'function' });
  });

  it('type-checks a consumer under tsc --strict with NodeNext and with bundler resolution, and refuses a wrong enum value', async () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { createMonetaClient } from '@moneta/client';
import { parseWebhookEvent } from '@moneta/client/webhooks';
const moneta = createMonetaClient({ baseUrl: 'http://127.0.0.1:1', tokenId: 'id', clientSecret: 'secret' });
export async function names(): Promise<string[]> {
  const { data } = await moneta.GET('/customers', { params: { query: { limit: 5 } } });
  return (data?.data ?? []).map((c) => c.id + c.fullName);
}
export const parse = parseWebhookEvent;
`,
    );
    for (const config of [{ module: 'NodeNext', moduleResolution: 'NodeNext' }, { module: 'ESNext', moduleResolution: 'Bundler' }]) {
      const result = await tsc({ target: 'ES2022', ...config }, 'consumer.ts');
      expect(result, JSON.stringify(config)).toEqual({ code: 0, output: '' });
    }
    writeFileSync(
      join(project, 'wrong.ts'),
      `import { createMonetaClient } from '@moneta/client';
const moneta = createMonetaClient({ baseUrl: 'http://127.0.0.1:1', tokenId: 'id', clientSecret: 'secret' });
await moneta.POST('/customers', { body: { customerType: 'ROBOT', platformCustomerId: 'x' } });
`,
    );
    const wrong = await tsc({ target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext' }, 'wrong.ts');
    expect(wrong.code).not.toBe(0);
    expect(wrong.output).toMatch(/wrong\.ts\(3,\d+\): error TS2322: Type '"ROBOT"' is not assignable/);
    // Four tsc runs over a packed SDK: over two minutes on a loaded 2-core machine.
  }, 360_000);

  it('installs the moneta command, which runs from the compiled files', async () => {
    const { stdout } = await run(process.execPath, [join(project, 'node_modules/@moneta/client/bin/moneta.js'), '--version'], { cwd: project });
    expect(stdout.trim()).toBe(packed.version);
  });
});
