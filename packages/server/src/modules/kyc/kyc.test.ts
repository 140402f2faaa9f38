import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { CustomerId } from '../../core/ids.js';
import type { Customer, KycLink, SandboxClock } from '../../../../../test/wire-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const REDIRECT = 'https://platform.example/onboarding/done?step=kyc';
let keySeq = 0;
const newKey = () => `kyc-test-${++keySeq}-${randomBytes(4).toString('hex')}`;

async function createIndividual(fullName: string, who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<Customer>(who, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function createBusiness(registrationNumber: string, who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<Customer>(who, 'POST', '/customers', {
    customerType: 'BUSINESS',
    businessInfo: { legalName: 'Acme Widgets', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber },
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function createLink(customerId: string, body: unknown = { redirectUri: REDIRECT }, who: TestPlatform = t.platform) {
  const res = await t.api<KycLink>(who, 'POST', `/customers/${customerId}/kyc-link`, body, { 'idempotency-key': newKey() });
  expect(res.status).toBe(201);
  return res.body;
}

function tokenOf(kycUrl: string): string {
  return new URL(kycUrl).pathname.split('/').pop()!;
}

/** What a browser does with a hosted link: GET the page, or POST its form url-encoded. */
async function hosted(method: 'GET' | 'POST', kycUrl: string, form?: Record<string, string>) {
  const url = new URL(kycUrl);
  const res = await t.app.inject({
    method,
    url: url.pathname,
    ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() } : {}),
  });
  return { status: res.statusCode, headers: res.headers, html: res.body };
}

async function statusOf(customerId: string, who: TestPlatform = t.platform) {
  const res = await t.api<Customer>(who, 'GET', `/customers/${customerId}`);
  expect(res.status).toBe(200);
  return res.body;
}

async function eventTypesFor(customerId: string, who: TestPlatform = t.platform): Promise<string[]> {
  const events = await listEvents(t.database.db, who.id);
  return events.filter((e) => (e.data as { id: string }).id === customerId).map((e) => e.type);
}

describe('creating a KYC link', () => {
  it('returns 201 with a hosted kycUrl under PUBLIC_URL, an expiry 24 hours out on the platform clock, and the sandbox provider, but no token', async () => {
    const id = await createIndividual('Una Link 003');
    const before = await t.api<SandboxClock>(t.platform, 'GET', '/sandbox/clock');
    const res = await t.api<KycLink>(t.platform, 'POST', `/customers/${id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': newKey() });
    const after = await t.api<SandboxClock>(t.platform, 'GET', '/sandbox/clock');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'kycUrl', 'provider']);
    expect(res.body.kycUrl).toMatch(/^http:\/\/moneta\.test\/hosted\/kyc\/[A-Za-z0-9_-]{43}$/);
    expect(res.body.provider).toBe('MONETA_SANDBOX');
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(Date.parse(before.body.now) + 24 * 3600 * 1000 - 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.parse(after.body.now) + 24 * 3600 * 1000 + 1000);
  });

  it('a replay with the same Idempotency-Key returns the same link and issues no second one', async () => {
    const id = await createIndividual('Rita Replay 003');
    const key = newKey();
    const first = await t.api<KycLink>(t.platform, 'POST', `/customers/${id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': key });
    const second = await t.api(t.platform, 'POST', `/customers/${id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const rows = await t.database.db.selectFrom('kyc_links').select('id').where('customer_id', '=', id as CustomerId).execute();
    expect(rows).toHaveLength(1);

    const other = await createLink(id);
    expect(other.kycUrl).not.toBe(first.body.kycUrl);
  });

  it('works without a body or redirectUri', async () => {
    const id = await createIndividual('Nora Nobody 003');
    const noBody = await t.api(t.platform, 'POST', `/customers/${id}/kyc-link`, undefined, { 'idempotency-key': newKey() });
    expect(noBody.status).toBe(201);
    const emptyBody = await t.api(t.platform, 'POST', `/customers/${id}/kyc-link`, {}, { 'idempotency-key': newKey() });
    expect(emptyBody.status).toBe(201);
  });

  it('answers 404 USER_NOT_FOUND for an unknown customer and 410 CUSTOMER_DELETED for a deleted one', async () => {
    const unknown = await t.api(t.platform, 'POST', '/customers/Customer:01a20061-044a-7399-9737-e82f3a74e590/kyc-link', { redirectUri: REDIRECT }, { 'idempotency-key': newKey() });
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('USER_NOT_FOUND');

    const id = await createIndividual('Dora Deleted 003');
    expect((await t.api(t.platform, 'DELETE', `/customers/${id}`)).status).toBe(200);
    const deleted = await t.api(t.platform, 'POST', `/customers/${id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': newKey() });
    expect(deleted.status).toBe(410);
    expect(expectErrorShape(deleted).code).toBe('CUSTOMER_DELETED');
  });

  it("another platform's customer is not found", async () => {
    const id = await createIndividual('Olga Other 003');
    const other = await t.newPlatform('other platform');
    const res = await t.api(other, 'POST', `/customers/${id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': newKey() });
    expect(res.status).toBe(404);
    expect(expectErrorShape(res).code).toBe('USER_NOT_FOUND');
  });

  it.each([['not a url'], ['javascript:alert(1)'], ['ftp://files.example/x'], ['/relative/path'], [42]])(
    'refuses redirectUri %j with 400 naming redirectUri',
    async (redirectUri) => {
      const id = await createIndividual('Iris Invalid 003');
      const res = await t.api(t.platform, 'POST', `/customers/${id}/kyc-link`, { redirectUri }, { 'idempotency-key': newKey() });
      expect(res.status).toBe(400);
      const error = expectErrorShape(res);
      expect(error.code).toBe('INVALID_INPUT');
      expect((error.details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['redirectUri']);
      const rows = await t.database.db.selectFrom('kyc_links').select('id').where('customer_id', '=', id as CustomerId).execute();
      expect(rows).toHaveLength(0);
    },
  );
});

describe('the hosted verification page', () => {
  it('renders an HTML form that posts back to the same link, with no-store and a restrictive content security policy', async () => {
    const id = await createIndividual('Hanna Html 003');
    const link = await createLink(id);
    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.html).toContain('<form method="post"');
    expect(page.html).toContain(`action="${new URL(link.kycUrl).pathname}"`);
    expect(page.html).toContain('name="fullName"');
    // Opening the page does not use up the link or change the customer.
    expect((await hosted('GET', link.kycUrl)).status).toBe(200);
    expect((await statusOf(id)).kycStatus).toBe('UNVERIFIED');
  });

  it('starts with what the platform sent, but leaves out a name that would decide nothing, so the first submit decides', async () => {
    const pending = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Pia Prefilled 001', birthDate: '1990-01-15', nationality: 'US' });
    expect(pending.status).toBe(201);
    const prefilled = await hosted('GET', (await createLink(pending.body.id)).kycUrl);
    expect(prefilled.html).toContain('value="Pia Prefilled 001"');
    expect(prefilled.html).toContain('value="1990-01-15"');

    // The README's walk-through: a customer created UNVERIFIED (003) is sent to the hosted page.
    const unverified = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Jane Doe 003', birthDate: '1990-01-15', nationality: 'US' });
    const page = await hosted('GET', (await createLink(unverified.body.id)).kycUrl);
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('Jane Doe 003');
    expect(page.html).toMatch(/<input id="fullName" name="fullName" required maxlength="200" autocomplete="name">/);
    expect(page.html).toContain('value="1990-01-15"');
    expect(page.html).toContain('003 decides nothing');

    const business = await createBusiness('R-003');
    const businessPage = await hosted('GET', (await createLink(business)).kycUrl);
    expect(businessPage.html).toContain('value="Acme Widgets"');
    expect(businessPage.html).not.toContain('R-003');
  });

  it('submitting "Jane Doe" approves an UNVERIFIED customer, emits CUSTOMER.KYC_APPROVED and redirects 303 to redirectUri unchanged', async () => {
    const id = await createIndividual('Jane Unverified 003');
    expect((await statusOf(id)).kycStatus).toBe('UNVERIFIED');
    expect(await eventTypesFor(id)).toEqual([]);
    const link = await createLink(id);

    const res = await hosted('POST', link.kycUrl, { fullName: 'Jane Doe', birthDate: '1990-01-15', nationality: 'US' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(REDIRECT);

    expect((await statusOf(id)).kycStatus).toBe('APPROVED');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_APPROVED']);
    const [event] = await listEvents(t.database.db, t.platform.id, 'CUSTOMER.KYC_APPROVED').then((all) => all.filter((e) => (e.data as { id: string }).id === id));
    expect(event!.id).toMatch(/^Webhook:/);
    expect(event!.data).toMatchObject({ id, kycStatus: 'APPROVED', customerType: 'INDIVIDUAL', fullName: 'Jane Doe', birthDate: '1990-01-15' });
    // The customer keeps the verified details, not the "003" that left it undecided at creation.
    expect(await statusOf(id)).toMatchObject({ fullName: 'Jane Doe', birthDate: '1990-01-15', nationality: 'US' });
  });

  it('the suffix typed on the form to pick a sandbox outcome picks it, and is not stored in the name', async () => {
    const id = await createIndividual('Sam Unverified 003');
    const link = await createLink(id);
    expect((await hosted('POST', link.kycUrl, { fullName: 'Sam Pending 001', birthDate: '1985-02-03', nationality: 'FR' })).status).toBe(303);
    expect(await statusOf(id)).toMatchObject({ kycStatus: 'PENDING', fullName: 'Sam Pending' });
  });

  it('without a redirectUri, shows the submitted status on the page', async () => {
    const id = await createIndividual('Sam Status 003');
    const link = await createLink(id, {});
    const res = await hosted('POST', link.kycUrl, { fullName: 'Sam Pending 001' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.html).toContain('<span class="status" id="status">PENDING</span>');
    expect((await statusOf(id)).kycStatus).toBe('PENDING');
  });

  it.each([
    ['Pat Pending 001', 'PENDING', 'CUSTOMER.KYC_PENDING'],
    ['Rex Rejected 002', 'REJECTED', 'CUSTOMER.KYC_REJECTED'],
    ['Hal Hold 004', 'HOLD', 'CUSTOMER.KYC_HOLD'],
  ])('a submitted fullName "%s" decides %s and emits %s', async (fullName, status, eventType) => {
    const id = await createIndividual('Una Unverified 003');
    const link = await createLink(id);
    const res = await hosted('POST', link.kycUrl, { fullName });
    expect(res.status).toBe(303);
    expect((await statusOf(id)).kycStatus).toBe(status);
    expect(await eventTypesFor(id)).toEqual([eventType]);
  });

  it('a submission that decides nothing (003) records nothing, shows the form again (422) and leaves the link usable', async () => {
    const id = await createIndividual('Una Unverified 003');
    const link = await createLink(id);
    const undecided = await hosted('POST', link.kycUrl, { fullName: 'Still Unverified 003', birthDate: '1990-01-15' });
    expect(undecided.status).toBe(422);
    expect(undecided.headers['content-type']).toMatch(/^text\/html/);
    expect(undecided.headers.location).toBeUndefined();
    expect(undecided.html).toContain('id="undecided"');
    expect(undecided.html).toContain('this link still works');
    expect(undecided.html).toContain('value="Still Unverified 003"');
    expect(undecided.html).toContain('value="1990-01-15"');
    expect((await statusOf(id)).kycStatus).toBe('UNVERIFIED');
    expect(await eventTypesFor(id)).toEqual([]);
    const row = await t.database.db.selectFrom('kyc_links').select('used_at').where('customer_id', '=', id as CustomerId).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();

    // The same link then takes the corrected details and decides.
    expect((await hosted('GET', link.kycUrl)).status).toBe(200);
    expect((await hosted('POST', link.kycUrl, { fullName: 'Una Approved' })).status).toBe(303);
    expect((await statusOf(id)).kycStatus).toBe('APPROVED');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_APPROVED']);
    expect((await hosted('GET', link.kycUrl)).status).toBe(410);
  });

  it('an undecided submission does not move a decided customer back to UNVERIFIED', async () => {
    const id = await createIndividual('Pam Pending 001');
    const link = await createLink(id);
    expect((await hosted('POST', link.kycUrl, { fullName: 'Pam Again 003' })).status).toBe(422);
    expect((await statusOf(id)).kycStatus).toBe('PENDING');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_PENDING']);

    const business = await createBusiness('R-001');
    const businessLink = await createLink(business);
    const res = await hosted('POST', businessLink.kycUrl, { legalName: 'Acme Widgets', registrationNumber: 'R-003' });
    expect(res.status).toBe(422);
    expect(res.html).toContain('name="registrationNumber"');
    expect(res.html).not.toContain('name="fullName"');
    expect((await statusOf(business)).kybStatus).toBe('PENDING');
  });

  it.each([
    ['R-7781', 'APPROVED', 'CUSTOMER.KYB_APPROVED'],
    ['R-001', 'PENDING', 'CUSTOMER.KYB_PENDING'],
    ['R-002', 'REJECTED', 'CUSTOMER.KYB_REJECTED'],
    ['R-004', 'HOLD', 'CUSTOMER.KYB_HOLD'],
  ])('a business submitting registrationNumber %s gets kybStatus %s and %s', async (registrationNumber, status, eventType) => {
    const id = await createBusiness('R-003');
    expect(await statusOf(id)).toMatchObject({ kybStatus: 'UNVERIFIED' });
    const link = await createLink(id);
    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="registrationNumber"');
    expect(page.html).toContain('name="legalName"');
    expect(page.html).not.toContain('name="fullName"');

    const res = await hosted('POST', link.kycUrl, { legalName: 'Acme Widgets', registrationNumber });
    expect(res.status).toBe(303);
    const customer = await statusOf(id);
    expect(customer.kybStatus).toBe(status);
    expect(customer.kycStatus).toBeUndefined();
    expect(await eventTypesFor(id)).toEqual([eventType]);
  });

  it('a link is single use: after a submission both opening and submitting it again show the 410 page and change nothing', async () => {
    const id = await createIndividual('Ursula Used 003');
    const link = await createLink(id);
    expect((await hosted('POST', link.kycUrl, { fullName: 'Ursula Pending 001' })).status).toBe(303);
    expect((await statusOf(id)).kycStatus).toBe('PENDING');

    const again = await hosted('GET', link.kycUrl);
    expect(again.status).toBe(410);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
    expect(again.html).toContain('already used');
    expect(again.html).not.toContain('<form');

    const resubmit = await hosted('POST', link.kycUrl, { fullName: 'Ursula Approved' });
    expect(resubmit.status).toBe(410);
    expect(resubmit.headers['content-type']).toMatch(/^text\/html/);
    expect(resubmit.html).toContain('already used');
    expect(resubmit.headers.location).toBeUndefined();

    expect((await statusOf(id)).kycStatus).toBe('PENDING');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_PENDING']);
  });

  it('two submissions of one link at once decide once', async () => {
    const id = await createIndividual('Connie Concurrent 003');
    const link = await createLink(id);
    const results = await Promise.all([hosted('POST', link.kycUrl, { fullName: 'Connie A' }), hosted('POST', link.kycUrl, { fullName: 'Connie B 002' })]);
    expect(results.map((r) => r.status).sort()).toEqual([303, 410]);
    const events = await eventTypesFor(id);
    expect(events).toHaveLength(1);
    expect(events[0]).toBe((await statusOf(id)).kycStatus === 'APPROVED' ? 'CUSTOMER.KYC_APPROVED' : 'CUSTOMER.KYC_REJECTED');
  });

  it('a link past its expiry on the platform clock shows the 410 page and changes nothing', async () => {
    const p = await t.newPlatform('expiry platform');
    const id = await createIndividual('Eve Expired 003', p);
    const link = await createLink(id, { redirectUri: REDIRECT }, p);
    const advanced = await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 86401 }, { 'idempotency-key': newKey() });
    expect(advanced.status).toBe(200);

    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(410);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.html).toContain('expired');
    expect(page.html).not.toContain('<form');

    const submit = await hosted('POST', link.kycUrl, { fullName: 'Eve Approved' });
    expect(submit.status).toBe(410);
    expect(submit.html).toContain('expired');

    expect((await statusOf(id, p)).kycStatus).toBe('UNVERIFIED');
    expect(await eventTypesFor(id, p)).toEqual([]);
    const row = await t.database.db.selectFrom('kyc_links').select('used_at').where('customer_id', '=', id as CustomerId).executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();

    // A fresh link, issued on the advanced clock, works.
    const fresh = await createLink(id, { redirectUri: REDIRECT }, p);
    expect((await hosted('POST', fresh.kycUrl, { fullName: 'Eve Approved' })).status).toBe(303);
    expect((await statusOf(id, p)).kycStatus).toBe('APPROVED');
  });

  it('an unknown or mangled token shows the 404 page', async () => {
    for (const token of [randomBytes(32).toString('base64url'), 'short', 'has%20a%20space-and-more-characters']) {
      for (const method of ['GET', 'POST'] as const) {
        const res = await hosted(method, `http://moneta.test/hosted/kyc/${token}`, method === 'POST' ? { fullName: 'Nobody' } : undefined);
        expect(res.status, `${method} ${token}`).toBe(404);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.html).toContain('not valid');
      }
    }
  });

  it("a link to a customer deleted since it was issued is no longer usable and doesn't revive the customer", async () => {
    const id = await createIndividual('Gone Later 003');
    const link = await createLink(id);
    expect((await t.api(t.platform, 'DELETE', `/customers/${id}`)).status).toBe(200);
    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const submit = await hosted('POST', link.kycUrl, { fullName: 'Gone Approved' });
    expect(submit.status).toBe(404);
    expect(submit.headers['content-type']).toMatch(/^text\/html/);
    expect(submit.html).toContain('not valid');
    expect(await eventTypesFor(id)).toEqual([]);
    const row = await t.database.db.selectFrom('customers').select('kyc_status').where('id', '=', id as CustomerId).executeTakeFirstOrThrow();
    expect(row.kyc_status).toBe('UNVERIFIED');
  });

  it('an already approved customer sees "already verified" instead of the form, and the link stays usable', async () => {
    const id = await createIndividual('Ann Approved');
    expect((await statusOf(id)).kycStatus).toBe('APPROVED');
    const link = await createLink(id);
    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('Already verified');
    expect(page.html).not.toContain('<form');
    expect((await hosted('GET', link.kycUrl)).status).toBe(200);
    // A submission does not downgrade an approval.
    expect((await hosted('POST', link.kycUrl, { fullName: 'Ann Rejected 002' })).status).toBe(303);
    expect((await statusOf(id)).kycStatus).toBe('APPROVED');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_APPROVED']);
  });

  it('escapes HTML in customer data', async () => {
    const id = await createIndividual('<script>alert(1)</script> 001');
    const link = await createLink(id);
    const page = await hosted('GET', link.kycUrl);
    expect(page.status).toBe(200);
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; 001');
    expect(page.html).not.toContain('<script>alert');
    // What a person submitted is shown again after an undecided submission, escaped too.
    const again = await hosted('POST', link.kycUrl, { fullName: '"><script>alert(2)</script> 003' });
    expect(again.status).toBe(422);
    expect(again.html).toContain('value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt; 003"');
    expect(again.html).not.toContain('<script>alert');

    const business = await t.api<Customer>(t.platform, 'POST', '/customers', {
      customerType: 'BUSINESS',
      businessInfo: { legalName: '"><img src=x onerror=alert(1)>', country: 'US', taxId: '1', incorporatedOn: '2020-01-01', registrationNumber: 'R-003' },
    });
    expect(business.status).toBe(201);
    const businessPage = await hosted('GET', (await createLink(business.body.id)).kycUrl);
    expect(businessPage.html).toContain('value="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(businessPage.html).not.toContain('<img');
  });
});

describe('sandbox provider decisions', () => {
  it('POST /sandbox/customers/{id}/kyc-decision sets each status, emits its event, and GET /customers/{id} reflects it', async () => {
    const id = await createIndividual('Dee Decision 003');
    const expected: string[] = [];
    for (const status of ['PENDING', 'HOLD', 'REJECTED', 'APPROVED']) {
      const res = await t.api(t.platform, 'POST', `/sandbox/customers/${id}/kyc-decision`, { status }, { 'idempotency-key': newKey() });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, kycStatus: status });
      expect((await statusOf(id)).kycStatus).toBe(status);
      expected.push(`CUSTOMER.KYC_${status}`);
      expect(await eventTypesFor(id)).toEqual(expected);
    }
    const events = await listEvents(t.database.db, t.platform.id, 'CUSTOMER.KYC_REJECTED');
    expect(events.find((e) => (e.data as { id: string }).id === id)!.data).toMatchObject({ id, kycStatus: 'REJECTED' });
  });

  it('deciding the status a customer already has announces nothing new', async () => {
    const id = await createIndividual('Pete Pending 001');
    const res = await t.api<Customer>(t.platform, 'POST', `/sandbox/customers/${id}/kyc-decision`, { status: 'PENDING' }, { 'idempotency-key': newKey() });
    expect(res.status).toBe(200);
    expect(res.body.kycStatus).toBe('PENDING');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYC_PENDING']);
  });

  it('a business decision reports kybStatus and emits CUSTOMER.KYB_*', async () => {
    const id = await createBusiness('R-001');
    const res = await t.api<Customer>(t.platform, 'POST', `/sandbox/customers/${id}/kyc-decision`, { status: 'APPROVED' }, { 'idempotency-key': newKey() });
    expect(res.status).toBe(200);
    expect(res.body.kybStatus).toBe('APPROVED');
    expect(res.body.kycStatus).toBeUndefined();
    expect((await statusOf(id)).kybStatus).toBe('APPROVED');
    expect(await eventTypesFor(id)).toEqual(['CUSTOMER.KYB_PENDING', 'CUSTOMER.KYB_APPROVED']);
  });

  it('refuses an unknown status naming status, and answers 404 and 410 for unknown and deleted customers', async () => {
    const id = await createIndividual('Vic Validation 003');
    for (const status of ['UNVERIFIED', 'approved', 'DONE']) {
      const res = await t.api(t.platform, 'POST', `/sandbox/customers/${id}/kyc-decision`, { status });
      expect(res.status).toBe(400);
      expect((expectErrorShape(res).details!.errors as { field: string }[]).map((e) => e.field)).toEqual(['status']);
    }
    expect((await statusOf(id)).kycStatus).toBe('UNVERIFIED');

    const unknown = await t.api(t.platform, 'POST', '/sandbox/customers/Customer:01a20061-044a-7399-9737-e82f3a74e590/kyc-decision', { status: 'APPROVED' });
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('USER_NOT_FOUND');
    expect((await t.api(t.platform, 'DELETE', `/customers/${id}`)).status).toBe(200);
    const deleted = await t.api(t.platform, 'POST', `/sandbox/customers/${id}/kyc-decision`, { status: 'APPROVED' });
    expect(deleted.status).toBe(410);
    expect(expectErrorShape(deleted).code).toBe('CUSTOMER_DELETED');
  });
});

describe('link secrecy', () => {
  it('the token is stored only as a hash and never shows up in customer reads or events', async () => {
    const id = await createIndividual('Tess Token 003');
    const link = await createLink(id);
    const token = tokenOf(link.kycUrl);

    const rows = await t.database.db.selectFrom('kyc_links').selectAll().where('customer_id', '=', id as CustomerId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toBe(token);
    expect(rows[0]!.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(rows)).not.toContain(token);

    expect((await hosted('POST', link.kycUrl, { fullName: 'Tess Approved' })).status).toBe(303);
    const reads = [
      await t.api(t.platform, 'GET', `/customers/${id}`),
      await t.api(t.platform, 'GET', '/customers?limit=100'),
      await t.api(t.platform, 'GET', `/customers?isIncludingDeleted=true&limit=100`),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(token);
      expect(read.text).not.toContain('/hosted/kyc/');
    }
    const events = await listEvents(t.database.db, t.platform.id);
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain('/hosted/kyc/');
  });
});

describe('production without an external provider', () => {
  it('links report MANUAL_REVIEW and a submission waits as PENDING for an operator', async () => {
    const prod = await createTestApp({ MONETA_MODE: 'production', DATABASE_URL: 'postgres://unused.invalid/none', MONETA_ENCRYPTION_KEY: 'a'.repeat(64) });
    try {
      const created = await prod.api<Customer>(prod.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Paula Production' });
      expect(created.status).toBe(201);
      expect(created.body.kycStatus).toBe('UNVERIFIED');
      const res = await prod.api<KycLink>(prod.platform, 'POST', `/customers/${created.body.id}/kyc-link`, { redirectUri: REDIRECT }, { 'idempotency-key': newKey() });
      expect(res.status).toBe(201);
      expect(res.body.provider).toBe('MANUAL_REVIEW');
      const page = await prod.app.inject({ method: 'GET', url: new URL(res.body.kycUrl).pathname });
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('Sandbox');
      const submit = await prod.app.inject({
        method: 'POST',
        url: new URL(res.body.kycUrl).pathname,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'fullName=Paula+Production',
      });
      expect(submit.statusCode).toBe(303);
      expect((await prod.api<Customer>(prod.platform, 'GET', `/customers/${created.body.id}`)).body.kycStatus).toBe('PENDING');
      const events = await listEvents(prod.database.db, prod.platform.id);
      expect(events.map((e) => e.type)).toEqual(['CUSTOMER.KYC_PENDING']);
      const sandboxRoute = await prod.api(prod.platform, 'POST', `/sandbox/customers/${created.body.id}/kyc-decision`, { status: 'APPROVED' });
      expect(sandboxRoute.status).toBe(404);
    } finally {
      await prod.close();
    }
  });
});
