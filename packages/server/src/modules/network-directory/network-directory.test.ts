import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { clabeEndingWith, mexicanBeneficiary, usBankAccount } from '../external-accounts/fixtures.js';
import { DEFAULT_DISCOVERIES, type UmaProviderEntry } from './default-catalogue.js';
import { createNetworkDirectoryService } from './service.js';
import { readDirectorySettings } from './settings.js';

interface Discovery {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}
interface Provider {
  name: string;
  domain: string;
  supportedRegions: string[];
  supportedCurrencies: { code: string; decimals: number }[];
  allowListStatus: boolean;
  lei?: string;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

const dir = mkdtempSync(join(tmpdir(), 'moneta-directory-'));
function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const PROVIDERS: UmaProviderEntry[] = [
  { name: 'Delta Wallet', domain: 'delta.example', supportedRegions: ['MX'], supportedCurrencies: ['MXN', 'USD'] },
  { name: 'Alpha Pay', domain: 'alpha.example', supportedRegions: ['US', 'MX'], supportedCurrencies: ['USD'], lei: '5493001KJTIIGC8Y1R12', logoUrl: 'https://alpha.example/logo.png' },
  { name: 'Echo Money', domain: 'echo.example', supportedRegions: ['NG'], supportedCurrencies: ['NGN'], allowListed: false },
  { name: 'Charlie Cash', domain: 'charlie.example', supportedRegions: ['US'], supportedCurrencies: ['USD', 'BTC'], allowListed: false },
  { name: 'Bravo Bank', domain: 'bravo.example', supportedRegions: ['GB'], supportedCurrencies: ['GBP', 'EUR'] },
];

let t: TestApp;
let p: TestPlatform;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /discoveries', () => {
  it('lists every receiving institution of the default catalogue without filters, and one corridor with them', async () => {
    const all = await t.api<{ data: Discovery[] }>(p, 'GET', '/discoveries');
    expect(all.status).toBe(200);
    expect(all.body.data).toEqual(DEFAULT_DISCOVERIES);
    expect(new Set(all.body.data.map((d) => d.currency))).toEqual(new Set(['USD', 'MXN', 'EUR', 'GBP', 'CAD', 'INR', 'NGN', 'BRL']));

    const mx = await t.api<{ data: Discovery[] }>(p, 'GET', '/discoveries?country=MX&currency=MXN');
    expect(mx.body.data.length).toBeGreaterThan(0);
    expect(mx.body.data.every((d) => d.country === 'MX' && d.currency === 'MXN')).toBe(true);
    const eur = await t.api<{ data: Discovery[] }>(p, 'GET', '/discoveries?currency=EUR');
    expect(new Set(eur.body.data.map((d) => d.country)).size).toBeGreaterThan(3);
    // A corridor nobody serves is an empty list, not an error.
    expect((await t.api<{ data: Discovery[] }>(p, 'GET', '/discoveries?country=JP&currency=JPY')).body.data).toEqual([]);
  });

  it('refuses a country or currency that is not a code, naming both', async () => {
    const res = await t.api(p, 'GET', '/discoveries?country=Mexico&currency=pesos');
    expect(errorOf(res)).toBe('INVALID_INPUT');
    const fields = (res.body as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field).sort();
    expect(fields).toEqual(['country', 'currency']);
  });

  it("each corridor's bankName is taken by POST /customers/external-accounts, and the account keeps it", async () => {
    const customer = await t.api<{ id: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ana Lima' });
    const person = (country: string) => ({ beneficiaryType: 'INDIVIDUAL', fullName: 'Ana Lima', address: { line1: '1 Main St', postalCode: '10001', country } });
    const accounts: Record<string, Record<string, unknown>> = {
      USD: usBankAccount(),
      MXN: { accountType: 'CLABE', clabeNumber: clabeEndingWith('311'), beneficiary: mexicanBeneficiary },
      EUR: { accountType: 'EUR_ACCOUNT', iban: 'DE89370400440532013000', beneficiary: person('DE') },
      GBP: { accountType: 'GBP_ACCOUNT', sortCode: '040004', accountNumber: '12345678', beneficiary: person('GB') },
      CAD: { accountType: 'CAD_ACCOUNT', bankCode: '003', branchCode: '00011', accountNumber: '1234567', beneficiary: person('CA') },
      INR: { accountType: 'INR_ACCOUNT', accountNumber: '000111222333', ifsc: 'HDFC0001234', beneficiary: person('IN') },
      NGN: { accountType: 'NGN_ACCOUNT', accountNumber: '0123456789', beneficiary: person('NG') },
      BRL: { accountType: 'BRL_ACCOUNT', pixKey: 'ana@example.com', pixKeyType: 'EMAIL', taxId: '52998224725', beneficiary: person('BR') },
    };
    for (const [currency, accountInfo] of Object.entries(accounts)) {
      const discovered = (await t.api<{ data: Discovery[] }>(p, 'GET', `/discoveries?currency=${currency}`)).body.data;
      expect(discovered.length, currency).toBeGreaterThan(0);
      const bankName = discovered[discovered.length - 1]!.bankName;
      const created = await t.api<{ accountInfo: { bankName?: string } }>(p, 'POST', '/customers/external-accounts', { customerId: customer.body.id, currency, accountInfo: { ...accountInfo, bankName } });
      expect(created.status, `${currency}: ${created.text}`).toBe(201);
      expect(created.body.accountInfo.bankName).toBe(bankName);
    }
  });
});

describe('GET /uma-providers', () => {
  it("in the sandbox lists the sandbox's counterparty, on the allowlist, with its currencies as Currency objects", async () => {
    const res = await t.api<Page<Provider>>(p, 'GET', '/uma-providers');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ hasMore: false, totalCount: 1 });
    expect(res.body.data[0]).toMatchObject({ domain: 'sandbox.uma.money', allowListStatus: true });
    expect(res.body.data[0]!.supportedCurrencies).toContainEqual({ code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 });
  });

  it('in production starts empty until the operator lists providers', async () => {
    const production = createNetworkDirectoryService({ db: t.database.db, discoveries: DEFAULT_DISCOVERIES, umaProviders: [] });
    expect(await production.umaProviders({})).toEqual({ data: [], hasMore: false, totalCount: 0 });
  });

  describe("from the operator's file", () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await createTestApp({ MONETA_UMA_PROVIDERS_FILE: file('providers.json', PROVIDERS), MONETA_DISCOVERIES_FILE: file('banks.json', [{ bankName: 'Banco Uno', displayName: 'Banco Uno S.A.', country: 'MX', currency: 'MXN' }]) });
    });
    afterAll(async () => app?.close());
    const list = (query: string) => app.api<Page<Provider>>(app.platform, 'GET', `/uma-providers${query}`);

    it('replaces the defaults: discoveries and providers are the files’', async () => {
      expect((await app.api<{ data: Discovery[] }>(app.platform, 'GET', '/discoveries')).body.data).toEqual([{ bankName: 'Banco Uno', displayName: 'Banco Uno S.A.', country: 'MX', currency: 'MXN' }]);
      const all = await list('?sortOrder=asc');
      expect(all.body.data.map((x) => x.name)).toEqual(['Alpha Pay', 'Bravo Bank', 'Charlie Cash', 'Delta Wallet', 'Echo Money']);
      expect(all.body.data[0]).toEqual({
        name: 'Alpha Pay',
        domain: 'alpha.example',
        supportedRegions: ['US', 'MX'],
        supportedCurrencies: [{ code: 'USD', name: 'United States Dollar', symbol: '$', decimals: 2 }],
        lei: '5493001KJTIIGC8Y1R12',
        logoUrl: 'https://alpha.example/logo.png',
        allowListStatus: true,
      });
      // Newest-first is the lists' default; for a directory that is Z to A.
      expect((await list('')).body.data.map((x) => x.name)).toEqual(['Echo Money', 'Delta Wallet', 'Charlie Cash', 'Bravo Bank', 'Alpha Pay']);
    });

    it('pages with the cursor through every provider once, in both orders, with the total', async () => {
      for (const order of ['asc', 'desc']) {
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < 5; page++) {
          const res = await list(`?limit=2&sortOrder=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(res.status).toBe(200);
          expect(res.body.totalCount).toBe(5);
          seen.push(...res.body.data.map((x) => x.domain));
          cursor = res.body.nextCursor;
          if (!res.body.hasMore) break;
        }
        expect(seen).toHaveLength(5);
        expect(new Set(seen).size).toBe(5);
      }
      expect(errorOf(await list('?cursor=not-a-cursor'))).toBe('INVALID_INPUT');
    });

    it('filters by country, currency and the allowlist', async () => {
      expect((await list('?countryCode=MX&sortOrder=asc')).body.data.map((x) => x.name)).toEqual(['Alpha Pay', 'Delta Wallet']);
      expect((await list('?currencyCode=USD&sortOrder=asc')).body.data.map((x) => x.name)).toEqual(['Alpha Pay', 'Charlie Cash', 'Delta Wallet']);
      expect((await list('?hasBlockedProviders=true')).body.totalCount).toBe(5);
      const allowed = await list('?hasBlockedProviders=false&sortOrder=asc');
      expect(allowed.body.data.map((x) => x.name)).toEqual(['Alpha Pay', 'Bravo Bank', 'Delta Wallet']);
      expect(allowed.body.totalCount).toBe(3);
      expect((await list('?currencyCode=USD&hasBlockedProviders=false&countryCode=US')).body.data.map((x) => x.name)).toEqual(['Alpha Pay']);
      expect((await list('?countryCode=JP')).body).toEqual({ data: [], hasMore: false, totalCount: 0 });
      expect(errorOf(await list('?countryCode=usa'))).toBe('INVALID_INPUT');
    });
  });
});

describe('the catalogue settings', () => {
  it('are checked at start: a file that is not JSON, not a list, or has a bad entry stops the service, naming the variable and the entry', () => {
    expect(readDirectorySettings({})).toEqual({ discoveries: undefined, umaProviders: undefined });
    expect(() => readDirectorySettings({ MONETA_DISCOVERIES_FILE: join(dir, 'missing.json') })).toThrow(/MONETA_DISCOVERIES_FILE .*could not be read/);
    expect(() => readDirectorySettings({ MONETA_DISCOVERIES_FILE: file('obj.json', { bankName: 'x' }) })).toThrow('MONETA_DISCOVERIES_FILE must hold a JSON array');
    expect(() => readDirectorySettings({ MONETA_DISCOVERIES_FILE: file('bad.json', [{ bankName: '', displayName: 'X', country: 'XX', currency: 'ABC', swift: 1 }]) })).toThrow(
      /MONETA_DISCOVERIES_FILE\[0\]: bankName .*; country .*; currency .*; unknown field\(s\) swift/,
    );
    const twice = { bankName: 'Banco', displayName: 'Banco', country: 'MX', currency: 'MXN' };
    expect(() => readDirectorySettings({ MONETA_DISCOVERIES_FILE: file('twice.json', [twice, twice]) })).toThrow(/lists the institution Banco \(MX, MXN\) twice/);
    expect(() => readDirectorySettings({ MONETA_UMA_PROVIDERS_FILE: file('p.json', [{ name: 'P', domain: 'Not A Domain', supportedRegions: ['US'], supportedCurrencies: ['XYZ'], allowListed: 'yes' }]) })).toThrow(
      /MONETA_UMA_PROVIDERS_FILE\[0\]: domain .*; supportedCurrencies .*; allowListed must be true or false/,
    );
    expect(() => readDirectorySettings({ MONETA_UMA_PROVIDERS_FILE: file('dup.json', [PROVIDERS[0], PROVIDERS[0]]) })).toThrow(/lists the domain delta.example twice/);
    expect(readDirectorySettings({ MONETA_UMA_PROVIDERS_FILE: file('ok.json', PROVIDERS) }).umaProviders?.map((e) => e.allowListed)).toEqual([true, true, false, false, true]);
  });
});
