import { sql } from 'kysely';
import { API_PREFIX } from '../packages/server/src/config.js';
import type { Db } from '../packages/server/src/db/schema.js';
import type { RouteEntry } from '../packages/server/src/http/route-table.js';
import type { ApiResponse, TestApp, TestPlatform } from './harness.js';
import { clabeEndingWith, mexicanBeneficiary } from './payments-fixtures.js';

/**
 * What the cross-cutting sweeps (tenancy, bad input) need to know about routes beyond the route
 * table: one minimal valid body per route that takes a body, and how to create one resource of each
 * id type. A route added later without an entry here makes those sweeps fail, naming the route.
 */

/** `POST /customers/:customerId/kyc-link`: method and path without the version prefix. */
export function routeKey(route: Pick<RouteEntry, 'method' | 'url'>): string {
  return `${route.method} ${route.url.startsWith(`${API_PREFIX}/`) ? route.url.slice(API_PREFIX.length) : route.url}`;
}

/** Routes behind API credentials: under the version prefix, with a permission. */
export function authenticatedRoutes(t: TestApp): RouteEntry[] {
  return t.routes.entries.filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.permission !== undefined);
}

export function pathParams(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: { pattern?: string } }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

function openApiOperation(t: TestApp, route: RouteEntry): OpenApiOperation | undefined {
  const doc = t.app.swagger() as { paths?: Record<string, Record<string, OpenApiOperation>> };
  const path = route.url.slice(API_PREFIX.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const method = route.method === 'HEAD' ? 'get' : route.method.toLowerCase();
  return doc.paths?.[path]?.[method];
}

/**
 * The id type each path parameter takes (`customerId` -> `Customer`), read from the pattern the
 * route documents (`^Customer:<uuid>$`), so new routes need no list kept by hand.
 */
export function paramIdTypes(t: TestApp, route: RouteEntry): Record<string, string> {
  const parameters = openApiOperation(t, route)?.parameters ?? [];
  const types: Record<string, string> = {};
  for (const name of pathParams(route.url)) {
    const pattern = parameters.find((p) => p.in === 'path' && p.name === name)?.schema?.pattern;
    const idType = pattern ? /^\^([A-Za-z]+):/.exec(pattern)?.[1] : undefined;
    if (!idType) throw new Error(`${routeKey(route)}: path parameter :${name} documents no id pattern (^Type:<uuid>$)`);
    types[name] = idType;
  }
  return types;
}

/** The top-level fields a route's body schema names. */
export function bodyFields(t: TestApp, route: RouteEntry): string[] {
  const content = openApiOperation(t, route)?.requestBody?.content ?? {};
  const schema = Object.values(content)[0]?.schema;
  return Object.keys(schema?.properties ?? {});
}

/**
 * The ids of one platform's resources: id type (`Customer`) -> id. Where one id type lives in
 * several collections, `idKey(type, collection)` names the one a collection serves
 * (`ExternalAccount at /platform/external-accounts`).
 */
export type Ids = ReadonlyMap<string, string>;

export function idKey(idType: string, collection: string): string {
  return `${idType} at ${collection}`;
}

function idFor(ids: Ids, idType: string, collection: string, needer: string, fixtureHint: string): string {
  const id = ids.get(idKey(idType, collection)) ?? ids.get(idType);
  if (!id) throw new Error(`add a ${fixtureHint} that creates a ${idType} (needed by ${needer}) to createOneOfEach in test/route-fixtures.ts`);
  return id;
}

/** Puts ids into a route's path. */
export function fillPath(t: TestApp, route: RouteEntry, ids: Ids, fixtureHint = 'fixture'): string {
  const types = paramIdTypes(t, route);
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string, offset: number) => {
    const collection = route.url.slice(API_PREFIX.length, offset).replace(/\/$/, '');
    return encodeURIComponent(idFor(ids, types[name]!, collection, routeKey(route), fixtureHint));
  });
}

/** A well-formed id of the given type that names nothing. */
export function unknownId(idType: string): string {
  return `${idType}:01a20061-044a-7399-9737-e82f3a74e590`;
}

/** `variant` picks one of several resources of a type (`id('ExternalAccount', 'MXN')`). */
type IdLookup = (idType: string, variant?: string) => string;
type BodyFixture = Record<string, unknown> | ((id: IdLookup) => Record<string, unknown>);

let accountNumbers = 0;

/** A US bank account not registered before (a platform registers each account once). */
function usBankAccount(): Record<string, unknown> {
  accountNumbers += 1;
  return {
    accountType: 'US_ACCOUNT',
    routingNumber: '021000021',
    accountNumber: `48${String(accountNumbers).padStart(6, '0')}500`, // sandbox outcome: the last three digits
    bankName: 'Fixture Bank',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Fiona Fixture', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } },
  };
}

/**
 * A minimal valid body for each route that takes one, keyed by routeKey. A function receives the
 * calling platform's ids, for bodies that name a resource (those routes are tenancy-swept too).
 */
export const VALID_BODIES: Record<string, BodyFixture> = {
  'POST /tokens': { name: 'fixture token', permissions: ['VIEW', 'TRANSACT'] },
  'PATCH /config': {
    umaDomain: 'pay.example.com',
    webhookEndpoint: 'https://hooks.example.com/moneta',
    supportedCurrencies: [
      {
        currencyCode: 'USD',
        minAmount: 100,
        maxAmount: 1_000_000,
        requiredCounterpartyFields: [{ name: 'FULL_NAME', mandatory: true }],
        enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
      },
      // Kept enabled so resources created after this patch (quotes to a CLABE account) still work.
      { currencyCode: 'MXN', minAmount: 1, maxAmount: 100_000_000, requiredCounterpartyFields: [], enabledTransactionTypes: ['INCOMING', 'OUTGOING'] },
    ],
    feeConfigs: [{ feeType: 'CROSS_CURRENCY_TRANSACTION', sourceCurrency: 'USD', variableFeeBps: 25, fixedFee: { amount: 10, currency: 'USD' } }],
    embeddedWalletConfig: { appName: 'Fixture', otpLength: 6, sendFromEmailAddress: 'noreply@example.com' },
  },
  'POST /customers': {
    customerType: 'INDIVIDUAL',
    region: 'US',
    currencies: ['USD'],
    fullName: 'Fiona Fixture',
    birthDate: '1990-01-15',
    email: 'fiona@example.com',
    phoneNumber: '+14155551234',
    address: { line1: '1 Main St', postalCode: '98101', country: 'US' },
  },
  'PATCH /customers/:customerId': { customerType: 'INDIVIDUAL', fullName: 'Fiona Patched', address: { line1: '2 Side St', postalCode: '10001', country: 'US' } },
  'POST /customers/:customerId/kyc-link': { redirectUri: 'https://app.example.com/kyc-done' },
  'POST /sandbox/clock/advance': { seconds: 60 },
  'POST /sandbox/customers/:customerId/kyc-decision': { status: 'REJECTED' },
  'POST /sandbox/internal-accounts/:accountId/fund': { amount: 1000 },
  'POST /sandbox/bank-transfers': { reference: 'FIXTURE-REF-404', amount: 1000, currency: 'USD', senderName: 'Fixture Sender' },
  'POST /customers/external-accounts': (id) => ({ customerId: id('Customer'), currency: 'USD', accountInfo: usBankAccount() }),
  'POST /platform/external-accounts': () => ({ currency: 'USD', accountInfo: usBankAccount() }),
  'POST /transfer-out': (id) => ({ source: { accountId: id('InternalAccount') }, destination: { accountId: id('ExternalAccount') }, amount: 100, description: 'Fixture payout' }),
  'POST /webhooks/signing-keys/rotate': { overlapSeconds: 3600 },
  'POST /transfer-in': (id) => ({ source: { accountId: id('ExternalAccount') }, destination: { accountId: id('InternalAccount') }, amount: 100 }),
  'POST /quotes': (id) => ({
    source: { sourceType: 'ACCOUNT', accountId: id('InternalAccount') },
    destination: { destinationType: 'ACCOUNT', accountId: id('ExternalAccount', 'MXN') },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1000,
    description: 'Fixture quote',
  }),
  'POST /sandbox/send': (id) => ({ quoteId: id('Quote', 'realtime'), currencyCode: 'USD' }),
  'POST /transactions/:transactionId/cancel': { reason: 'REQUESTED_AFTER_HOURS' },
  'POST /transactions/:transactionId/confirm': { receiptDeliveryConfirmedAt: '2025-08-15T14:31:00Z' },
};

/** True when the route's valid body names one of the caller's resources. */
export function bodyNamesResources(route: RouteEntry): boolean {
  const fixture = VALID_BODIES[routeKey(route)];
  let named = false;
  if (typeof fixture === 'function') {
    fixture((idType) => {
      named = true;
      return unknownId(idType);
    });
  }
  return named;
}

export function validBody(route: RouteEntry, ids: Ids, fixtureHint = 'valid-body fixture'): Record<string, unknown> {
  const fixture = VALID_BODIES[routeKey(route)];
  if (!fixture) throw new Error(`add a ${fixtureHint} for ${routeKey(route)} to VALID_BODIES in test/route-fixtures.ts`);
  return typeof fixture === 'function' ? fixture((type, variant) => idFor(ids, type, variant ?? '', routeKey(route), fixtureHint)) : structuredClone(fixture);
}

/** Creates one resource of each id type for `platform`; returns id type -> id. */
export async function createOneOfEach(t: TestApp, platform: TestPlatform, label: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  async function create(what: string, method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<ApiResponse> {
    const res = await t.api(platform, method, path, body);
    if (res.status >= 300) throw new Error(`${what} for ${label}: ${method} ${path} answered ${res.status} ${res.text}`);
    return res;
  }
  // Fuzzed PATCH /config bodies may have left a currency or direction disabled: enable what the fixtures use.
  await create('enabling the fixtures’ currencies', 'PATCH', '/config', {
    supportedCurrencies: ['USD', 'MXN'].map((currencyCode) => ({
      currencyCode,
      minAmount: 1,
      maxAmount: 1_000_000_000,
      requiredCounterpartyFields: [],
      enabledTransactionTypes: ['INCOMING', 'OUTGOING'],
    })),
  });
  const customer = await create('creating a customer', 'POST', '/customers', {
    customerType: 'INDIVIDUAL',
    platformCustomerId: `${label}-customer`,
    fullName: `${label} Customer`,
    email: `${label}@example.com`,
    currencies: ['USD'],
  });
  const customerId = customer.body.id as string;
  ids.set('Customer', customerId);
  const token = await create('creating a token', 'POST', '/tokens', { name: `${label} token`, permissions: ['VIEW'] });
  ids.set('ApiToken', token.body.id as string);
  // A customer's currencies open its internal accounts; sandbox funding makes a transaction.
  const accounts = await create('listing internal accounts', 'GET', `/internal-account?customerId=${encodeURIComponent(customerId)}`);
  const accountId = accounts.body.data[0]?.id as string | undefined;
  if (!accountId) throw new Error(`a customer with currencies ['USD'] has no internal account: ${accounts.text}`);
  ids.set('InternalAccount', accountId);
  await create('funding an internal account', 'POST', `/sandbox/internal-accounts/${accountId}/fund`, { amount: 5000 });
  const external = await create('registering an external account', 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: usBankAccount() });
  ids.set('ExternalAccount', external.body.id as string);
  // A payout still on its way (no job runs here), so the transaction routes, cancel included, have one to act on.
  const payout = await create('sending a payout', 'POST', '/transfer-out', { source: { accountId }, destination: { accountId: external.body.id }, amount: 100 });
  ids.set('Transaction', payout.body.id as string);
  const clabe = await create('registering a CLABE account', 'POST', '/customers/external-accounts', {
    customerId,
    currency: 'MXN',
    accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('219'), bankName: 'Fixture Banco', beneficiary: mexicanBeneficiary },
  });
  ids.set(idKey('ExternalAccount', 'MXN'), clabe.body.id as string);
  const quote = await create('creating a quote', 'POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId },
    destination: { destinationType: 'ACCOUNT', accountId: clabe.body.id },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1000,
  });
  ids.set('Quote', quote.body.id as string);
  const realtime = await create('creating a real-time funded quote', 'POST', '/quotes', {
    source: { sourceType: 'REALTIME_FUNDING', customerId, currency: 'USD' },
    destination: { destinationType: 'ACCOUNT', accountId: clabe.body.id },
    lockedCurrencySide: 'RECEIVING',
    lockedCurrencyAmount: 10_000,
  });
  ids.set(idKey('Quote', 'realtime'), realtime.body.id as string);
  const platformExternal = await create('registering a platform external account', 'POST', '/platform/external-accounts', { currency: 'USD', accountInfo: usBankAccount() });
  ids.set(idKey('ExternalAccount', '/platform/external-accounts'), platformExternal.body.id as string);
  const events = await create('listing webhook events', 'GET', '/webhooks/events?limit=1');
  const eventId = events.body.data[0]?.id as string | undefined;
  if (!eventId) throw new Error(`creating resources recorded no event: ${events.text}`);
  ids.set('Webhook', eventId);
  return ids;
}

/**
 * A digest of every row of every table in the test's schema, to prove a request wrote nothing.
 */
export async function databaseFingerprint(db: Db): Promise<string> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  const digests = sql.join(
    tables.rows.map(({ name }) => sql`select ${sql.lit(name)} as name, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${sql.table(name)} t`),
    sql` union all `,
  );
  const rows = await sql<{ name: string; digest: string }>`${digests}`.execute(db);
  return rows.rows
    .map((r) => `${r.name}:${r.digest}`)
    .sort()
    .join(' ');
}
