import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { checkConformance } from '../../../../../test/conformance/hook.js';
import { checkDeclaredError } from '../../../../../test/declared-errors.js';
import { API_PREFIX } from '../../config.js';
import type { Id } from '../../core/ids.js';
import { PERSONAL_INFO } from '../beneficial-owners/fixtures.js';
import { TINY_PDF } from './fixtures.js';

interface Doc {
  id: string;
  documentHolder: string;
  documentType: string;
  side?: string;
  country: string;
  documentNumber?: string;
  issuingAuthority?: string;
  fileName: string;
  createdAt: string;
  updatedAt: string;
}
interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

const MAX = 10 * 1024 * 1024;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1'), Buffer.alloc(64, 0x11), Buffer.from([0xff, 0xd9])]);
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** A complete PDF of exactly `size` bytes (a comment pads it). */
function pdfOfSize(size: number): Buffer {
  const head = '%PDF-1.4\n%';
  const tail = '\n%%EOF\n';
  return Buffer.concat([Buffer.from(head), Buffer.alloc(size - head.length - tail.length, 0x41), Buffer.from(tail)]);
}

interface FilePart {
  filename: string;
  contentType?: string;
  data: Buffer;
  name?: string;
}

const BOUNDARY = '----moneta-test-boundary';
function multipart(fields: Record<string, string>, file?: FilePart): Buffer {
  const pieces: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  if (file) {
    pieces.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`));
    pieces.push(file.data, Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

let t: TestApp;
let customerId: string;
beforeAll(async () => {
  t = await createTestApp();
  customerId = await newCustomer(t.platform);
});
afterAll(async () => t?.close());

async function newCustomer(who: TestPlatform): Promise<string> {
  const res = await t.api<{ id: string }>(who, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Dora Documents' });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function send<T = Doc>(who: TestPlatform, method: 'POST' | 'PUT', path: string, payload: Buffer): Promise<ApiResponse<T>> {
  const url = `${API_PREFIX}${path}`;
  const response = await t.app.inject({ method, url, headers: { authorization: who.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload });
  const body = response.body ? (JSON.parse(response.body) as unknown) : undefined;
  checkDeclaredError(t.routes, { method, url }, { status: response.statusCode, body });
  await checkConformance({ method, url, status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), body });
  return { status: response.statusCode, body: body as T, headers: response.headers, text: response.body };
}

const passportFields = (holder: string) => ({ documentHolder: holder, documentType: 'PASSPORT', country: 'US', documentNumber: 'A1234567', issuingAuthority: 'U.S. Department of State' });

async function upload(holder: string, file: FilePart, who: TestPlatform = t.platform, fields: Record<string, string> = passportFields(holder)) {
  return send(who, 'POST', '/documents', multipart(fields, file));
}

const counts = (who: TestPlatform = t.platform) => t.container.documents.storedCounts(t.database.db, who.id);

async function contentOf(id: string, who: TestPlatform = t.platform): Promise<Buffer> {
  const stored = await t.container.documents.content({ platformId: who.id, now: new Date(), actor: { type: 'OPERATOR' } }, id as Id<'Document'>);
  const chunks: Buffer[] = [];
  for await (const chunk of stored.chunks) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('uploading documents', () => {
  it('takes a multipart PDF for a customer, keeps its bytes, and shows it by id and in the holder’s list', async () => {
    const pdf = pdfOfSize(5000);
    const res = await upload(customerId, { filename: 'passport.pdf', contentType: 'application/pdf', data: pdf });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ documentHolder: customerId, documentType: 'PASSPORT', country: 'US', documentNumber: 'A1234567', issuingAuthority: 'U.S. Department of State', fileName: 'passport.pdf' });
    expect(res.body.id).toMatch(/^Document:/);
    const got = await t.api<Doc>(t.platform, 'GET', `/documents/${res.body.id}`);
    expect(got.body).toEqual(res.body);
    const stored = await contentOf(res.body.id);
    expect(createHash('sha256').update(stored).digest('hex')).toBe(createHash('sha256').update(pdf).digest('hex'));
    const list = await t.api<Page<Doc>>(t.platform, 'GET', `/documents?documentHolder=${customerId}`);
    expect(list.body.data.map((d) => d.id)).toContain(res.body.id);
    expect(list.body.data.every((d) => d.documentHolder === customerId)).toBe(true);
  });

  it('takes PNG and JPEG files for a beneficial owner, by their content whatever their name, and pages the list', async () => {
    const business = await t.api<{ id: string }>(t.platform, 'POST', '/customers', { customerType: 'BUSINESS', businessInfo: { legalName: 'Doc Co', country: 'US', taxId: '12-3456789' } });
    const owner = await t.api<{ id: string }>(t.platform, 'POST', '/beneficial-owners', { customerId: business.body.id, roles: ['UBO'], ownershipPercentage: 50, personalInfo: PERSONAL_INFO });
    const png = await upload(owner.body.id, { filename: 'selfie.dat', data: PNG }, t.platform, { documentHolder: owner.body.id, documentType: 'SELFIE', country: 'US' });
    expect(png.status, png.text).toBe(201);
    const jpeg = await upload(owner.body.id, { filename: 'licence', contentType: 'image/jpeg', data: JPEG }, t.platform, { documentHolder: owner.body.id, documentType: 'DRIVERS_LICENSE', side: 'FRONT', country: 'US' });
    expect(jpeg.status, jpeg.text).toBe(201);
    expect(jpeg.body.side).toBe('FRONT');
    const first = await t.api<Page<Doc>>(t.platform, 'GET', `/documents?documentHolder=${owner.body.id}&limit=1`);
    expect(first.body).toMatchObject({ hasMore: true, totalCount: 2 });
    expect(first.body.data[0]!.id).toBe(jpeg.body.id);
    const second = await t.api<Page<Doc>>(t.platform, 'GET', `/documents?documentHolder=${owner.body.id}&limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.data[0]!.id).toBe(png.body.id);
    expect(second.body.hasMore).toBe(false);
  });

  it('takes the same form as JSON with the file base64-encoded', async () => {
    const res = await t.api<Doc>(t.platform, 'POST', '/documents', { documentHolder: customerId, documentType: 'UTILITY_BILL', country: 'GB', fileName: 'bill.pdf', file: Buffer.from(TINY_PDF).toString('base64') });
    expect(res.status, res.text).toBe(201);
    expect(res.body.fileName).toBe('bill.pdf');
    expect((await contentOf(res.body.id)).toString()).toBe(TINY_PDF);
  });

  it('PUT replaces the file and the metadata, and the old content goes', async () => {
    const created = await upload(customerId, { filename: 'old.pdf', data: pdfOfSize(300 * 1024) });
    const before = await counts();
    const replacement = pdfOfSize(2000);
    const res = await send(t.platform, 'PUT', `/documents/${created.body.id}`, multipart({ documentType: 'NATIONAL_ID', country: 'FR', side: 'BACK' }, { filename: 'new.pdf', data: replacement }));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, documentHolder: customerId, documentType: 'NATIONAL_ID', country: 'FR', side: 'BACK', fileName: 'new.pdf' });
    expect(res.body.documentNumber).toBeUndefined();
    expect((await contentOf(created.body.id)).equals(replacement)).toBe(true);
    // 300 KiB took two rows of content; the replacement takes one.
    expect(await counts()).toEqual({ documents: before.documents, contentRows: before.contentRows - 1 });
  });

  it('DELETE removes the document and its content', async () => {
    const created = await upload(customerId, { filename: 'gone.pdf', data: pdfOfSize(1000) });
    const before = await counts();
    const res = await t.api(t.platform, 'DELETE', `/documents/${created.body.id}`);
    expect(res.status).toBe(204);
    expect(await counts()).toEqual({ documents: before.documents - 1, contentRows: before.contentRows - 1 });
    expect(errorOf(await t.api(t.platform, 'GET', `/documents/${created.body.id}`))).toBe('REFERENCE_NOT_FOUND DOCUMENT_NOT_FOUND');
    expect(errorOf(await t.api(t.platform, 'DELETE', `/documents/${created.body.id}`))).toBe('REFERENCE_NOT_FOUND DOCUMENT_NOT_FOUND');
  });
});

describe('refused uploads store nothing', () => {
  async function refusedWithNothingStored(res: ApiResponse<unknown>, expected: string, before: { documents: number; contentRows: number }, listBefore: string[]) {
    expect(errorOf(res), res.text).toBe(expected);
    expect(await counts()).toEqual(before);
    const list = await t.api<Page<Doc>>(t.platform, 'GET', `/documents?documentHolder=${customerId}&limit=100`);
    expect(list.body.data.map((d) => d.id)).toEqual(listBefore);
  }

  async function snapshot() {
    const list = await t.api<Page<Doc>>(t.platform, 'GET', `/documents?documentHolder=${customerId}&limit=100`);
    return { before: await counts(), ids: list.body.data.map((d) => d.id) };
  }

  it('a file of the wrong type (a GIF, or text named .pdf)', async () => {
    const { before, ids } = await snapshot();
    await refusedWithNothingStored(await upload(customerId, { filename: 'photo.gif', data: GIF }), 'INVALID_INPUT UNSUPPORTED_FILE_TYPE', before, ids);
    await refusedWithNothingStored(await upload(customerId, { filename: 'passport.pdf', contentType: 'application/pdf', data: Buffer.from('just some text, not a PDF at all') }), 'INVALID_INPUT UNSUPPORTED_FILE_TYPE', before, ids);
  });

  it('a file one byte over 10 MB, while exactly 10 MB is taken', async () => {
    const { before, ids } = await snapshot();
    await refusedWithNothingStored(await upload(customerId, { filename: 'big.pdf', data: pdfOfSize(MAX + 1) }), 'INVALID_INPUT FILE_TOO_LARGE', before, ids);
    const fits = await upload(customerId, { filename: 'big.pdf', data: pdfOfSize(MAX) });
    expect(fits.status, fits.text).toBe(201);
    expect((await counts()).contentRows).toBe(before.contentRows + 40);
    expect((await t.api(t.platform, 'DELETE', `/documents/${fits.body.id}`)).status).toBe(204);
  });

  it('a corrupt upload: a truncated file, a truncated multipart body, a missing file part, a declared type its bytes are not', async () => {
    const { before, ids } = await snapshot();
    const truncatedPdf = pdfOfSize(4000).subarray(0, 3000);
    await refusedWithNothingStored(await upload(customerId, { filename: 'cut.pdf', data: truncatedPdf }), 'INVALID_INPUT CORRUPT_FILE', before, ids);
    const whole = multipart(passportFields(customerId), { filename: 'ok.pdf', data: pdfOfSize(600 * 1024) });
    await refusedWithNothingStored(await send(t.platform, 'POST', '/documents', whole.subarray(0, whole.length - 300 * 1024)), 'INVALID_REQUEST_FORMAT MALFORMED_MULTIPART', before, ids);
    const noFile = await send(t.platform, 'POST', '/documents', multipart(passportFields(customerId)));
    await refusedWithNothingStored(noFile, 'INVALID_INPUT', before, ids);
    expect((noFile.body as unknown as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field)).toEqual(['file']);
    await refusedWithNothingStored(await upload(customerId, { filename: 'scan.png', contentType: 'image/png', data: pdfOfSize(2000) }), 'INVALID_INPUT FILE_TYPE_MISMATCH', before, ids);
    await refusedWithNothingStored(await upload(customerId, { filename: 'x.pdf', name: 'attachment', data: pdfOfSize(2000) }), 'INVALID_INPUT', before, ids);
  });

  it('the sandbox review rejects by the file name’s suffix with the reference’s codes', async () => {
    const { before, ids } = await snapshot();
    const table = { '101': 'LOW_QUALITY', '102': 'DATA_MISMATCH', '103': 'EXPIRED', '104': 'SUSPECTED_FRAUD', '105': 'UNSUITABLE_DOCUMENT', '106': 'INCOMPLETE' };
    for (const [suffix, code] of Object.entries(table)) {
      await refusedWithNothingStored(await upload(customerId, { filename: `passport-${suffix}.pdf`, data: pdfOfSize(1000) }), code, before, ids);
    }
  });

  it('bad fields are named all at once, after the file is read, and nothing is kept', async () => {
    const { before, ids } = await snapshot();
    const res = await upload(customerId, { filename: 'p.pdf', data: pdfOfSize(1000) }, t.platform, { documentHolder: 'Customer:nope', documentType: 'PASSPORTISH', side: 'TOP', colour: 'red' });
    await refusedWithNothingStored(res, 'INVALID_INPUT', before, ids);
    const fields = (res.body as unknown as { details: { errors: { field: string }[] } }).details.errors.map((e) => e.field).sort();
    expect(fields).toEqual(['colour', 'country', 'documentHolder', 'documentType', 'side']);
    const json = await t.api(t.platform, 'POST', '/documents', { documentHolder: customerId });
    expect(errorOf(json)).toBe('INVALID_INPUT');
    expect(await counts()).toEqual(before);
  });

  it('an unknown holder is 404, and a multipart body to a JSON route is still 415', async () => {
    const { before, ids } = await snapshot();
    await refusedWithNothingStored(await upload('Customer:01a20061-044a-7399-9737-e82f3a74e590', { filename: 'p.pdf', data: pdfOfSize(1000) }), 'REFERENCE_NOT_FOUND DOCUMENT_HOLDER_NOT_FOUND', before, ids);
    const res = await t.app.inject({ method: 'POST', url: `${API_PREFIX}/customers`, headers: { authorization: t.platform.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, payload: multipart({ customerType: 'INDIVIDUAL' }) });
    expect(res.statusCode).toBe(415);
  });
});

describe('documents and other platforms', () => {
  it('another platform can neither see, replace nor delete a document, nor upload for a customer it does not have', async () => {
    const other = await t.newPlatform('Other documents platform');
    const doc = await upload(customerId, { filename: 'mine.pdf', data: pdfOfSize(1000) });
    const theirsBefore = await counts(other);
    expect(errorOf(await t.api(other, 'GET', `/documents/${doc.body.id}`))).toBe('REFERENCE_NOT_FOUND DOCUMENT_NOT_FOUND');
    expect(errorOf(await send(other, 'PUT', `/documents/${doc.body.id}`, multipart({ documentType: 'PASSPORT', country: 'US' }, { filename: 'x.pdf', data: pdfOfSize(1000) })))).toBe('REFERENCE_NOT_FOUND DOCUMENT_NOT_FOUND');
    expect(errorOf(await t.api(other, 'DELETE', `/documents/${doc.body.id}`))).toBe('REFERENCE_NOT_FOUND DOCUMENT_NOT_FOUND');
    expect(errorOf(await upload(customerId, { filename: 'x.pdf', data: pdfOfSize(1000) }, other))).toBe('REFERENCE_NOT_FOUND DOCUMENT_HOLDER_NOT_FOUND');
    const list = await t.api<Page<Doc>>(other, 'GET', `/documents?documentHolder=${customerId}`);
    expect(list.body.data).toEqual([]);
    expect(await counts(other)).toEqual(theirsBefore);
    const mine = await t.api<Doc>(t.platform, 'GET', `/documents/${doc.body.id}`);
    expect(mine.body.fileName).toBe('mine.pdf');
  });
});

describe('a 10 MB upload over real HTTP', () => {
  it('is taken from a client sending it in 64 KiB pieces as the socket drains, and is stored whole with its checksum', async () => {
    const served = await createTestApp({}, { listen: true });
    try {
      const holder = await served.api<{ id: string }>(served.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Stream Tester' });
      const head = Buffer.concat([
        Buffer.from(Object.entries(passportFields(holder.body.id)).map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('')),
        Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      ]);
      const close = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
      const hash = createHash('sha256');
      const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(`${served.baseUrl}${API_PREFIX}/documents`, { method: 'POST', headers: { authorization: served.platform.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.write(head);
        const pdf = pdfOfSize(MAX);
        // Sent in 64 KiB pieces as the socket drains, the way a browser streams a file.
        let offset = 0;
        const pump = () => {
          while (offset < pdf.length) {
            const piece = pdf.subarray(offset, offset + 64 * 1024);
            hash.update(piece);
            offset += piece.length;
            if (!req.write(piece)) return void req.once('drain', pump);
          }
          req.end(close);
        };
        pump();
      });
      expect(status.status, status.body).toBe(201);
      const doc = JSON.parse(status.body) as Doc;
      const stored = await served.container.documents.content({ platformId: served.platform.id, now: new Date(), actor: { type: 'OPERATOR' } }, doc.id as Id<'Document'>);
      expect(stored.size).toBe(MAX);
      expect(stored.sha256).toBe(hash.digest('hex'));
    } finally {
      await served.close();
    }
  });
});

describe('an upload refused before its body has arrived, over real HTTP', () => {
  it('answers the client while it is still sending, asks to close the connection, and stores nothing', async () => {
    const served = await createTestApp({}, { listen: true });
    try {
      const holder = await served.api<{ id: string }>(served.platform, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Early Refusal' });
      const head = Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="documentHolder"\r\n\r\n${holder.body.id}\r\n` +
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="photo.gif"\r\nContent-Type: image/gif\r\n\r\n`,
      );
      const answer = await new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        let answered = false;
        const req = httpRequest(`${served.baseUrl}${API_PREFIX}/documents`, { method: 'POST', headers: { authorization: served.platform.authorization, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => {
            answered = true;
            resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body });
          });
        });
        // Writing after the server closed the connection fails; the answer is what counts.
        req.on('error', (error) => {
          if (!answered) reject(error);
        });
        req.write(head);
        req.write(GIF);
        const piece = Buffer.alloc(64 * 1024, 0x41);
        let sent = 0;
        const pump = () => {
          while (sent < 5 * 1024 * 1024 && !answered && !req.destroyed) {
            sent += piece.length;
            if (!req.write(piece)) return void req.once('drain', pump);
          }
          if (!answered && !req.destroyed) req.end(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
        };
        pump();
      });
      expect(answer.status, answer.body).toBe(400);
      expect((JSON.parse(answer.body) as { details: { reason: string } }).details.reason).toBe('UNSUPPORTED_FILE_TYPE');
      expect(answer.connection).toBe('close');
      expect(await served.container.documents.storedCounts(served.database.db, served.platform.id)).toEqual({ documents: 0, contentRows: 0 });
    } finally {
      await served.close();
    }
  });
});
