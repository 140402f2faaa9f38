import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { PERSONAL_INFO } from './fixtures.js';

interface Owner {
  id: string;
  customerId: string;
  roles: string[];
  ownershipPercentage: number;
  personalInfo: Record<string, unknown> & { identifier: string; address: Record<string, unknown> };
  kycStatus: string;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function business(who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<{ id: string }>(who, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: { legalName: 'Acme Owners', country: 'US', taxId: '47-7654321' } });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function addOwner(customerId: string, overrides: Record<string, unknown> = {}, who: TestPlatform = t.platform) {
  return t.api<Owner>(who, 'POST', '/beneficial-owners', { customerId, roles: ['UBO'], ownershipPercentage: 40, personalInfo: PERSONAL_INFO, ...overrides });
}

describe('beneficial owners', () => {
  it('adds an owner to a business, gets it back and lists it, with the identifier masked', async () => {
    const customerId = await business();
    const created = await addOwner(customerId);
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^BeneficialOwner:/);
    expect(created.body).toMatchObject({ customerId, roles: ['UBO'], ownershipPercentage: 40, kycStatus: 'APPROVED' });
    expect(created.body.personalInfo).toMatchObject({ firstName: 'Olivia', lastName: 'Owner', birthDate: '1980-04-02', idType: 'SSN', identifier: '*******6789' });
    expect(JSON.stringify(created.body)).not.toContain('123-45');

    const got = await t.api<Owner>(t.platform, 'GET', `/beneficial-owners/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const second = await addOwner(customerId, { roles: ['DIRECTOR'], ownershipPercentage: 0 });
    const page = await t.api<Page<Owner>>(t.platform, 'GET', `/beneficial-owners?customerId=${customerId}&limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((o) => o.id)).toEqual([second.body.id]);
    expect(page.body.hasMore).toBe(true);
    expect(page.body.totalCount).toBe(2);
    const next = await t.api<Page<Owner>>(t.platform, 'GET', `/beneficial-owners?customerId=${customerId}&limit=1&cursor=${page.body.nextCursor}`);
    expect(next.body.data.map((o) => o.id)).toEqual([created.body.id]);
    expect(next.body.hasMore).toBe(false);
  });

  it("decides an owner's KYC by the sandbox suffix of their name", async () => {
    const customerId = await business();
    const rejected = await addOwner(customerId, { ownershipPercentage: 10, personalInfo: { ...PERSONAL_INFO, lastName: 'Owner 002' } });
    expect(rejected.body.kycStatus).toBe('REJECTED');
    const pending = await addOwner(customerId, { ownershipPercentage: 10, personalInfo: { ...PERSONAL_INFO, lastName: 'Owner 001' } });
    expect(pending.body.kycStatus).toBe('PENDING');
  });

  it('PATCH changes only the fields sent', async () => {
    const customerId = await business();
    const created = await addOwner(customerId);
    const patched = await t.api<Owner>(t.platform, 'PATCH', `/beneficial-owners/${created.body.id}`, { personalInfo: { middleName: 'Q', identifier: '987-65-4321' } });
    expect(patched.status).toBe(200);
    expect(patched.body.roles).toEqual(['UBO']);
    expect(patched.body.ownershipPercentage).toBe(40);
    expect(patched.body.personalInfo).toEqual({ ...created.body.personalInfo, middleName: 'Q', identifier: '*******4321' });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));

    const roles = await t.api<Owner>(t.platform, 'PATCH', `/beneficial-owners/${created.body.id}`, { roles: ['DIRECTOR', 'CONTROL_PERSON'], ownershipPercentage: 25 });
    expect(roles.body).toMatchObject({ roles: ['DIRECTOR', 'CONTROL_PERSON'], ownershipPercentage: 25 });
    expect(roles.body.personalInfo).toEqual(patched.body.personalInfo);

    const address = { line1: '9 New Rd', postalCode: '10001', country: 'US' };
    const moved = await t.api<Owner>(t.platform, 'PATCH', `/beneficial-owners/${created.body.id}`, { personalInfo: { address } });
    expect(moved.body.personalInfo.address).toEqual(address);
    expect(moved.body.personalInfo.firstName).toBe('Olivia');
  });

  it('refuses bad input listing every invalid field, and stores nothing', async () => {
    const customerId = await business();
    const res = await t.api(t.platform, 'POST', '/beneficial-owners', {
      customerId,
      roles: ['OWNER'],
      ownershipPercentage: 101,
      personalInfo: { ...PERSONAL_INFO, birthDate: '02/04/1980', nationality: 'XX', phoneNumber: '555' },
    });
    expect(errorOf(res)).toBe('INVALID_INPUT');
    const fields = ((res.body as { details: { errors: { field: string }[] } }).details.errors).map((e) => e.field).sort();
    expect(fields).toEqual(['ownershipPercentage', 'personalInfo.birthDate', 'personalInfo.nationality', 'personalInfo.phoneNumber', 'roles.0'].sort());
    const missing = await t.api(t.platform, 'POST', '/beneficial-owners', { customerId, roles: ['UBO'], ownershipPercentage: 10, personalInfo: { firstName: 'A' } });
    expect(errorOf(missing)).toBe('INVALID_INPUT');
    const list = await t.api<Page<Owner>>(t.platform, 'GET', `/beneficial-owners?customerId=${customerId}`);
    expect(list.body.data).toEqual([]);
  });

  it('refuses owners of an individual, owners past 100% together, and unknown customers and owners', async () => {
    const individual = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ivy Individual' });
    expect(errorOf(await addOwner(individual.body.id))).toBe('INVALID_INPUT');

    const customerId = await business();
    expect((await addOwner(customerId, { ownershipPercentage: 60 })).status).toBe(201);
    const over = await addOwner(customerId, { ownershipPercentage: 41 });
    expect(errorOf(over)).toBe('INVALID_INPUT');
    const owner = await addOwner(customerId, { ownershipPercentage: 40 });
    expect(owner.status).toBe(201);
    expect(errorOf(await t.api(t.platform, 'PATCH', `/beneficial-owners/${owner.body.id}`, { ownershipPercentage: 41 }))).toBe('INVALID_INPUT');

    const deleted = await business();
    await t.api(t.platform, 'DELETE', `/customers/${deleted}`);
    expect(errorOf(await addOwner(deleted))).toBe('CUSTOMER_DELETED');

    const unknownCustomer = 'Customer:01a20061-044a-7399-9737-e82f3a74e590';
    expect(errorOf(await addOwner(unknownCustomer))).toBe('USER_NOT_FOUND');
    expect(errorOf(await t.api(t.platform, 'GET', `/beneficial-owners?customerId=${unknownCustomer}`))).toBe('USER_NOT_FOUND');
    expect(errorOf(await t.api(t.platform, 'GET', '/beneficial-owners'))).toBe('INVALID_INPUT');
    const unknownOwner = 'BeneficialOwner:01a20061-044a-7399-9737-e82f3a74e590';
    expect(errorOf(await t.api(t.platform, 'GET', `/beneficial-owners/${unknownOwner}`))).toBe('REFERENCE_NOT_FOUND BENEFICIAL_OWNER_NOT_FOUND');
    expect(errorOf(await t.api(t.platform, 'PATCH', `/beneficial-owners/${unknownOwner}`, { roles: ['UBO'] }))).toBe('REFERENCE_NOT_FOUND BENEFICIAL_OWNER_NOT_FOUND');
  });

  it('another platform can neither see nor change an owner, nor add one to a business it does not have', async () => {
    const other = await t.newPlatform('Other');
    const customerId = await business();
    const owner = await addOwner(customerId, { ownershipPercentage: 5 });
    expect(errorOf(await t.api(other, 'GET', `/beneficial-owners/${owner.body.id}`))).toBe('REFERENCE_NOT_FOUND BENEFICIAL_OWNER_NOT_FOUND');
    expect(errorOf(await t.api(other, 'PATCH', `/beneficial-owners/${owner.body.id}`, { ownershipPercentage: 1 }))).toBe('REFERENCE_NOT_FOUND BENEFICIAL_OWNER_NOT_FOUND');
    expect(errorOf(await t.api(other, 'GET', `/beneficial-owners?customerId=${customerId}`))).toBe('USER_NOT_FOUND');
    expect(errorOf(await addOwner(customerId, {}, other))).toBe('USER_NOT_FOUND');
    const still = await t.api<Owner>(t.platform, 'GET', `/beneficial-owners/${owner.body.id}`);
    expect(still.body.ownershipPercentage).toBe(5);
  });
});
