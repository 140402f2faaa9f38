import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import type { ApiError, Customer, List } from '../../../../../test/wire-types.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('customers', () => {
  it('creating an individual returns 201 with an id, and the sandbox approves an ordinary name at once', async () => {
    const res = await t.api<Customer>(t.platform, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      platformCustomerId: 'ind-1',
      region: 'US',
      currencies: ['USD', 'USDC'],
      fullName: 'Jane Smith',
      birthDate: '1990-01-15',
      nationality: 'US',
      email: 'jane@example.com',
      phoneNumber: '+14155551234',
      address: { line1: '1 Main St', postalCode: '98101', country: 'US' },
    });
    expect(res.status).toBe(201);
    expect(res.body.id).toMatch(/^Customer:[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({ platformCustomerId: 'ind-1', customerType: 'INDIVIDUAL', kycStatus: 'APPROVED', currencies: ['USD', 'USDC'], isDeleted: false });
    expect(res.body.umaAddress).toBe('$ind-1@moneta.local');
    const events = await listEvents(t.database.db, t.platform.id, 'CUSTOMER.KYC_APPROVED');
    expect(events.map((e) => (e.data as { id: string }).id)).toContain(res.body.id);
    expect(events[0]!.id).toMatch(/^Webhook:/);
  });

  it.each([
    ['Pat Pending 001', 'PENDING', 'CUSTOMER.KYC_PENDING'],
    ['Rex Rejected 002', 'REJECTED', 'CUSTOMER.KYC_REJECTED'],
    ['Una Unverified 003', 'UNVERIFIED', undefined],
  ])('the sandbox suffix of fullName "%s" decides %s at creation', async (fullName, status, eventType) => {
    const res = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName });
    expect(res.status).toBe(201);
    expect(res.body.kycStatus).toBe(status);
    const events = await listEvents(t.database.db, t.platform.id);
    const mine = events.filter((e) => (e.data as { id: string }).id === res.body.id).map((e) => e.type);
    expect(mine).toEqual(eventType ? [eventType] : []);
  });

  it('a business is decided on its registration number and reports kybStatus', async () => {
    const businessInfo = { legalName: 'Acme', country: 'US', taxId: '47-1234567', incorporatedOn: '2018-03-14', registrationNumber: 'R-002' };
    const rejected = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo });
    expect(rejected.status).toBe(201);
    expect(rejected.body.kybStatus).toBe('REJECTED');
    expect(rejected.body.kycStatus).toBeUndefined();
    const approved = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: { ...businessInfo, registrationNumber: '5523041' } });
    expect(approved.body.kybStatus).toBe('APPROVED');
    expect(approved.body.businessInfo!.legalName).toBe('Acme');
  });

  it('lists every invalid field at once and writes nothing', async () => {
    const before = await t.api<List<Customer>>(t.platform, 'GET', '/customers?limit=1');
    const res = await t.api(t.platform, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      region: 'XX',
      email: 'not-an-email',
      phoneNumber: '555',
      currencies: ['USD', 'ZZZ'],
      birthDate: '1990-13-45',
      unknownField: true,
    });
    expect(res.status).toBe(400);
    const error = expectErrorShape(res);
    expect(error.code).toBe('INVALID_INPUT');
    const fields = (error.details!.errors as { field: string; constraint?: Record<string, unknown> }[]).map((e) => e.field).sort();
    expect(fields).toEqual(['birthDate', 'currencies.1', 'email', 'phoneNumber', 'region', 'unknownField'].sort());
    const byField = Object.fromEntries((error.details!.errors as { field: string; constraint?: unknown }[]).map((e) => [e.field, e.constraint]));
    expect(byField.email).toEqual({ format: 'email' });
    expect(byField.region).toEqual({ format: 'country-code' });
    expect(byField.phoneNumber).toEqual({ pattern: '^\\+[1-9]\\d{1,14}$' });
    expect((byField['currencies.1'] as { enum: string[] }).enum).toContain('USD');
    const after = await t.api<List<Customer>>(t.platform, 'GET', '/customers?limit=1');
    expect(after.body.totalCount).toBe(before.body.totalCount);
  });

  it('a business without businessInfo, or an individual with it, is refused naming the field', async () => {
    const business = await t.api<ApiError>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', fullName: 'x' });
    expect(business.status).toBe(400);
    expect(business.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['businessInfo', 'fullName']);
    const individual = await t.api<ApiError>(t.platform, 'POST', '/customers', {
      customerType: 'INDIVIDUAL',
      businessInfo: { legalName: 'x', taxId: '1', incorporatedOn: '2020-01-01' },
    });
    expect(individual.status).toBe(400);
    expect(individual.body.details!.errors!.map((e: { field: string }) => e.field)).toEqual(['businessInfo']);
  });

  it('a duplicate platformCustomerId is refused with 409 and the existing record is untouched', async () => {
    const first = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1', fullName: 'A' });
    expect(first.status).toBe(201);
    const second = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'dup-1', fullName: 'B' });
    expect(second.status).toBe(409);
    expect(expectErrorShape(second).code).toBe('CONFLICT');
    const list = await t.api<List<Customer>>(t.platform, 'GET', '/customers?platformCustomerId=dup-1');
    expect(list.body.data.map((c) => c.fullName)).toEqual(['A']);
  });

  it('gets, patches and deletes; a deleted customer answers 410 CUSTOMER_DELETED', async () => {
    const created = await t.api<Customer>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Pat Patch', email: 'a@example.com' });
    const id = created.body.id;
    const got = await t.api(t.platform, 'GET', `/customers/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const patched = await t.api<Customer>(t.platform, 'PATCH', `/customers/${id}`, { customerType: 'INDIVIDUAL', email: 'b@example.com', address: { line1: '2 Side St', postalCode: '10001', country: 'US' } });
    expect(patched.status).toBe(200);
    expect(patched.body.email).toBe('b@example.com');
    expect(patched.body.fullName).toBe('Pat Patch');
    expect(patched.body.address!.line1).toBe('2 Side St');

    const bad = await t.api<ApiError>(t.platform, 'PATCH', `/customers/${id}`, { customerType: 'BUSINESS', email: 'x@example.com', phoneNumber: '+14155550000' });
    expect(bad.status).toBe(400);
    expect(bad.body.details!.errors!.map((e: { field: string }) => e.field).sort()).toEqual(['customerType', 'email', 'phoneNumber']);

    const deleted = await t.api<Customer>(t.platform, 'DELETE', `/customers/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.isDeleted).toBe(true);
    for (const [method, body] of [['GET', undefined], ['PATCH', { customerType: 'INDIVIDUAL', fullName: 'Z' }], ['DELETE', undefined]] as const) {
      const res = await t.api(t.platform, method, `/customers/${id}`, body);
      expect(res.status).toBe(410);
      expect(expectErrorShape(res).code).toBe('CUSTOMER_DELETED');
    }
    const listed = await t.api<List<Customer>>(t.platform, 'GET', `/customers?isIncludingDeleted=true&limit=100`);
    expect(listed.body.data.some((c: { id: string; isDeleted: boolean }) => c.id === id && c.isDeleted)).toBe(true);
    const hidden = await t.api<List<Customer>>(t.platform, 'GET', `/customers?limit=100`);
    expect(hidden.body.data.some((c: { id: string }) => c.id === id)).toBe(false);
  });

  it('an unknown or malformed id gets 404 USER_NOT_FOUND or 400', async () => {
    const unknown = await t.api(t.platform, 'GET', '/customers/Customer:01a20061-044a-7399-9737-e82f3a74e590');
    expect(unknown.status).toBe(404);
    expect(expectErrorShape(unknown).code).toBe('USER_NOT_FOUND');
    const malformed = await t.api<ApiError>(t.platform, 'GET', '/customers/not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.details!.errors![0]!.field).toBe('customerId');
  });

  it('lists with filters and pages with a cursor, newest first by default', async () => {
    const p = await t.newPlatform('list platform');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await t.api<Customer>(p, 'POST', '/customers', { customerType: i % 2 ? 'BUSINESS' : 'INDIVIDUAL', platformCustomerId: `list-${i}`, region: i < 3 ? 'MX' : 'US', currencies: i === 4 ? ['MXN'] : ['USD'], ...(i % 2 ? { businessInfo: { legalName: `B${i}`, taxId: '1', incorporatedOn: '2020-01-01' } } : { fullName: `Person ${i}` }) });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const page1 = await t.api<List<Customer>>(p, 'GET', '/customers?limit=2');
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body).toMatchObject({ hasMore: true, totalCount: 5 });
    const page2 = await t.api<List<Customer>>(p, 'GET', `/customers?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
    const page3 = await t.api<List<Customer>>(p, 'GET', `/customers?limit=2&cursor=${page2.body.nextCursor}`);
    expect(page3.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect(page3.body.hasMore).toBe(false);
    expect(page3.body.nextCursor).toBeUndefined();
    const asc = await t.api<List<Customer>>(p, 'GET', '/customers?sortOrder=asc&limit=1');
    expect(asc.body.data[0]!.id).toBe(ids[0]);

    expect((await t.api<List<Customer>>(p, 'GET', '/customers?customerType=BUSINESS')).body.totalCount).toBe(2);
    expect((await t.api<List<Customer>>(p, 'GET', '/customers?region=MX')).body.totalCount).toBe(3);
    expect((await t.api<List<Customer>>(p, 'GET', '/customers?currency=MXN')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[4]]);
    expect((await t.api<List<Customer>>(p, 'GET', '/customers?kycStatus=APPROVED')).body.totalCount).toBe(3);
    expect((await t.api<List<Customer>>(p, 'GET', `/customers?createdAfter=${encodeURIComponent('2999-01-01T00:00:00Z')}`)).body.totalCount).toBe(0);
    const badCursor = await t.api(p, 'GET', '/customers?cursor=garbage');
    expect(badCursor.status).toBe(400);
    const badLimit = await t.api<ApiError>(p, 'GET', '/customers?limit=500');
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.details!.errors![0]!.field).toBe('limit');
  });
});
