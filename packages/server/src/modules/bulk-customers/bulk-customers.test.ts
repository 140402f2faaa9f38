import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, expectErrorShape, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { checkConformance } from '../../../../../test/conformance/hook.js';
import { checkDeclaredError } from '../../../../../test/declared-errors.js';
import { API_PREFIX } from '../../config.js';
import { listEvents } from '../../core/outbox.js';
import { runUnitOfWork } from '../../core/unit-of-work.js';
import type { JobId } from '../../core/ids.js';

interface Accepted {
  jobId: string;
  status: string;
}
interface ErrorEntry {
  correlationId: string;
  code: string;
  message: string;
  details: { line: number; reason?: string; errors?: { field: string; message?: string }[] };
}
interface Job {
  id: string;
  status: string;
  progress: { total: number; processed: number; successful: number; failed: number };
  errors?: ErrorEntry[];
  completedAt?: string;
}
interface Customer {
  id: string;
  platformCustomerId: string;
  customerType: string;
  umaAddress: string;
  fullName?: string;
  birthDate?: string;
  email?: string;
  address?: Record<string, string>;
  businessInfo?: Record<string, string>;
}

const HEADER = 'umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,email,businessLegalName,businessRegistrationNumber,businessTaxId,platformAccountId,description';
const BOUNDARY = '----moneta-bulk-boundary';

function person(id: string, overrides: Partial<Record<'name' | 'birth' | 'country' | 'email', string>> = {}): string {
  return `${id}@uma.example.com,${id},INDIVIDUAL,${overrides.name ?? `Person ${id}`},${overrides.birth ?? '1990-01-15'},1 Main St,,Seattle,WA,98101,${overrides.country ?? 'US'},${overrides.email ?? `${id}@example.com`},,,,acct-${id},imported`;
}
function business(id: string, taxId = '12-3456789'): string {
  return `$${id}@uma.example.com,${id},BUSINESS,,,400 Commerce Way,Suite 5,Austin,TX,78701,US,,"${id} Holdings, Inc.",REG-${id},${taxId},,`;
}
const csv = (rows: string[], header = HEADER) => `${header}\n${rows.join('\n')}\n`;

function multipart(content: Buffer | string, fileName = 'customers.csv', fields: Record<string, string> = {}): Buffer {
  const pieces: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`));
  pieces.push(Buffer.from(content), Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

async function send<T>(app: TestApp, who: TestPlatform, payload: Buffer, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
  const url = `${API_PREFIX}/customers/bulk/csv`;
  const response = await app.app.inject({ method: 'POST', url, headers: { authorization: who.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, ...headers }, payload });
  const body = response.body ? (JSON.parse(response.body) as unknown) : undefined;
  checkDeclaredError(app.routes, { method: 'POST', url }, { status: response.statusCode, body });
  await checkConformance({ method: 'POST', url, status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), body });
  return { status: response.statusCode, body: body as T, headers: response.headers, text: response.body };
}

async function upload(content: string, who: TestPlatform = t.platform, headers: Record<string, string> = {}, app: TestApp = t): Promise<string> {
  const res = await send<Accepted>(app, who, multipart(content), headers);
  expect(res.status, res.text).toBe(202);
  expect(res.body.status).toBe('PENDING');
  expect(res.body.jobId).toMatch(/^Job:/);
  return res.body.jobId;
}

async function job(jobId: string, who: TestPlatform = t.platform, app: TestApp = t): Promise<Job> {
  const res = await app.api<Job>(who, 'GET', `/customers/bulk/jobs/${jobId}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function finished(jobId: string, who: TestPlatform = t.platform, app: TestApp = t): Promise<Job> {
  await app.container.jobs.runDue();
  return job(jobId, who, app);
}

async function customersWith(platformCustomerId: string, who: TestPlatform = t.platform): Promise<Customer[]> {
  const res = await t.api<{ data: Customer[] }>(who, 'GET', `/customers?platformCustomerId=${encodeURIComponent(platformCustomerId)}`);
  return res.body.data;
}

async function customerCount(who: TestPlatform, app: TestApp = t): Promise<number> {
  const res = await app.api<{ totalCount: number }>(who, 'GET', '/customers?limit=1');
  return res.body.totalCount;
}

async function jobCount(app: TestApp, who: TestPlatform): Promise<number> {
  const row = await app.database.db.selectFrom('bulk_import_jobs').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).where('platform_id', '=', who.id).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('uploading customers as CSV', () => {
  it('creates every good row as POST /customers would and lists every bad row with its line and every reason', async () => {
    const existing = await t.api(t.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: 'mix-taken', fullName: 'Already Here' });
    expect(existing.status).toBe(201);
    const rows = [
      person('mix-ann'), // line 2
      business('mix-acme'), // 3
      `mix-noname@uma.example.com,mix-noname,INDIVIDUAL,,,1 Main St,,Seattle,WA,98101,US,,,,,,`, // 4: required cells empty
      person('mix-bad', { birth: '1990-13-45', country: 'XX', email: 'not-an-email' }), // 5: three invalid fields
      `mix-what@uma.example.com,mix-what,ROBOT,,,,,,,,,,,,,,`, // 6: unknown type
      business('mix-notax', ''), // 7: POST /customers requires businessInfo.taxId
      `mix-short@uma.example.com,mix-short,INDIVIDUAL`, // 8: too few cells
      person('mix-ann'), // 9: the same platformCustomerId twice in the file
      person('mix-taken'), // 10: an existing customer's platformCustomerId
      `,,,,,,,,,,,,,,,,`, // 11: nothing at all
      `"mix-quoted@uma.example.com","mix-quoted","INDIVIDUAL","Quinn ""Q"" Quoted","1985-06-30","1 Main St","Apt 2
(rear)","Seattle","WA","98101","US","","","","","",""`, // 12-13: quoted cells, one spanning two lines
    ];
    const jobId = await upload(csv(rows));
    const pending = await job(jobId);
    expect(pending.status).toBe('PENDING');
    expect(pending.progress.total).toBe(11);

    const done = await finished(jobId);
    expect(done).toMatchObject({ id: jobId, status: 'COMPLETED', progress: { total: 11, processed: 11, successful: 3, failed: 8 } });
    expect(done.completedAt).toBeDefined();
    const byLine = new Map(done.errors!.map((e) => [e.details.line, e]));
    expect([...byLine.keys()]).toEqual([4, 5, 6, 7, 8, 9, 10, 11]);
    const fields = (line: number) => byLine.get(line)!.details.errors?.map((e) => e.field).sort();
    expect(byLine.get(4)).toMatchObject({ correlationId: 'mix-noname', code: 'INVALID_INPUT' });
    expect(fields(4)).toEqual(['birthDate', 'fullName']);
    expect(fields(5)).toEqual(['birthDate', 'country', 'email']);
    expect(fields(6)).toContain('customerType');
    expect(byLine.get(7)).toMatchObject({ correlationId: 'mix-notax', code: 'INVALID_INPUT' });
    expect(fields(7)).toEqual(['businessTaxId']);
    expect(fields(8)).toEqual(['row']);
    expect(byLine.get(9)).toMatchObject({ correlationId: 'mix-ann', code: 'CONFLICT', details: { reason: 'PLATFORM_CUSTOMER_ID_TAKEN' } });
    expect(byLine.get(10)).toMatchObject({ correlationId: 'mix-taken', code: 'CONFLICT', details: { reason: 'PLATFORM_CUSTOMER_ID_TAKEN' } });
    expect(byLine.get(11)).toMatchObject({ correlationId: 'row_11', code: 'INVALID_INPUT' });
    expect(fields(11)).toEqual(['customerType', 'platformCustomerId', 'umaAddress']);

    const [ann] = await customersWith('mix-ann');
    expect(ann).toMatchObject({ customerType: 'INDIVIDUAL', umaAddress: '$mix-ann@uma.example.com', fullName: 'Person mix-ann', birthDate: '1990-01-15', email: 'mix-ann@example.com', address: { line1: '1 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US' } });
    const [acme] = await customersWith('mix-acme');
    expect(acme).toMatchObject({ customerType: 'BUSINESS', businessInfo: { legalName: 'mix-acme Holdings, Inc.', registrationNumber: 'REG-mix-acme', country: 'US' }, address: { line2: 'Suite 5' } });
    const [quoted] = await customersWith('mix-quoted');
    expect(quoted).toMatchObject({ fullName: 'Quinn "Q" Quoted', address: { line2: 'Apt 2\n(rear)' } });
    expect(await customersWith('mix-taken')).toHaveLength(1);
    for (const id of ['mix-noname', 'mix-bad', 'mix-what', 'mix-notax', 'mix-short']) expect(await customersWith(id)).toEqual([]);

    const completed = await listEvents(t.database.db, t.platform.id, 'BULK_UPLOAD.COMPLETED');
    expect(completed.map((e) => (e.data as Job).id)).toContain(jobId);
    expect(completed.find((e) => (e.data as Job).id === jobId)!.data).toMatchObject({ status: 'COMPLETED', progress: { successful: 3, failed: 8 } });
    // The customers' own events, as POST /customers sends them (the sandbox decides a named person at once).
    const kyc = await listEvents(t.database.db, t.platform.id);
    expect(kyc.filter((e) => e.type.startsWith('CUSTOMER.') && (e.data as Customer).platformCustomerId === 'mix-ann')).toHaveLength(1);
  });

  it('takes thousands of rows in batches, showing progress as each batch commits', async () => {
    const rows = Array.from({ length: 1234 }, (_, i) => (i % 10 === 9 ? person(`many-${i}`, { birth: 'yesterday' }) : i % 3 === 0 ? business(`many-${i}`) : person(`many-${i}`)));
    const jobId = await upload(csv(rows));
    const scope = { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const };
    await runUnitOfWork(t.database.db, scope, (uow) => t.container.bulkCustomers.runBatch(uow, jobId as JobId));
    const partway = await job(jobId);
    expect(partway).toMatchObject({ status: 'PROCESSING', progress: { total: 1234, processed: 500, successful: 450, failed: 50 } });
    expect(partway.completedAt).toBeUndefined();
    const done = await finished(jobId);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 1234, processed: 1234, successful: 1111, failed: 123 } });
    expect(done.errors).toHaveLength(123);
    expect(done.errors!.every((e) => e.details.errors?.[0]?.field === 'birthDate')).toBe(true);
    expect(done.errors!.map((e) => e.details.line)).toEqual(Array.from({ length: 123 }, (_, k) => 10 * k + 11));
    expect((await customersWith('many-1232'))[0]).toMatchObject({ customerType: 'INDIVIDUAL' });
    expect((await customersWith('many-996'))[0]).toMatchObject({ customerType: 'BUSINESS' });
    // Nothing stays staged once the job is done.
    const staged = await t.database.db.selectFrom('bulk_import_rows').select('line').where('job_id', '=', jobId as JobId).execute();
    expect(staged).toEqual([]);
  });

  it('resumes after a batch that never committed (a crash) from the last committed batch, creating nothing twice', async () => {
    const rows = Array.from({ length: 1100 }, (_, i) => person(`crash-${i}`));
    const jobId = await upload(csv(rows));
    const scope = { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const };
    await runUnitOfWork(t.database.db, scope, (uow) => t.container.bulkCustomers.runBatch(uow, jobId as JobId));
    await expect(
      runUnitOfWork(t.database.db, scope, async (uow) => {
        await t.container.bulkCustomers.runBatch(uow, jobId as JobId);
        throw new Error('the process died before the batch committed');
      }),
    ).rejects.toThrow('died');
    expect((await job(jobId)).progress).toEqual({ total: 1100, processed: 500, successful: 500, failed: 0 });
    expect(await customersWith('crash-500')).toEqual([]);
    const done = await finished(jobId);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total: 1100, processed: 1100, successful: 1100, failed: 0 }, errors: [] });
    for (const i of [0, 499, 500, 999, 1000, 1099]) expect(await customersWith(`crash-${i}`)).toHaveLength(1);
  });

  it('gives the same answer the fast way and the careful way (a savepoint per row)', async () => {
    const scope = { platformId: t.platform.id, now: new Date(), actor: { type: 'OPERATOR' } as const };
    const individual = (id: string, extra: Record<string, string> = {}) => ({ umaAddress: `${id}@uma.example.com`, platformCustomerId: id, customerType: 'INDIVIDUAL', fullName: `Person ${id}`, birthDate: '1990-01-15', addressLine1: '1 Main St', city: 'Seattle', state: 'WA', postalCode: '98101', country: 'US', ...extra });
    const staged = [
      individual('way-1'),
      individual('way-1'),
      individual('way-bad', { email: 'nope' }),
      { umaAddress: '$way-2@uma.example.com', platformCustomerId: 'way-2', customerType: 'BUSINESS', businessLegalName: 'Way Two Ltd', businessTaxId: '12-3', addressLine1: '4 Dock Rd', city: 'Austin', state: 'TX', postalCode: '78701', country: 'US' },
      individual('mix-taken'),
    ].map((cells, i) => ({ line: i + 2, cells }));
    const outcome = async (careful: boolean) => {
      let answer: unknown;
      await expect(
        runUnitOfWork(t.database.db, scope, async (uow) => {
          const { failed, events } = await t.container.bulkCustomers.createRows(uow, staged, careful);
          answer = { failed: failed.map((f) => [f.line, f.entry.code, f.entry.details.reason ?? (f.entry.details.errors as { field: string }[]).map((e) => e.field).join()]), events: events.map((e) => e.type) };
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      return answer;
    };
    const fast = await outcome(false);
    expect(fast).toMatchObject({ failed: [[3, 'CONFLICT', 'PLATFORM_CUSTOMER_ID_TAKEN'], [4, 'INVALID_INPUT', 'email'], [6, 'CONFLICT', 'PLATFORM_CUSTOMER_ID_TAKEN']] });
    expect((fast as { events: string[] }).events).toContain('CUSTOMER.KYC_APPROVED');
    expect(await outcome(true)).toEqual(fast);
  });

  it('answers a retried upload (same Idempotency-Key) with the same job, and a re-upload of the file creates nothing twice', async () => {
    const other = await t.newPlatform('Retrying platform');
    const file = csv([person('again-1'), business('again-2'), person('again-3')]);
    const first = await upload(file, other, { 'idempotency-key': 'bulk-retry-1' });
    const retried = await send<Accepted>(t, other, multipart(file), { 'idempotency-key': 'bulk-retry-1' });
    expect(retried.status).toBe(202);
    expect(retried.body.jobId).toBe(first);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(await jobCount(t, other)).toBe(1);
    expect(await finished(first, other)).toMatchObject({ status: 'COMPLETED', progress: { successful: 3, failed: 0 } });
    expect(await customerCount(other)).toBe(3);

    const again = await upload(file, other);
    expect(again).not.toBe(first);
    const second = await finished(again, other);
    expect(second).toMatchObject({ status: 'FAILED', progress: { total: 3, processed: 3, successful: 0, failed: 3 } });
    expect(second.errors!.map((e) => [e.correlationId, e.code, e.details.reason])).toEqual([
      ['again-1', 'CONFLICT', 'PLATFORM_CUSTOMER_ID_TAKEN'],
      ['again-2', 'CONFLICT', 'PLATFORM_CUSTOMER_ID_TAKEN'],
      ['again-3', 'CONFLICT', 'PLATFORM_CUSTOMER_ID_TAKEN'],
    ]);
    expect(await customerCount(other)).toBe(3);
    const failedEvents = await listEvents(t.database.db, other.id, 'BULK_UPLOAD.FAILED');
    expect(failedEvents.map((e) => (e.data as Job).id)).toEqual([again]);
  });

  it('keeps each platform to its own jobs: another platform’s job is 404 BULK_UPLOAD_JOB_NOT_FOUND', async () => {
    const jobId = await upload(csv([person('tenant-1')]));
    const stranger = await t.newPlatform('Stranger');
    const res = await t.api(stranger, 'GET', `/customers/bulk/jobs/${jobId}`);
    expect(res.status).toBe(404);
    expect(errorOf(res)).toBe('BULK_UPLOAD_JOB_NOT_FOUND');
    const unknown = await t.api(t.platform, 'GET', '/customers/bulk/jobs/Job:01938a3c-0000-7000-8000-000000000000');
    expect(errorOf(unknown)).toBe('BULK_UPLOAD_JOB_NOT_FOUND');
    await t.container.jobs.runDue();
    expect(await customersWith('tenant-1', stranger)).toEqual([]);
    expect(await customersWith('tenant-1')).toHaveLength(1);
  });

  it('takes the JSON form with the file base64-encoded', async () => {
    const res = await t.api<Accepted>(t.platform, 'POST', '/customers/bulk/csv', { file: Buffer.from(csv([person('json-1')])).toString('base64'), fileName: 'c.csv' });
    expect(res.status, res.text).toBe(202);
    expect(await finished(res.body.jobId)).toMatchObject({ status: 'COMPLETED', progress: { successful: 1 } });
  });
});

describe('refused uploads store nothing', () => {
  let fresh: TestPlatform;
  beforeAll(async () => {
    fresh = await t.newPlatform('Refusals');
  });

  async function refused(payload: Buffer, code: string, app: TestApp = t, who: TestPlatform = fresh): Promise<ApiResponse<unknown>> {
    const res = await send(app, who, payload);
    expect(res.status, res.text).toBe(400);
    expectErrorShape(res);
    expect(errorOf(res)).toBe(code);
    expect(await jobCount(app, who)).toBe(0);
    expect(await customerCount(who, app)).toBe(0);
    return res;
  }

  it('refuses a header with unknown, repeated or missing columns, naming each', async () => {
    const res = await refused(multipart(csv([person('h-1')], 'umaAddress,customerType,nickname,fullName,fullName')), 'INVALID_INPUT');
    const fields = ((res.body as { details: { errors: { field: string }[] } }).details.errors).map((e) => e.field).sort();
    expect(fields).toEqual(['file.fullName', 'file.nickname', 'file.platformCustomerId']);
  });

  it('refuses malformed CSV with the line where it broke', async () => {
    const res = await refused(multipart(`${HEADER}\n${person('q-1')}\n"unclosed,q-2,INDIVIDUAL\n`), 'INVALID_INPUT MALFORMED_CSV');
    expect(res.body).toMatchObject({ details: { reason: 'MALFORMED_CSV' } });
    const broken = await refused(multipart(`${HEADER}\n${person('q-1')}\n${person('q-2')}\nab"c,q-3\n`), 'INVALID_INPUT MALFORMED_CSV');
    expect(broken.body).toMatchObject({ details: { reason: 'MALFORMED_CSV', line: 4 } });
  });

  it('refuses a file without rows, a form without the file, and extra fields', async () => {
    const res = await refused(multipart(`${HEADER}\n\n`), 'INVALID_INPUT EMPTY_CSV');
    expect(res.body).toMatchObject({ details: { reason: 'EMPTY_CSV' } });
    await refused(multipart(''), 'INVALID_INPUT EMPTY_CSV');
    await refused(Buffer.from(`--${BOUNDARY}--\r\n`), 'INVALID_INPUT');
    await refused(multipart(csv([person('f-1')]), 'customers.csv', { note: 'hello' }), 'INVALID_INPUT');
  });

  it('refuses a file past BULK_CUSTOMERS_MAX_BYTES while it streams, closing the connection', async () => {
    const small = await createTestApp({ BULK_CUSTOMERS_MAX_BYTES: '4096' });
    try {
      const rows = Array.from({ length: 200 }, (_, i) => person(`big-${i}`));
      const res = await refused(multipart(csv(rows)), 'INVALID_INPUT FILE_TOO_LARGE', small, small.platform);
      expect(res.body).toMatchObject({ details: { reason: 'FILE_TOO_LARGE' } });
      expect(res.headers.connection).toBe('close');
      const fits = await upload(csv(rows.slice(0, 10)), small.platform, {}, small);
      expect(await finished(fits, small.platform, small)).toMatchObject({ status: 'COMPLETED', progress: { successful: 10 } });
    } finally {
      await small.close();
    }
  });
});
