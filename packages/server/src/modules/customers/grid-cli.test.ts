import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../../../test/harness.js';
import type { CustomerId } from '../../core/ids.js';

/**
 * The reference's own CLI (a real client of today's document), unchanged, against this service:
 * what it sends for customers works. Its source is copied next to this project's node_modules
 * (commander) and run with the project's tsx.
 */

const ROOT = resolve(fileURLToPath(import.meta.url), '../../../../../..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const GRID_CLI_SOURCE = '/work/shared/reference/grid-cli';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  dir = mkdtempSync(join(tmpdir(), 'grid-cli-'));
  cpSync(join(GRID_CLI_SOURCE, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(GRID_CLI_SOURCE, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
});
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface CliOutput<T> {
  success: boolean;
  data: T;
  error?: { code?: string; message: string; details?: unknown };
}

function grid<T = Record<string, unknown>>(args: string[]): Promise<CliOutput<T>> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    GRID_API_TOKEN_ID: t.platform.clientId,
    GRID_API_CLIENT_SECRET: t.platform.clientSecret,
    GRID_BASE_URL: `${t.baseUrl}/2025-10-13`,
  };
  return new Promise((resolvePromise, reject) => {
    execFile(TSX, [join(dir, 'src', 'index.ts'), ...args], { env, cwd: dir, timeout: 120_000 }, (error, stdout, stderr) => {
      try {
        resolvePromise(JSON.parse(stdout) as CliOutput<T>);
      } catch {
        reject(new Error(`grid ${args.join(' ')} printed no JSON (exit ${String(error?.code ?? 0)}): ${stdout.slice(0, 2000)} ${stderr.slice(0, 2000)}`));
      }
    });
  });
}

describe("the reference CLI's customer commands", () => {
  it('creates an individual with --id-type and --identifier: stored, answered under both names, the identifier never printed', async () => {
    const created = await grid(['customers', 'create', '--platform-id', 'cli-ind-1', '--full-name', 'Cleo Cli', '--id-type', 'SSN', '--identifier', '123-45-6789', '--address-line1', '1 Main St', '--address-postal', '98101', '--address-country', 'US']);
    expect(created.success, JSON.stringify(created)).toBe(true);
    expect(created.data).toMatchObject({ platformCustomerId: 'cli-ind-1', idType: 'SSN', taxIdType: 'SSN', kycStatus: 'APPROVED' });
    expect(JSON.stringify(created)).not.toContain('123-45-6789');
    const row = await t.database.db.selectFrom('customers').select('profile').where('id', '=', created.data.id as CustomerId).executeTakeFirstOrThrow();
    expect(row.profile).toMatchObject({ idType: 'SSN', identifier: '123-45-6789' });
  }, 300_000);

  it('creates a business with the flags it requires (--business-country among them), updates it, and gets a KYC link', async () => {
    const created = await grid<{ id: string; kybStatus: string; businessInfo: Record<string, unknown> }>([
      'customers', 'create', '--platform-id', 'cli-biz-1', '--type', 'BUSINESS', '--legal-name', 'Cli Widgets LLC', '--business-country', 'US', '--tax-id', '47-1234567',
      '--incorporated-on', '2018-03-14', '--registration-number', '5523041', '--entity-type', 'LLC', '--countries-of-operation', 'US,MX', '--source-of-funds-categories', 'OPERATING_REVENUE',
      '--address-line1', '123 Market St', '--address-postal', '98101', '--address-country', 'US',
    ]);
    expect(created.success, JSON.stringify(created)).toBe(true);
    expect(created.data.kybStatus).toBe('APPROVED');
    expect(created.data.businessInfo).toMatchObject({ legalName: 'Cli Widgets LLC', country: 'US', countriesOfOperation: ['US', 'MX'] });

    const updated = await grid<{ businessInfo: Record<string, unknown> }>(['customers', 'update', created.data.id, '--type', 'BUSINESS', '--doing-business-as', 'Widgets']);
    expect(updated.success, JSON.stringify(updated)).toBe(true);
    expect(updated.data.businessInfo).toMatchObject({ doingBusinessAs: 'Widgets', legalName: 'Cli Widgets LLC', country: 'US' });

    const link = await grid<{ kycUrl: string; provider: string }>(['customers', 'kyc-link', created.data.id, '--redirect-uri', 'https://platform.example/done']);
    expect(link.success, JSON.stringify(link)).toBe(true);
    expect(link.data.kycUrl).toMatch(/\/hosted\/kyc\/[A-Za-z0-9_-]{43}$/);
  }, 300_000);
});
