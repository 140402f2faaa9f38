import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { listEvents } from '../../core/outbox.js';
import { PERSONAL_INFO } from '../beneficial-owners/fixtures.js';
import { TINY_PDF } from '../documents/fixtures.js';

interface VerificationError {
  resourceId: string;
  type: string;
  field?: string;
  acceptedDocumentTypes?: string[];
  reason: string;
}
interface Verification {
  id: string;
  customerId: string;
  verificationStatus: string;
  errors: VerificationError[];
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  totalCount: number;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const ADDRESS = { line1: '500 Howard St', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' };

async function createBusiness(registrationNumber: string, complete = true, who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<{ id: string }>(who, 'POST', '/customers', {
    customerType: 'BUSINESS',
    ...(complete ? { address: ADDRESS } : {}),
    businessInfo: { legalName: 'Verified Widgets Inc', country: 'US', taxId: '47-1234567', registrationNumber, ...(complete ? { countriesOfOperation: ['US'] } : {}) },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function addDocument(holder: string, documentType: string, who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<{ id: string }>(who, 'POST', '/documents', { documentHolder: holder, documentType, country: 'US', fileName: `${documentType.toLowerCase()}.pdf`, file: Buffer.from(TINY_PDF).toString('base64') });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

async function addOwner(customerId: string, roles: string[], nationality = 'US', who: TestPlatform = t.platform): Promise<string> {
  const res = await t.api<{ id: string }>(who, 'POST', '/beneficial-owners', { customerId, roles, ownershipPercentage: 50, personalInfo: { ...PERSONAL_INFO, nationality } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/** A business with every field, owner and document the checklist asks for. */
async function completeBusiness(registrationNumber: string, who: TestPlatform = t.platform): Promise<{ customerId: string; documentIds: string[] }> {
  const customerId = await createBusiness(registrationNumber, true, who);
  const owner = await addOwner(customerId, ['UBO', 'CONTROL_PERSON'], 'US', who);
  const documentIds = [
    await addDocument(customerId, 'CERTIFICATE_OF_INCORPORATION', who),
    await addDocument(customerId, 'SHAREHOLDER_REGISTER', who),
    await addDocument(customerId, 'UTILITY_BILL', who),
    await addDocument(owner, 'PASSPORT', who),
  ];
  return { customerId, documentIds };
}

async function submit(customerId: string, who: TestPlatform = t.platform) {
  return t.api<Verification>(who, 'POST', '/verifications', { customerId });
}

async function customerStatus(customerId: string): Promise<string | undefined> {
  const res = await t.api<{ kycStatus?: string; kybStatus?: string }>(t.platform, 'GET', `/customers/${customerId}`);
  return res.body.kybStatus ?? res.body.kycStatus;
}

async function eventsFor(id: string): Promise<string[]> {
  const events = await listEvents(t.database.db, t.platform.id);
  return events.filter((e) => (e.data as { id?: string; customerId?: string }).id === id || (e.data as { customerId?: string }).customerId === id).map((e) => e.type);
}

/** The review's delay passes on the platform's clock and the worker runs what is due. */
async function reviewTimePasses(who: TestPlatform = t.platform): Promise<void> {
  const res = await t.api(who, 'POST', '/sandbox/clock/advance', { seconds: 11 });
  expect(res.status).toBe(200);
  await t.container.jobs.runDue();
}

describe('KYB verification', () => {
  it('lists every missing field, owner and document at once, then, resolved, moves through review to APPROVED with the webhooks', async () => {
    const customerId = await createBusiness('REG-777', false);
    const first = await submit(customerId);
    expect(first.status, first.text).toBe(200);
    expect(first.body.verificationStatus).toBe('RESOLVE_ERRORS');
    const found = first.body.errors.map((e) => `${e.type}${e.field ? ` ${e.field}` : ''}`).sort();
    expect(found).toEqual(
      [
        'MISSING_BENEFICIAL_OWNER',
        'MISSING_CONTROL_PERSON',
        'MISSING_FIELD customer.address.country',
        'MISSING_FIELD customer.address.line1',
        'MISSING_FIELD customer.address.postalCode',
        'MISSING_FIELD customer.businessInfo.countriesOfOperation',
        'MISSING_LEGAL_PRESENCE_DOCUMENT',
        'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
        'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
      ].sort(),
    );
    expect(first.body.errors.every((e) => e.resourceId === customerId)).toBe(true);
    expect(first.body.errors.find((e) => e.type === 'MISSING_PROOF_OF_ADDRESS_DOCUMENT')!.acceptedDocumentTypes).toContain('PROOF_OF_ADDRESS');
    expect(await customerStatus(customerId)).toBe('UNVERIFIED');

    // Resolve part of it: the owner is foreign and has only a passport, and no control person yet.
    const patched = await t.api(t.platform, 'PATCH', `/customers/${customerId}`, { customerType: 'BUSINESS', address: ADDRESS, businessInfo: { countriesOfOperation: ['US', 'MX'] } });
    expect(patched.status, patched.text).toBe(200);
    const owner = await addOwner(customerId, ['UBO'], 'DE');
    await addDocument(owner, 'PASSPORT');
    const documentIds = [await addDocument(customerId, 'ARTICLES_OF_INCORPORATION'), await addDocument(customerId, 'SHAREHOLDER_REGISTER'), await addDocument(customerId, 'BANK_STATEMENT')];
    const second = await submit(customerId);
    expect(second.body.verificationStatus).toBe('RESOLVE_ERRORS');
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.errors.map((e) => [e.resourceId, e.type])).toEqual([
      [customerId, 'MISSING_CONTROL_PERSON'],
      [owner, 'MISSING_IDENTITY_DOCUMENT'],
    ]);

    await t.api(t.platform, 'PATCH', `/beneficial-owners/${owner}`, { roles: ['UBO', 'CONTROL_PERSON'] });
    await addDocument(owner, 'NATIONAL_ID');
    const third = await submit(customerId);
    expect(third.body).toMatchObject({ customerId, verificationStatus: 'IN_PROGRESS', errors: [] });
    expect(await customerStatus(customerId)).toBe('PENDING');

    // In review: a repeated POST answers the same verification, and its documents stay.
    expect((await submit(customerId)).body.id).toBe(third.body.id);
    expect(errorOf(await t.api(t.platform, 'DELETE', `/documents/${documentIds[0]}`))).toBe('CONFLICT DOCUMENT_SUBMITTED');

    await reviewTimePasses();
    const decided = await t.api<Verification>(t.platform, 'GET', `/verifications/${third.body.id}`);
    expect(decided.body.verificationStatus).toBe('APPROVED');
    expect(await customerStatus(customerId)).toBe('APPROVED');
    expect(await eventsFor(customerId)).toEqual([
      'VERIFICATION.RESOLVE_ERRORS',
      'VERIFICATION.RESOLVE_ERRORS',
      'VERIFICATION.IN_PROGRESS',
      'CUSTOMER.KYB_PENDING',
      'VERIFICATION.APPROVED',
      'CUSTOMER.KYB_APPROVED',
    ]);
  });

  it('the sandbox decides by the registration number’s suffix: 002 REJECTED after review, 001 and 004 wait for manual review', async () => {
    const rejected = await completeBusiness('REG-002');
    const inReview = await submit(rejected.customerId);
    expect(inReview.body.verificationStatus).toBe('IN_PROGRESS');
    const manual = await completeBusiness('REG-001');
    expect((await submit(manual.customerId)).body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    const hold = await completeBusiness('REG-004');
    expect((await submit(hold.customerId)).body.verificationStatus).toBe('PENDING_MANUAL_REVIEW');
    expect(await customerStatus(hold.customerId)).toBe('HOLD');

    await reviewTimePasses();
    expect((await t.api<Verification>(t.platform, 'GET', `/verifications/${inReview.body.id}`)).body.verificationStatus).toBe('REJECTED');
    expect(await customerStatus(rejected.customerId)).toBe('REJECTED');
    expect(await eventsFor(rejected.customerId)).toEqual(['VERIFICATION.IN_PROGRESS', 'CUSTOMER.KYB_PENDING', 'VERIFICATION.REJECTED', 'CUSTOMER.KYB_REJECTED']);
    expect(await customerStatus(manual.customerId)).toBe('PENDING');
    expect(await eventsFor(manual.customerId)).toEqual(['VERIFICATION.PENDING_MANUAL_REVIEW', 'CUSTOMER.KYB_PENDING']);
  });

  it('an owner whose KYC was rejected is an error on that owner', async () => {
    const { customerId } = await completeBusiness('REG-900');
    const res = await t.api<{ id: string }>(t.platform, 'POST', '/beneficial-owners', { customerId, roles: ['DIRECTOR'], ownershipPercentage: 0, personalInfo: { ...PERSONAL_INFO, lastName: 'Owner 002' } });
    await addDocument(res.body.id, 'DRIVERS_LICENSE');
    const verification = await submit(customerId);
    expect(verification.body.errors).toEqual([expect.objectContaining({ resourceId: res.body.id, type: 'APPLICANT_REJECTED' })]);
  });
});

describe('KYC verification of an individual', () => {
  it('needs the person’s details and an identity document, then is decided with CUSTOMER.KYC_* events', async () => {
    const created = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Ines Individual 003' });
    const customerId = created.body.id;
    const missing = await submit(customerId);
    expect(missing.body.errors.map((e) => e.field ?? e.type).sort()).toEqual(['MISSING_IDENTITY_DOCUMENT', 'customer.address.country', 'customer.address.line1', 'customer.address.postalCode', 'customer.birthDate', 'customer.nationality'].sort());
    await t.api(t.platform, 'PATCH', `/customers/${customerId}`, { customerType: 'INDIVIDUAL', fullName: 'Ines Individual', birthDate: '1991-02-03', nationality: 'US', address: ADDRESS });
    await addDocument(customerId, 'DRIVERS_LICENSE');
    const submitted = await submit(customerId);
    expect(submitted.body.verificationStatus).toBe('IN_PROGRESS');
    await reviewTimePasses();
    expect(await customerStatus(customerId)).toBe('APPROVED');
    expect((await eventsFor(customerId)).filter((type) => type.startsWith('CUSTOMER.'))).toEqual(['CUSTOMER.KYC_PENDING', 'CUSTOMER.KYC_APPROVED']);
  });
});

describe('verification errors, lists and other platforms', () => {
  it('answers 404 for an unknown customer or verification, 410 for a deleted customer, 400 for a bad id', async () => {
    expect(errorOf(await submit('Customer:01a20061-044a-7399-9737-e82f3a74e590'))).toBe('USER_NOT_FOUND');
    expect(errorOf(await t.api(t.platform, 'POST', '/verifications', { customerId: 'nope' }))).toBe('INVALID_INPUT');
    expect(errorOf(await t.api(t.platform, 'POST', '/verifications', {}))).toBe('INVALID_INPUT');
    expect(errorOf(await t.api(t.platform, 'GET', '/verifications/Verification:01a20061-044a-7399-9737-e82f3a74e590'))).toBe('REFERENCE_NOT_FOUND VERIFICATION_NOT_FOUND');
    const gone = await createBusiness('REG-410');
    await t.api(t.platform, 'DELETE', `/customers/${gone}`);
    expect(errorOf(await submit(gone))).toBe('CUSTOMER_DELETED');
  });

  it('lists by customer and by status', async () => {
    const customerId = await createBusiness('REG-555', false);
    const a = await submit(customerId);
    const b = await submit(customerId);
    const mine = await t.api<Page<Verification>>(t.platform, 'GET', `/verifications?customerId=${customerId}`);
    expect(mine.body.data.map((v) => v.id)).toEqual([b.body.id, a.body.id]);
    const resolve = await t.api<Page<Verification>>(t.platform, 'GET', `/verifications?verificationStatus=RESOLVE_ERRORS&limit=100`);
    expect(resolve.body.data.every((v) => v.verificationStatus === 'RESOLVE_ERRORS')).toBe(true);
    expect(resolve.body.data.map((v) => v.id)).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    const approved = await t.api<Page<Verification>>(t.platform, 'GET', `/verifications?customerId=${customerId}&verificationStatus=APPROVED`);
    expect(approved.body).toMatchObject({ data: [], totalCount: 0 });
  });

  it('another platform cannot see a verification, submit for a customer it does not have, or list them', async () => {
    const other = await t.newPlatform('Other verifications platform');
    const customerId = await createBusiness('REG-321', false);
    const mine = await submit(customerId);
    expect(errorOf(await t.api(other, 'GET', `/verifications/${mine.body.id}`))).toBe('REFERENCE_NOT_FOUND VERIFICATION_NOT_FOUND');
    expect(errorOf(await submit(customerId, other))).toBe('USER_NOT_FOUND');
    const list = await t.api<Page<Verification>>(other, 'GET', `/verifications?customerId=${customerId}`);
    expect(list.body.data).toEqual([]);
  });
});
