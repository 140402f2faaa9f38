import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CROSS_CUTTING_STATUSES, ENUM_EXTENSIONS, EXTENSIONS, PATH_ALIASES, RELAXATIONS, TEST_ONLY_ROUTES, VALUE_ALIASES } from './aliases.js';
import { checkConformance, conformanceMode, type ReportLine } from './hook.js';
import { checkResponse, formatViolation, matchRoute, referenceOperations, type ResponseSample, type Violation } from './reference.js';

// The checker on its own: every body here is written by hand, no server involved.

const JSON_TYPE = 'application/json; charset=utf-8';
const NOW = '2025-10-13T12:00:00.000Z';

function sample(method: string, url: string, status: number, body: unknown, contentType: string = JSON_TYPE): ResponseSample {
  return { method, url: `/2025-10-13${url}`, status, contentType, body };
}

function card(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'Card:0b5e8a5e-6f0e-4a53-9f59-3f1f5e0d7a10',
    cardholderId: 'Customer:9c1a3f0e-2b7d-4c55-8d7e-1f2a3b4c5d6e',
    platformCardId: 'card-001',
    state: 'ACTIVE',
    brand: 'VISA',
    form: 'VIRTUAL',
    last4: '4242',
    expMonth: 12,
    expYear: 2030,
    fundingSources: ['InternalAccount:7e0c9d1a-1111-4a2b-8c3d-000000000001'],
    currency: 'USD',
    maxSpendPerTransaction: null,
    createdAt: NOW,
    updatedAt: NOW,
    ...overrides,
  };
}

const beneficiary = { beneficiaryType: 'INDIVIDUAL', fullName: 'María Receptora', birthDate: '1988-03-04', nationality: 'MX', address: { line1: 'Av. Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' } };

function externalAccount(accountInfo: Record<string, unknown>, currency = 'MXN'): Record<string, unknown> {
  return { id: 'ExternalAccount:e85dcbd6-dced-4ec4-b756-3c3a9ea3d965', customerId: 'Customer:da459a29-1fb7-41ce-a4cb-eb3a3c9fd7a7', status: 'ACTIVE', currency, accountInfo };
}

const clabe = { clabeNumber: '002010077777777771', paymentRails: ['SPEI'], beneficiary };
const usBank = { accountNumber: '12345678', routingNumber: '021000022', paymentRails: ['ACH'], beneficiary: { ...beneficiary, nationality: 'US' } };

function only(violations: Violation[]): Violation {
  expect(violations.map(formatViolation)).toHaveLength(1);
  return violations[0]!;
}

describe('reference loading', () => {
  it('knows all 147 reference operations, and the 153 of today\'s document', () => {
    expect(referenceOperations()).toHaveLength(147);
    expect(referenceOperations()).toContain('GET /customers/{customerId}');
    expect(referenceOperations('head')).toHaveLength(153);
    expect(referenceOperations('head')).toContain('GET /vasps');
  });

  it('routes every alias and extension declared in aliases.ts', () => {
    for (const alias of PATH_ALIASES) {
      expect(matchRoute(alias.method, `/2025-10-13${alias.specPath}`)).toEqual({ kind: 'reference', operation: `${alias.method} ${alias.referencePath}`, alias: `${alias.method} ${alias.specPath}` });
    }
    for (const extension of [...EXTENSIONS, ...TEST_ONLY_ROUTES]) {
      const path = extension.path.replace(/\{[^}]+\}/g, 'X:1').replace(/\*$/, 'x');
      for (const method of extension.methods) expect(matchRoute(method, extension.root ? path : `/2025-10-13${path}`).kind, `${method} ${path}`).toBe('extension');
    }
  });
});

describe('two documents', () => {
  it('allows in the snapshot check what today\'s document added at the same place, and nothing else', () => {
    const pending = externalAccount({ accountType: 'MXN_ACCOUNT', ...clabe });
    expect(checkResponse(sample('POST', '/customers/external-accounts', 201, { ...pending, status: 'PENDING_OWNERSHIP_VERIFICATION' }))).toEqual([]);
    const v = only(checkResponse(sample('POST', '/customers/external-accounts', 201, { ...pending, status: 'MELTED' })));
    expect(v).toMatchObject({ document: 'both', pointer: '/status', keyword: 'enum' });
  });

  it('refuses what today\'s document removed, although the snapshot still lists it', () => {
    const transaction = (failureReason: string) => ({
      id: 'Transaction:0b5e8a5e-6f0e-4a53-9f59-3f1f5e0d7a10',
      status: 'FAILED',
      type: 'OUTGOING',
      source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:7e0c9d1a-1111-4a2b-8c3d-000000000001', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:e85dcbd6-dced-4ec4-b756-3c3a9ea3d965', currency: 'MXN' },
      platformCustomerId: 'c-1',
      customerId: 'Customer:da459a29-1fb7-41ce-a4cb-eb3a3c9fd7a7',
      createdAt: NOW,
      updatedAt: NOW,
      sentAmount: { amount: 1000, currency: { code: 'USD', decimals: 2 } },
      failureReason,
    });
    const removed = checkResponse(sample('GET', '/transactions/Transaction:1', 200, transaction('TIMEOUT'))).filter((x) => x.pointer === '/failureReason');
    expect(removed.map((x) => x.document)).toEqual(['head']);
    const added = checkResponse(sample('GET', '/transactions/Transaction:1', 200, transaction('PAYOUT_RETURNED'))).filter((x) => x.pointer === '/failureReason');
    expect(added).toEqual([]);
  });

  it('checks an operation only today\'s document has against it alone', () => {
    expect(matchRoute('GET', '/2025-10-13/vasps').kind).toBe('no-route');
    expect(matchRoute('GET', '/2025-10-13/vasps', 'head')).toEqual({ kind: 'reference', operation: 'GET /vasps' });
    expect(checkResponse(sample('GET', '/vasps', 200, { data: [{ vaspName: 'Coinbase' }], hasMore: false }))).toEqual([]);
    const v = only(checkResponse(sample('GET', '/vasps', 200, { data: [{ url: 'https://x.example' }], hasMore: false })));
    expect(v).toMatchObject({ document: 'head', pointer: '/data/0/vaspName', keyword: 'required' });
  });
});

describe('checkResponse', () => {
  it('passes a body that matches the reference', () => {
    expect(checkResponse(sample('GET', '/cards/Card:1', 200, card()))).toEqual([]);
    expect(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'MXN_ACCOUNT', ...clabe })))).toEqual([]);
    expect(checkResponse(sample('GET', '/cards/Card:1?expand=x', 404, { status: 404, code: 'TRANSACTION_NOT_FOUND', message: 'no' }))).toEqual([]);
  });

  it('reports a wrong type with its pointer', () => {
    const v = only(checkResponse(sample('GET', '/cards/Card:1', 200, card({ expMonth: '12' }))));
    expect(v).toMatchObject({ rule: 'schema', operation: 'GET /cards/{id}', status: 200, pointer: '/expMonth', keyword: 'type', schemaPath: '#/components/schemas/Card/properties/expMonth' });
  });

  it('reports a missing required field with its pointer', () => {
    const { cardholderId: _, ...withoutHolder } = card();
    const v = only(checkResponse(sample('GET', '/cards/Card:1', 200, withoutHolder)));
    expect(v).toMatchObject({ pointer: '/cardholderId', keyword: 'required', schemaPath: '#/components/schemas/Card' });
    expect(v.message).toContain('cardholderId');
  });

  it('reports an unknown enum value with its pointer, also inside discriminated unions', () => {
    const v = only(checkResponse(sample('GET', '/cards/Card:1', 200, card({ state: 'MELTED' }))));
    expect(v).toMatchObject({ pointer: '/state', keyword: 'enum', schemaPath: '#/components/schemas/CardState' });
    expect(v.message).toContain('"MELTED"');

    const rails = only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'MXN_ACCOUNT', ...clabe, paymentRails: ['CARRIER_PIGEON'] }))));
    expect(rails).toMatchObject({ pointer: '/accountInfo/paymentRails/0', keyword: 'enum' });

    const tag = only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'IBAN', iban: 'DE89370400440532013000' }))));
    expect(tag).toMatchObject({ pointer: '/accountInfo/accountType', keyword: 'enum', schemaPath: '#/components/schemas/ExternalAccountInfoOneOf/discriminator/propertyName' });
  });

  it('checks only the branch the discriminator picks', () => {
    // A CLABE body missing clabeNumber: one error from the MXN branch, none from the 40-odd others.
    const { clabeNumber: _, ...noNumber } = clabe;
    const v = only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'MXN_ACCOUNT', ...noNumber }))));
    expect(v).toMatchObject({ pointer: '/accountInfo/clabeNumber', keyword: 'required' });
  });

  it("accepts the spec's names where aliases.ts says so, and still the reference's own", () => {
    for (const code of ['SERVICE_SWITCH_ERROR', 'GRID_SWITCH_ERROR', 'INTERNAL_ERROR']) {
      expect(checkResponse(sample('GET', '/cards/Card:1', 500, { status: 500, code, message: 'switch failed' })), code).toEqual([]);
    }
    expect(checkResponse(sample('GET', '/cards/Card:1', 500, { status: 500, code: 'SWITCH_ERROR', message: 'x' }))).toHaveLength(1);

    for (const accountType of ['CLABE', 'MXN_ACCOUNT']) {
      expect(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType, ...clabe }))), accountType).toEqual([]);
    }
    for (const accountType of ['US_ACCOUNT', 'USD_ACCOUNT']) {
      expect(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType, ...usBank }, 'USD'))), accountType).toEqual([]);
    }
    // An alias does not cross over: a CLABE tag still needs the MXN fields.
    expect(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'CLABE', ...usBank })))).not.toEqual([]);

    for (const stateReason of ['CLOSED_BY_SERVICE', 'CLOSED_BY_GRID', null]) {
      expect(checkResponse(sample('GET', '/cards/Card:1', 200, card({ state: 'CLOSED', stateReason }))), String(stateReason)).toEqual([]);
    }
    expect(VALUE_ALIASES.map((a) => a.spec)).toEqual(expect.arrayContaining(['US_ACCOUNT', 'CLABE']));
  });

  it("checks the spec's path against the reference operation it aliases", () => {
    expect(checkResponse(sample('GET', '/internal-account?customerId=Customer:1', 200, { data: [], hasMore: false, totalCount: 0 }))).toEqual([]);
    const v = only(checkResponse(sample('GET', '/internal-account', 200, { data: [], hasMore: 'no' })));
    expect(v).toMatchObject({ operation: 'GET /customers/internal-accounts', pointer: '/hasMore', keyword: 'type' });
  });

  it('allows an extension value only where ENUM_EXTENSIONS puts it', () => {
    const usd = { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 };
    const rate = (destinationPaymentRail: string) => ({
      sourceCurrency: usd,
      destinationCurrency: { code: 'BTC', name: 'Bitcoin', symbol: '₿', decimals: 8 },
      destinationPaymentRail,
      sendingAmount: 10_000,
      minSendingAmount: 100,
      maxSendingAmount: 1_000_000,
      receivingAmount: 12_345,
      exchangeRate: 1.2345,
      fees: { fixed: 10, total: 10 },
      updatedAt: NOW,
    });
    for (const rail of ['LIGHTNING', 'SOLANA', 'SPARK', 'SEPA_INSTANT']) {
      expect(checkResponse(sample('GET', '/exchange-rates', 200, { data: [rate(rail)] })), rail).toEqual([]);
    }
    const v = only(checkResponse(sample('GET', '/exchange-rates', 200, { data: [rate('CARRIER_PIGEON')] })));
    expect(v).toMatchObject({ pointer: '/data/0/destinationPaymentRail', keyword: 'enum', schemaPath: '#/components/schemas/ExchangeRate/properties/destinationPaymentRail' });
    // The shared PaymentRail enum is untouched elsewhere: an external account's rails are still the reference's.
    expect(only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'MXN_ACCOUNT', ...clabe, paymentRails: ['SOLANA'] }))))).toMatchObject({ keyword: 'enum' });

    const link = (provider: string) => ({ kycUrl: 'https://moneta.test/hosted/kyc/x', expiresAt: NOW, provider });
    for (const provider of ['SUMSUB', 'MONETA_SANDBOX', 'MANUAL_REVIEW']) {
      expect(checkResponse(sample('POST', '/customers/Customer:1/kyc-link', 201, link(provider))), provider).toEqual([]);
    }
    expect(only(checkResponse(sample('POST', '/customers/Customer:1/kyc-link', 201, link('ONFIDO'))))).toMatchObject({ pointer: '/provider', keyword: 'enum' });
    expect(ENUM_EXTENSIONS.every((e) => e.reason.length > 20)).toBe(true);
  });

  it('checks a BRANCH_EXTENSIONS branch by its own schema', () => {
    const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    expect(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'BITCOIN_L1', address }, 'BTC')))).toEqual([]);
    expect(only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'BITCOIN_L1' }, 'BTC'))))).toMatchObject({ pointer: '/accountInfo/address', keyword: 'required' });
    expect(only(checkResponse(sample('POST', '/customers/external-accounts', 201, externalAccount({ accountType: 'BITCOIN_WALLET', address }, 'BTC'))))).toMatchObject({ pointer: '/accountInfo/accountType', keyword: 'enum' });
  });

  it('applies RELAXATIONS as declared, and no further: a platform-own transaction has neither customer id', () => {
    const transaction = {
      id: 'Transaction:019542f5-b3e7-1d02-0000-000000000004',
      status: 'COMPLETED',
      type: 'OUTGOING',
      direction: 'DEBIT',
      source: { sourceType: 'ACCOUNT', accountId: 'InternalAccount:019542f5-b3e7-1d02-0000-000000000002', currency: 'USD' },
      destination: { destinationType: 'ACCOUNT', accountId: 'ExternalAccount:019542f5-b3e7-1d02-0000-000000000003', currency: 'USD' },
      sentAmount: { amount: 1000, currency: { code: 'USD', name: 'US Dollar', symbol: '$', decimals: 2 } },
      createdAt: NOW,
      updatedAt: NOW,
    };
    const withCustomer = { ...transaction, customerId: 'Customer:019542f5-b3e7-1d02-0000-000000000001', platformCustomerId: 'cust-1' };
    expect(checkResponse(sample('GET', '/transactions/Transaction:1', 200, withCustomer)).map(formatViolation)).toEqual([]);
    expect(checkResponse(sample('GET', '/transactions/Transaction:1', 200, transaction)).map(formatViolation)).toEqual([]);
    const { platformCustomerId: _, ...half } = withCustomer;
    expect(only(checkResponse(sample('GET', '/transactions/Transaction:1', 200, half)))).toMatchObject({ keyword: 'dependentRequired', schemaPath: '#/components/schemas/Transaction' });
    expect(RELAXATIONS.map((r) => r.at)).toEqual(['#/components/schemas/Transaction']);
  });

  it("checks a cross-cutting status against the reference's Error<status> and the declared codes", () => {
    // GET /tokens documents 400, 401 and 500 only.
    expect(checkResponse(sample('GET', '/tokens', 403, { status: 403, code: 'FORBIDDEN', message: 'needs MANAGE' }))).toEqual([]);
    expect(checkResponse(sample('PATCH', '/config', 409, { status: 409, code: 'CONFLICT', message: 'key reused', details: { reason: 'IDEMPOTENCY_KEY_REUSED' } }))).toEqual([]);
    expect(checkResponse(sample('GET', '/customers/Customer:1', 410, { status: 410, code: 'CUSTOMER_DELETED', message: 'gone' }))).toEqual([]);
    expect(checkResponse(sample('GET', '/customers/Customer:1', 400, { status: 400, code: 'INVALID_INPUT', message: 'bad id' }))).toEqual([]);
    expect(checkResponse(sample('POST', '/quotes', 404, { status: 404, code: 'REFERENCE_NOT_FOUND', message: 'no account' }))).toEqual([]);
    // A code of the reference's Error403 that is not declared cross-cutting, and one that is not the reference's at all.
    expect(only(checkResponse(sample('GET', '/tokens', 403, { status: 403, code: 'VELOCITY_LIMIT_EXCEEDED', message: 'x' })))).toMatchObject({ pointer: '/code', keyword: 'enum', schemaPath: 'aliases.ts CROSS_CUTTING_STATUSES 403' });
    expect(only(checkResponse(sample('GET', '/tokens', 403, { status: 403, code: 'NOPE', message: 'x' })))).toMatchObject({ pointer: '/code', keyword: 'enum', schemaPath: '#/components/schemas/Error403/properties/code' });
    expect(only(checkResponse(sample('GET', '/tokens', 403, { status: 404, code: 'FORBIDDEN', message: 'x' })))).toMatchObject({ pointer: '/status' });
    // Not declared cross-cutting (422), and not on an operation without credentials.
    expect(only(checkResponse(sample('GET', '/tokens', 422, { status: 422, code: 'INVALID_INPUT', message: 'x' })))).toMatchObject({ rule: 'undocumented-status' });
    expect(only(checkResponse(sample('POST', '/agents/device-codes/ABCD/redeem', 403, { status: 403, code: 'FORBIDDEN', message: 'x' })))).toMatchObject({ rule: 'undocumented-status' });
    expect(CROSS_CUTTING_STATUSES.map((c) => c.status)).toEqual([400, 403, 404, 409, 410, 429, 503]);
  });

  it('reports an undocumented status', () => {
    const v = only(checkResponse(sample('GET', '/cards/Card:1', 201, card())));
    expect(v).toMatchObject({ rule: 'undocumented-status', operation: 'GET /cards/{id}', status: 201 });
    expect(v.message).toContain('200');
  });

  it('checks framework statuses only for the error shape', () => {
    expect(checkResponse(sample('POST', '/customers', 415, { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'json only' }))).toEqual([]);
    expect(checkResponse(sample('PUT', '/customers', 405, { status: 405, code: 'METHOD_NOT_ALLOWED', message: 'no' }))).toEqual([]);
    const v = only(checkResponse(sample('POST', '/customers', 413, { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'big', limit: 1 })));
    expect(v).toMatchObject({ rule: 'error-shape', pointer: '/limit' });
  });

  it('reports an unknown route', () => {
    const v = only(checkResponse(sample('GET', '/gift-cards/1', 200, { id: '1' })));
    expect(v).toMatchObject({ rule: 'unknown-route', operation: 'GET /2025-10-13/gift-cards/1' });
    expect(only(checkResponse({ method: 'GET', url: 'http://127.0.0.1:9/metrics', status: 200, contentType: 'text/plain', body: undefined })).rule).toBe('unknown-route');
    // A method the reference does not have on a path it has is a route too.
    expect(only(checkResponse(sample('POST', '/cards/Card:1', 200, card()))).rule).toBe('unknown-route');
    // The router's own "no such route" answer is fine, as long as it has the error shape.
    expect(checkResponse(sample('GET', '/gift-cards/1', 404, { status: 404, code: 'NOT_FOUND', message: 'No route GET /gift-cards/1' }))).toEqual([]);
    expect(checkResponse(sample('GET', '/gift-cards/1', 404, { status: 404, code: 'REFERENCE_NOT_FOUND', message: 'No route' }))).toEqual([]);
    expect(checkResponse(sample('GET', '/gift-cards/1', 404, { status: 404, error: 'No route' })).map((v) => v.rule)).toEqual(['error-shape', 'error-shape', 'error-shape']);
  });

  it('does not check extension routes against the reference, only their error shape', () => {
    expect(checkResponse(sample('GET', '/sandbox/clock', 200, { anything: ['goes'] }))).toEqual([]);
    expect(checkResponse(sample('POST', '/sandbox/customers/Customer:1/kyc-decision', 200, { whatever: true }))).toEqual([]);
    expect(checkResponse({ method: 'GET', url: '/livez', status: 200, contentType: JSON_TYPE, body: { status: 'ok' } })).toEqual([]);
    expect(checkResponse(sample('POST', '/sandbox/clock/advance', 400, { status: 400, code: 'INVALID_INPUT', message: 'seconds' }))).toEqual([]);
    const shape = checkResponse(sample('POST', '/sandbox/clock/advance', 400, { error: 'bad' }));
    expect(shape.map((v) => `${v.rule} ${v.pointer}`)).toEqual(['error-shape /status', 'error-shape /code', 'error-shape /message', 'error-shape /error']);
  });

  it('skips responses that are not JSON', () => {
    expect(checkResponse({ method: 'GET', url: '/hosted/kyc/abc', status: 200, contentType: 'text/html; charset=utf-8', body: undefined })).toEqual([]);
    expect(checkResponse(sample('DELETE', '/tokens/Token:1', 204, undefined, ''))).toEqual([]);
    expect(checkResponse(sample('HEAD', '/cards/Card:1', 200, undefined))).toEqual([]);
  });
});

describe('checkConformance modes', () => {
  const saved = { mode: process.env.MONETA_CONFORMANCE, file: process.env.MONETA_CONFORMANCE_REPORT };
  afterEach(() => {
    for (const [key, value] of [['MONETA_CONFORMANCE', saved.mode], ['MONETA_CONFORMANCE_REPORT', saved.file]] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  const bad = sample('GET', '/cards/Card:1', 200, card({ state: 'MELTED' }));

  it('enforces by default; off and report stay available', () => {
    delete process.env.MONETA_CONFORMANCE;
    expect(conformanceMode()).toBe('enforce');
    for (const [value, mode] of [['', 'enforce'], ['off', 'off'], ['0', 'off'], ['Report', 'report'], ['enforce', 'enforce']] as const) {
      process.env.MONETA_CONFORMANCE = value;
      expect(conformanceMode(), value).toBe(mode);
    }
    process.env.MONETA_CONFORMANCE = 'loud';
    expect(() => conformanceMode()).toThrow(/off, report or enforce/);
  });

  it('off does nothing', async () => {
    process.env.MONETA_CONFORMANCE = 'off';
    await expect(checkConformance(bad)).resolves.toBeUndefined();
  });

  it('enforce throws with the violations', async () => {
    process.env.MONETA_CONFORMANCE = 'enforce';
    await expect(checkConformance(bad)).rejects.toThrow(/GET \/cards\/\{id\} -> 200 at \/state: value "MELTED"/);
    await expect(checkConformance(sample('GET', '/cards/Card:1', 200, card()))).resolves.toBeUndefined();
  });

  it('report appends one JSON line per violation, and one per new (operation, status)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'conformance-')), 'report.jsonl');
    process.env.MONETA_CONFORMANCE = 'report';
    process.env.MONETA_CONFORMANCE_REPORT = file;
    await checkConformance(bad);
    await checkConformance(bad);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as ReportLine);
    expect(lines.filter((l) => l.t === 'hit')).toEqual([{ t: 'hit', kind: 'reference', op: 'GET /cards/{id}', status: 200 }]);
    const violations = lines.filter((l) => l.t === 'violation');
    expect(violations).toHaveLength(2);
    expect(violations[0]).toMatchObject({ op: 'GET /cards/{id}', status: 200, pointer: '/state', keyword: 'enum', schemaPath: '#/components/schemas/CardState' });
    expect(violations[0]!.test).toContain('report appends');
  });
});
