import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { httpApi, paymentFixtures } from '../../../../../test/payments-fixtures.js';
import { sql } from 'kysely';
import { listEvents } from '../../core/outbox.js';
import { identificationUnderTodaysNames } from './migrations.js';
import type { CustomerId } from '../../core/ids.js';
import type { ApiError, Customer, Quote } from '../../../../../test/wire-types.js';

/**
 * Today's customer fields next to the snapshot's, over real HTTP: identification under either name
 * set, end-user terms (the terms themselves, consent, and quotes refused without it where the
 * platform requires it), business fields, and the older-shape KYC link alias.
 */

let t: TestApp;
let api: ReturnType<typeof httpApi>;
const SSN = '123-45-6789';

beforeAll(async () => {
  t = await createTestApp({}, { listen: true });
  api = httpApi(t);
});
afterAll(async () => t?.close());

type Body = Record<string, unknown>;
const fieldsOf = (error: ApiError) => (error.details!.errors as { field: string }[]).map((e) => e.field).sort();

async function storedProfile(id: string): Promise<Record<string, unknown>> {
  const row = await t.database.db.selectFrom('customers').select('profile').where('id', '=', id as CustomerId).executeTakeFirstOrThrow();
  return row.profile;
}

async function customerCount(p: TestPlatform): Promise<number> {
  return (await api<{ totalCount: number }>(p, 'GET', '/customers?limit=1&isIncludingDeleted=true')).body.totalCount;
}

function consent(termsVersion = 'V1', extra: Body = {}): Body {
  return { acceptedAt: '2026-11-20T10:15:00+01:00', ipAddress: '198.51.100.24', termsVersion, acceptanceMethod: 'CHECKBOX', ...extra };
}

describe('identification: idType / identifier / countryOfIssuance and the taxId* names', () => {
  it("today's names are stored once, the identifier is never answered, and both names of the others are", async () => {
    const res = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ida Today', idType: 'SSN', identifier: SSN, countryOfIssuance: 'US' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ idType: 'SSN', taxIdType: 'SSN', countryOfIssuance: 'US', taxIdCountryOfIssuance: 'US' });
    expect(res.text).not.toContain(SSN);
    expect(res.body).not.toHaveProperty('identifier');
    expect(res.body).not.toHaveProperty('taxIdentifier');
    const got = await api<Customer>(t.platform, 'GET', `/customers/${res.body.id}`);
    expect(got.text).not.toContain(SSN);
    const listed = await api(t.platform, 'GET', '/customers?limit=100');
    expect(listed.text).not.toContain(SSN);
    // Stored under today's names only.
    expect(await storedProfile(res.body.id)).toMatchObject({ idType: 'SSN', identifier: SSN, countryOfIssuance: 'US' });
    expect(Object.keys(await storedProfile(res.body.id))).not.toContain('taxIdType');
    // Nor in the webhook the creation announced.
    const events = await listEvents(t.database.db, t.platform.id);
    const mine = events.filter((e) => (e.data as { id: string }).id === res.body.id);
    expect(mine.map((e) => e.type)).toEqual(['CUSTOMER.KYC_APPROVED']);
    expect(JSON.stringify(mine)).not.toContain(SSN);
  });

  it("the snapshot's names are accepted and stored under today's", async () => {
    const res = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Tad Snapshot', taxIdType: 'NON_US_TAX_ID', taxIdentifier: 'DE-991', taxIdCountryOfIssuance: 'DE' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ idType: 'NON_US_TAX_ID', taxIdType: 'NON_US_TAX_ID', countryOfIssuance: 'DE', taxIdCountryOfIssuance: 'DE' });
    expect(res.text).not.toContain('DE-991');
    const stored = await storedProfile(res.body.id);
    expect(stored).toMatchObject({ idType: 'NON_US_TAX_ID', identifier: 'DE-991', countryOfIssuance: 'DE' });
    expect(stored).not.toHaveProperty('taxIdentifier');
    expect(stored).not.toHaveProperty('taxIdType');
  });

  it('both names with the same value are one value; with different values, 400 names both of every pair (with any other invalid field) and nothing is written', async () => {
    const same = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Sam Same', idType: 'ITIN', taxIdType: 'ITIN', identifier: '900-70-0000', taxIdentifier: '900-70-0000' });
    expect(same.status, same.text).toBe(201);
    expect(same.body).toMatchObject({ idType: 'ITIN', taxIdType: 'ITIN' });

    const before = await customerCount(t.platform);
    const conflict = await api<ApiError>(t.platform, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      fullName: 'Con Flict',
      idType: 'SSN',
      taxIdType: 'ITIN',
      identifier: SSN,
      taxIdentifier: '999-99-9999',
      countryOfIssuance: 'US',
      taxIdCountryOfIssuance: 'US',
      endUserTermsConsent: consent('V1', { ipAddress: 'not-an-ip' }),
    });
    expect(conflict.status).toBe(400);
    const error = expectErrorShape(conflict);
    expect(error.code).toBe('INVALID_INPUT');
    expect(fieldsOf(error)).toEqual(['endUserTermsConsent.ipAddress', 'idType', 'identifier', 'taxIdType', 'taxIdentifier']);
    expect(conflict.text).not.toContain(SSN);
    expect(await customerCount(t.platform)).toBe(before);
  });

  it('an update takes either name set, refuses a conflicting pair, and never answers the identifier', async () => {
    const created = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Uma Update', idType: 'SSN', identifier: SSN });
    const id = created.body.id;
    const snapshotNames = await api<Customer>(t.platform, 'PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', taxIdType: 'ITIN', taxIdentifier: '900-71-1111' });
    expect(snapshotNames.status, snapshotNames.text).toBe(200);
    expect(snapshotNames.body).toMatchObject({ idType: 'ITIN', taxIdType: 'ITIN', fullName: 'Uma Update' });
    expect(snapshotNames.text).not.toContain('900-71-1111');
    expect(await storedProfile(id)).toMatchObject({ idType: 'ITIN', identifier: '900-71-1111' });

    const todays = await api<Customer>(t.platform, 'PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', countryOfIssuance: 'US' });
    expect(todays.body).toMatchObject({ countryOfIssuance: 'US', taxIdCountryOfIssuance: 'US', idType: 'ITIN' });

    const conflict = await api<ApiError>(t.platform, 'PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', countryOfIssuance: 'US', taxIdCountryOfIssuance: 'MX' });
    expect(conflict.status).toBe(400);
    expect(fieldsOf(expectErrorShape(conflict))).toEqual(['countryOfIssuance', 'taxIdCountryOfIssuance']);
    expect((await storedProfile(id)).countryOfIssuance).toBe('US');
  });

  it("the migration moves identification stored under the snapshot's names to today's (today's wins where both are stored)", async () => {
    const p = await t.newPlatform('migrated platform');
    const old = await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Olga Old' });
    const both = await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bo Both' });
    // Rows as the snapshot-era service stored them: the names as sent.
    const db = t.database.db;
    await sql`UPDATE customers SET profile = profile || ${JSON.stringify({ taxIdType: 'SSN', taxIdentifier: SSN, taxIdCountryOfIssuance: 'US' })}::jsonb WHERE id = ${old.body.id}`.execute(db);
    await sql`UPDATE customers SET profile = profile || ${JSON.stringify({ idType: 'ITIN', taxIdType: 'SSN', identifier: '900-70-1234', taxIdentifier: SSN })}::jsonb WHERE id = ${both.body.id}`.execute(db);
    // Until migrated, responses already show both names and never the identifier.
    const before = await api<Customer>(p, 'GET', `/customers/${old.body.id}`);
    expect(before.body).toMatchObject({ taxIdType: 'SSN' });
    expect(before.text).not.toContain(SSN);

    await identificationUnderTodaysNames.up(db as never);
    const migrated = await storedProfile(old.body.id);
    expect(migrated).toMatchObject({ fullName: 'Olga Old', idType: 'SSN', identifier: SSN, countryOfIssuance: 'US' });
    expect(Object.keys(migrated).filter((k) => k.startsWith('taxId'))).toEqual([]);
    const kept = await storedProfile(both.body.id);
    expect(kept).toMatchObject({ idType: 'ITIN', identifier: '900-70-1234' });
    expect(kept).not.toHaveProperty('countryOfIssuance');
    expect(Object.keys(kept).filter((k) => k.startsWith('taxId'))).toEqual([]);
    const after = await api<Customer>(p, 'GET', `/customers/${old.body.id}`);
    expect(after.body).toMatchObject({ idType: 'SSN', taxIdType: 'SSN', countryOfIssuance: 'US', taxIdCountryOfIssuance: 'US' });
    expect(after.text).not.toContain(SSN);
  });

  it('a business takes no personal identification under either name', async () => {
    const res = await api<ApiError>(t.platform, 'POST', '/customers', {
      customerType: 'BUSINESS',
      idType: 'EIN',
      taxIdentifier: '47-1234567',
      businessInfo: { legalName: 'Idless Inc', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14' },
    });
    expect(res.status).toBe(400);
    expect(fieldsOf(expectErrorShape(res))).toEqual(['idType', 'taxIdentifier']);
  });
});

describe('end-user terms', () => {
  it('GET /customers/end-user-terms answers the current version and URL: V1 on this service by default, then what the platform configures', async () => {
    const p = await t.newPlatform('terms platform');
    const initial = await api<{ version: string; url: string }>(p, 'GET', '/customers/end-user-terms');
    expect(initial.status).toBe(200);
    expect(initial.body).toEqual({ version: 'V1', url: `${t.baseUrl}/legal/end-user-terms` });
    const config = await api<{ endUserTermsConfig: Body }>(p, 'GET', '/config');
    expect(config.body.endUserTermsConfig).toEqual({ isConsentRequired: false, version: 'V1', url: `${t.baseUrl}/legal/end-user-terms`, previousVersions: [] });

    const patched = await api<{ endUserTermsConfig: Body }>(p, 'PATCH', '/config', { endUserTermsConfig: { version: '2026-11', url: 'https://platform.example/legal/terms-2026-11' } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.endUserTermsConfig).toEqual({ isConsentRequired: false, version: '2026-11', url: 'https://platform.example/legal/terms-2026-11', previousVersions: ['V1'] });
    // Turning consent on keeps the version and URL.
    const on = await api<{ endUserTermsConfig: Body }>(p, 'PATCH', '/config', { endUserTermsConfig: { isConsentRequired: true } });
    expect(on.body.endUserTermsConfig).toMatchObject({ isConsentRequired: true, version: '2026-11', previousVersions: ['V1'] });
    expect((await api(p, 'GET', '/customers/end-user-terms')).body).toEqual({ version: '2026-11', url: 'https://platform.example/legal/terms-2026-11' });

    const bad = await api<ApiError>(p, 'PATCH', '/config', { endUserTermsConfig: { url: 'ftp://x', version: '', required: true } });
    expect(bad.status).toBe(400);
    expect(fieldsOf(expectErrorShape(bad))).toEqual(['endUserTermsConfig.required', 'endUserTermsConfig.url', 'endUserTermsConfig.version']);

    // Another platform's terms are its own.
    expect((await api(t.platform, 'GET', '/customers/end-user-terms')).body).toMatchObject({ version: 'V1' });
  });

  it('a consent is recorded on create or update, answered read-only, and must name a version of the platform', async () => {
    const p = await t.newPlatform('consent platform');
    const created = await api<Customer>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Cora Consent', endUserTermsConsent: consent('V1') });
    expect(created.status, created.text).toBe(201);
    expect(created.body.endUserTermsConsent).toEqual({ acceptedAt: '2026-11-20T09:15:00.000Z', ipAddress: '198.51.100.24', termsVersion: 'V1', acceptanceMethod: 'CHECKBOX' });
    expect((await api<Customer>(p, 'GET', `/customers/${created.body.id}`)).body.endUserTermsConsent).toEqual(created.body.endUserTermsConsent);

    const before = await customerCount(p);
    const unknown = await api<ApiError>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Una Known', endUserTermsConsent: consent('V9') });
    expect(unknown.status).toBe(400);
    const error = expectErrorShape(unknown);
    expect(error.code).toBe('END_USER_TERMS_VERSION_NOT_FOUND');
    expect(error.details).toMatchObject({ field: 'endUserTermsConsent.termsVersion', termsVersion: 'V9', knownVersions: ['V1'] });
    expect(await customerCount(p)).toBe(before);

    const invalid = await api<ApiError>(p, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      endUserTermsConsent: { acceptedAt: 'yesterday', ipAddress: 'x'.repeat(46), termsVersion: 'V1', acceptanceMethod: 'NOD' },
    });
    expect(invalid.status).toBe(400);
    expect(fieldsOf(expectErrorShape(invalid))).toEqual(['endUserTermsConsent.acceptanceMethod', 'endUserTermsConsent.acceptedAt', 'endUserTermsConsent.ipAddress']);
    const missing = await api<ApiError>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', endUserTermsConsent: { termsVersion: 'V1' } });
    expect(fieldsOf(expectErrorShape(missing))).toEqual(['endUserTermsConsent.acceptanceMethod', 'endUserTermsConsent.acceptedAt', 'endUserTermsConsent.ipAddress']);

    // After the platform moves to V2, consent to V1 is still a version it published; V3 is not. An IPv6 address is an address.
    expect((await api(p, 'PATCH', '/config', { endUserTermsConfig: { version: 'V2' } })).status).toBe(200);
    const later = await api<Customer>(p, 'PATCH', `/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V2', { ipAddress: '2001:db8::24', acceptanceMethod: 'CLICK_TO_ACCEPT' }) });
    expect(later.status, later.text).toBe(200);
    expect(later.body.endUserTermsConsent).toMatchObject({ termsVersion: 'V2', ipAddress: '2001:db8::24', acceptanceMethod: 'CLICK_TO_ACCEPT' });
    const old = await api<Customer>(p, 'PATCH', `/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V1') });
    expect(old.status).toBe(200);
    const v3 = await api<ApiError>(p, 'PATCH', `/customers/${created.body.id}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V3') });
    expect(v3.status).toBe(400);
    expect(expectErrorShape(v3).code).toBe('END_USER_TERMS_VERSION_NOT_FOUND');
    expect((await api<Customer>(p, 'GET', `/customers/${created.body.id}`)).body.endUserTermsConsent).toMatchObject({ termsVersion: 'V1' });
  });

  it('quotes need no consent by default; where the platform requires it, 403 END_USER_TERMS_NOT_ACCEPTED until the customer accepts the current version', async () => {
    const p = await t.newPlatform('quote terms platform');
    const f = paymentFixtures(t, p, api);
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Quincy Terms');
    const clabe = await f.clabeAccount(customerId);
    const quote = () =>
      api<Quote>(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 });

    // Off by default: a snapshot client's customer, who never sent a consent, quotes as before.
    const off = await quote();
    expect(off.status, off.text).toBe(201);

    expect((await api(p, 'PATCH', '/config', { endUserTermsConfig: { isConsentRequired: true, version: 'V2' } })).status).toBe(200);
    const transactionsBefore = (await api<{ totalCount: number }>(p, 'GET', '/transactions?limit=1')).body.totalCount;
    const refused = await quote();
    expect(refused.status).toBe(403);
    const error = expectErrorShape(refused);
    expect(error.code).toBe('END_USER_TERMS_NOT_ACCEPTED');
    expect(error.details).toMatchObject({ customerId, currentVersion: 'V2' });
    expect((await api<{ totalCount: number }>(p, 'GET', '/transactions?limit=1')).body.totalCount).toBe(transactionsBefore);

    // Consent to an earlier version is recorded, but is not consent to the current one.
    expect((await api(p, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V1') })).status).toBe(200);
    const stale = await quote();
    expect(stale.status).toBe(403);
    expect(expectErrorShape(stale).details).toMatchObject({ currentVersion: 'V2', acceptedVersion: 'V1' });

    expect((await api(p, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V2') })).status).toBe(200);
    const accepted = await quote();
    expect(accepted.status, accepted.text).toBe(201);
    // The quote it allowed executes (execute does not ask again).
    const executed = await api<Quote>(p, 'POST', `/quotes/${accepted.body.id}/execute`);
    expect(executed.status, executed.text).toBe(200);

    // Turned off again: no consent needed.
    expect((await api(p, 'PATCH', '/config', { endUserTermsConfig: { isConsentRequired: false } })).status).toBe(200);
    const other = await f.customerWithAccount('USD', 100_000, 'Otto Off');
    const otherClabe = await f.clabeAccount(other.customerId, '318');
    const free = await api(p, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId: other.accountId }, destination: { destinationType: 'ACCOUNT', accountId: otherClabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 });
    expect(free.status, free.text).toBe(201);
  });

  it("one platform's requirement does not reach another platform's quotes", async () => {
    const strict = await t.newPlatform('strict platform');
    const relaxed = await t.newPlatform('relaxed platform');
    expect((await api(strict, 'PATCH', '/config', { endUserTermsConfig: { isConsentRequired: true } })).status).toBe(200);
    const f = paymentFixtures(t, relaxed, api);
    const { customerId, accountId } = await f.customerWithAccount('USD', 100_000, 'Rita Relaxed');
    const clabe = await f.clabeAccount(customerId);
    const res = await api(relaxed, 'POST', '/quotes', { source: { sourceType: 'ACCOUNT', accountId }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 1000 });
    expect(res.status, res.text).toBe(201);
    // Nor may a platform record consent on another's customer.
    const foreign = await api(strict, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', endUserTermsConsent: consent('V1') });
    expect(foreign.status).toBe(404);
    expect((await api<Customer>(relaxed, 'GET', `/customers/${customerId}`)).body.endUserTermsConsent).toBeUndefined();
  });
});

describe('business customers', () => {
  const info = { legalName: 'Acme Widgets', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: '5523041' };

  it('businessInfo.country is taken as sent, else from the address country, else from the region; with none of them, 400', async () => {
    const sent = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', region: 'MX', address: { line1: '1 Calle', postalCode: '01000', country: 'MX' }, businessInfo: { ...info, country: 'US' } });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body.businessInfo!.country).toBe('US');
    const fromAddress = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', region: 'US', address: { line1: '1 Calle', postalCode: '01000', country: 'MX' }, businessInfo: info });
    expect(fromAddress.status, fromAddress.text).toBe(201);
    expect(fromAddress.body.businessInfo!.country).toBe('MX');
    const fromRegion = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', region: 'BR', businessInfo: info });
    expect(fromRegion.body.businessInfo!.country).toBe('BR');

    const none = await api<ApiError>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: info, email: 'bad' });
    expect(none.status).toBe(400);
    expect(fieldsOf(expectErrorShape(none))).toEqual(['email']);
    const noneValid = await api<ApiError>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: info });
    expect(noneValid.status).toBe(400);
    expect(fieldsOf(expectErrorShape(noneValid))).toEqual(['businessInfo.country']);
  });

  it('takes the primary contact names (at most 250 characters each) on create and update', async () => {
    const created = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: { ...info, country: 'DE', primaryContactFirstName: 'Jane', primaryContactLastName: 'Smith' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.businessInfo).toMatchObject({ primaryContactFirstName: 'Jane', primaryContactLastName: 'Smith', legalName: 'Acme Widgets' });
    const patched = await api<Customer>(t.platform, 'PATCH', `/customers/${created.body.id}`, { customerType: 'BUSINESS', businessInfo: { primaryContactLastName: 'Doe' } });
    expect(patched.body.businessInfo).toMatchObject({ primaryContactFirstName: 'Jane', primaryContactLastName: 'Doe', country: 'DE' });
    const long = await api<ApiError>(t.platform, 'PATCH', `/customers/${created.body.id}`, { customerType: 'BUSINESS', businessInfo: { primaryContactFirstName: 'J'.repeat(251), primaryContactLastName: '' } });
    expect(long.status).toBe(400);
    expect(fieldsOf(expectErrorShape(long))).toEqual(['businessInfo.primaryContactFirstName', 'businessInfo.primaryContactLastName']);
  });

  it('a business without incorporatedOn is created, but not decided until its KYB: it starts UNVERIFIED and its money does not move', async () => {
    const { incorporatedOn: _left, ...withoutDate } = info;
    const created = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', currencies: ['USD'], businessInfo: { ...withoutDate, country: 'US' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.kybStatus).toBe('UNVERIFIED');
    expect(created.body.businessInfo).not.toHaveProperty('incorporatedOn');
    // The same registration number with the date is approved at once by the sandbox.
    const dated = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: { ...info, country: 'US' } });
    expect(dated.body.kybStatus).toBe('APPROVED');

    const link = await api<{ kycUrl: string }>(t.platform, 'POST', `/customers/${created.body.id}/kyc-link`, {});
    expect(link.status, link.text).toBe(201);
    const page = await t.app.inject({ method: 'POST', url: new URL(link.body.kycUrl).pathname, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'legalName=Acme+Widgets&registrationNumber=5523041' });
    expect(page.statusCode).toBe(200);
    expect((await api<Customer>(t.platform, 'GET', `/customers/${created.body.id}`)).body.kybStatus).toBe('APPROVED');
  });
});

/** The older-shape alias (conformance: EXTENSIONS in test/conformance/aliases.ts). */
function alias<T>(who: TestPlatform, query: string) {
  return t.api<T>(who, 'GET', `/customers/kyc-link${query}`);
}

describe('GET /customers/kyc-link (older-shape alias of POST /customers/{id}/kyc-link)', () => {
  it('issues the same single-use hosted link from the query', async () => {
    const customer = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Al Alias 003' });
    const redirect = 'https://platform.example/done?step=kyc';
    const res = await alias<{ kycUrl: string; expiresAt: string; provider: string }>(t.platform, `?customerId=${customer.body.id}&redirectUri=${encodeURIComponent(redirect)}`);
    expect(res.status, res.text).toBe(200);
    const viaPost = await api<{ kycUrl: string; expiresAt: string; provider: string }>(t.platform, 'POST', `/customers/${customer.body.id}/kyc-link`, { redirectUri: redirect });
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(viaPost.body).sort());
    expect(res.body.provider).toBe(viaPost.body.provider);
    expect(res.body.kycUrl).not.toBe(viaPost.body.kycUrl);
    expect(res.body.kycUrl).toMatch(/^http.*\/hosted\/kyc\/[A-Za-z0-9_-]{43}$/);

    // The link works, redirects where asked, and only once.
    const path = new URL(res.body.kycUrl).pathname;
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    const submitted = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'fullName=Al+Alias' });
    expect(submitted.statusCode).toBe(303);
    expect(submitted.headers.location).toBe(redirect);
    expect((await t.app.inject({ method: 'GET', url: path })).statusCode).toBe(410);
    expect((await api<Customer>(t.platform, 'GET', `/customers/${customer.body.id}`)).body.kycStatus).toBe('APPROVED');
  });

  it('refuses a missing or unknown customer, another platform, and a read-only token', async () => {
    const customer = await api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Tess Tenant' });
    const missing = await alias<ApiError>(t.platform, '');
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing.body)).toEqual(['customerId']);
    const unknown = await alias<ApiError>(t.platform, '?customerId=Customer:01a20061-044a-7399-9737-e82f3a74e590');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('USER_NOT_FOUND');
    const other = await t.newPlatform('alias tenant');
    const foreign = await alias<ApiError>(other, `?customerId=${customer.body.id}`);
    expect(foreign.status).toBe(404);
    const viewer = await t.newToken(t.platform, ['VIEW']);
    const readOnly = await alias<ApiError>(viewer, `?customerId=${customer.body.id}`);
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.code).toBe('FORBIDDEN');
    // HEAD answers as GET would, and issues no link.
    const head = await fetch(`${t.baseUrl}/2025-10-13/customers/kyc-link?customerId=${customer.body.id}`, { method: 'HEAD', headers: { authorization: t.platform.authorization } });
    expect(head.status).toBe(200);
    const links = await t.database.db.selectFrom('kyc_links').select('id').where('customer_id', '=', customer.body.id as CustomerId).execute();
    expect(links).toHaveLength(0);
  });
});
