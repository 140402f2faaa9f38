import type { Gates } from '../../core/gates.js';
import { sql, type Selectable } from 'kysely';
import type { Db, Executor, Tx } from '../../db/schema.js';
import type { ContactVerificationState, CustomersTable } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { statementShape } from '../../db/statement-shape.js';
import type { EventType } from '../../core/events.js';
import { newId, uuidOf, type CustomerId, type PlatformId } from '../../core/ids.js';
import { SignatureRequired, type WalletSignature } from '../../core/signature.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import type { Ledger } from '../../ledger/index.js';
import type { KycProvider } from '../../providers/kyc-provider.js';
import type { Reactions } from '../../core/reactions.js';
import { customerDeleted, customerNotFound, duplicatePlatformCustomerId, refuseUnlessReady } from './errors.js';
import { IDENTIFICATION_ALIASES, type CustomerType, type KycStatus } from './schemas.js';
import { createRequestErrors, prepareInput, requireEndUserTerms, type EndUserTermsOf } from './input.js';
import type { FieldError } from '../../core/errors.js';
import './events.js';

export type CustomerRow = Selectable<CustomersTable>;

export interface CustomerView {
  id: CustomerId;
  platformCustomerId: string;
  customerType: CustomerType;
  kycStatus?: KycStatus;
  kybStatus?: KycStatus;
  region?: string;
  currencies: string[];
  email?: string;
  phoneNumber?: string;
  umaAddress: string;
  contactVerification?: ContactVerificationState;
  isDeleted: boolean;
  createdAt: string;
  updatedAt: string;
  [profileField: string]: unknown;
}

export interface CustomerInput {
  customerType: string;
  platformCustomerId?: string | undefined;
  region?: string | undefined;
  currencies?: string[] | undefined;
  email?: string | undefined;
  phoneNumber?: string | undefined;
  umaAddress?: string | undefined;
  businessInfo?: Record<string, unknown> | undefined;
  [profileField: string]: unknown;
}

export interface CustomerFilters extends PageParams {
  platformCustomerId?: string | undefined;
  customerType?: string | undefined;
  kycStatus?: string | undefined;
  kybStatus?: string | undefined;
  region?: string | undefined;
  currency?: string | undefined;
  email?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  updatedAfter?: string | undefined;
  updatedBefore?: string | undefined;
  isIncludingDeleted?: boolean | undefined;
}

/** Columns of their own; every other accepted field lives in `profile`. `identifier` is write-only. */
const COLUMN_FIELDS = new Set(['customerType', 'platformCustomerId', 'region', 'currencies', 'email', 'phoneNumber', 'umaAddress']);
const WRITE_ONLY_FIELDS = new Set(['identifier', 'taxIdentifier']);

/**
 * The customer as responses show it: its columns, then the stored profile (never the identifier;
 * the identification fields under both their names), then its state. Built by assignment, in that
 * key order: a read builds one per request, and spreading a conditional object per optional field
 * and a filtered copy of the profile was the largest single cost of `GET /customers/{id}` outside
 * the database driver.
 */
export function customerView(row: CustomerRow): CustomerView {
  const view: Record<string, unknown> = { id: row.id, platformCustomerId: row.platform_customer_id, customerType: row.customer_type };
  if (row.customer_type === 'BUSINESS') view.kybStatus = row.kyc_status;
  else view.kycStatus = row.kyc_status;
  if (row.region) view.region = row.region;
  view.currencies = row.currencies;
  if (row.email) view.email = row.email;
  if (row.phone_number) view.phoneNumber = row.phone_number;
  view.umaAddress = row.uma_address;
  const stored = row.profile;
  for (const key of Object.keys(stored)) if (!WRITE_ONLY_FIELDS.has(key)) view[key] = stored[key];
  for (const [today, earlier] of IDENTIFICATION_ALIASES) {
    if (!WRITE_ONLY_FIELDS.has(today) && stored[today] !== undefined) view[earlier] = stored[today];
  }
  if (row.contact_verification) view.contactVerification = row.contact_verification;
  view.isDeleted = row.deleted_at !== null;
  view.createdAt = row.created_at.toISOString();
  view.updatedAt = row.updated_at.toISOString();
  return view as CustomerView;
}

function profileOf(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([k, v]) => !COLUMN_FIELDS.has(k) && v !== undefined));
}

function defaultUmaAddress(platformCustomerId: string, domain: string): string {
  const local = platformCustomerId.replace(/[^a-zA-Z0-9._+-]/g, '-').slice(0, 64) || 'customer';
  return `$${local}@${domain}`;
}

/** The event a verification status announces, if any (UNVERIFIED announces nothing). */
export function verificationEventType(customerType: CustomerType, status: KycStatus): Extract<EventType, `CUSTOMER.${string}`> | undefined {
  if (status === 'UNVERIFIED') return undefined;
  return `CUSTOMER.${customerType === 'BUSINESS' ? 'KYB' : 'KYC'}_${status}`;
}

/** What the `customer.contactChange` gate is shown: the customer as it is, the change, and the signed retry's headers. */
export interface ContactChange {
  customer: CustomerRow;
  patch: CustomerInput;
  signature: WalletSignature | undefined;
}

export type CustomerService = ReturnType<typeof createCustomerService>;

/** The name on the customer's accounts: the person's full name, the business's legal name, or the platform's id for it. */
export function holderName(row: CustomerRow): string {
  const { fullName, businessInfo } = row.profile as { fullName?: string; businessInfo?: { legalName?: string } };
  return fullName ?? businessInfo?.legalName ?? row.platform_customer_id;
}
export interface CustomerDeps {
  db: Db;
  /** Creating a customer announces `customer.created`, deleting one `customer.deleted`: its cards, agents and delegated keys go with it. */
  reactions: Pick<Reactions, 'run'>;
  /** The checks a contact change must pass (`customer.contactChange`). */
  gates: Pick<Gates, 'of'>;
  kyc: Pick<KycProvider, 'initialStatus'>;
  umaDomain: (executor: Executor, platformId: PlatformId) => Promise<string>;
  /** The platform's end-user terms (current version, earlier ones, whether quotes require consent). */
  endUserTerms: EndUserTermsOf;
  ledger: Pick<Ledger, 'openCustomerAccounts' | 'lockHolderAccounts'>;
}

/** Opens the internal accounts a customer's currencies call for (created with the customer, and on later currency additions). */
async function openAccounts({ ledger }: Pick<CustomerDeps, 'ledger'>, uow: UnitOfWork, row: CustomerRow): Promise<void> {
  await ledger.openCustomerAccounts(uow.tx, { platformId: uow.platformId, id: row.id, currencies: row.currencies, region: row.region, holderName: holderName(row) }, uow.now);
}

export async function loadCustomerForUpdate(tx: Tx, platformId: PlatformId, customerId: CustomerId): Promise<CustomerRow> {
  const row = await tx
    .selectFrom('customers')
    .selectAll()
    .where('platform_id', '=', platformId)
    .where('id', '=', customerId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!row) throw customerNotFound();
  if (row.deleted_at) throw customerDeleted();
  return row;
}

/** Moves a customer's verification status and announces it, in the caller's unit of work. */
export async function setVerificationStatus(uow: UnitOfWork, row: CustomerRow, status: KycStatus): Promise<CustomerView> {
  if (row.kyc_status === status) return customerView(row);
  const updated = await uow.tx
    .updateTable('customers')
    .set({ kyc_status: status, updated_at: uow.now })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const view = customerView(updated);
  const type = verificationEventType(updated.customer_type, status);
  if (type) uow.emit(type, view);
  return view;
}

/**
 * Records the identity details a verification provider verified (the hosted form's name, birth
 * date, nationality; a business's legal name and registration number) on the customer.
 */
export async function recordVerifiedDetails(uow: UnitOfWork, row: CustomerRow, details: { fullName?: string | undefined; birthDate?: string | undefined; nationality?: string | undefined; legalName?: string | undefined; registrationNumber?: string | undefined }): Promise<CustomerRow> {
  const { legalName, registrationNumber, ...person } = details;
  const profile: Record<string, unknown> = { ...row.profile, ...profileOf(row.customer_type === 'BUSINESS' ? {} : person) };
  if (row.customer_type === 'BUSINESS') profile.businessInfo = { ...(row.profile.businessInfo ?? {}), ...profileOf({ legalName, registrationNumber }) };
  return uow.tx.updateTable('customers').set({ profile: JSON.stringify(profile), updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
}

/**
 * The status a new customer starts with: the provider's decision on what was sent, except for a
 * business without its incorporation date, which is not decided until its KYB (the hosted flow).
 */
function initialStatus(deps: Pick<CustomerDeps, 'kyc'>, customerType: CustomerType, input: CustomerInput): KycStatus {
  if (customerType === 'BUSINESS' && input.businessInfo?.incorporatedOn === undefined) return 'UNVERIFIED';
  return deps.kyc.initialStatus(customerType, {
    fullName: input.fullName as string | undefined,
    registrationNumber: input.businessInfo?.registrationNumber as string | undefined,
  });
}

export async function createCustomer(deps: CustomerDeps, uow: UnitOfWork, sent: CustomerInput): Promise<CustomerView> {
  const input = await prepareInput(deps.endUserTerms, uow.tx, uow.platformId, sent, 'create');
  const id = newId('Customer');
  const customerType = input.customerType as CustomerType;
  const platformCustomerId = input.platformCustomerId ?? uuidOf(id);
  const status = initialStatus(deps, customerType, input);
  let row: CustomerRow;
  try {
    row = await uow.tx
      .insertInto('customers')
      .values({
        id,
        platform_id: uow.platformId,
        platform_customer_id: platformCustomerId,
        customer_type: customerType,
        kyc_status: status,
        region: input.region ?? null,
        currencies: JSON.stringify(input.currencies ?? []),
        email: input.email ?? null,
        phone_number: input.phoneNumber ?? null,
        uma_address: input.umaAddress ?? defaultUmaAddress(platformCustomerId, await deps.umaDomain(uow.tx, uow.platformId)),
        profile: JSON.stringify(profileOf(input)),
        created_at: uow.now,
        updated_at: uow.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicatePlatformCustomerId(platformCustomerId);
    throw error;
  }
  await openAccounts(deps, uow, row);
  await deps.reactions.run(uow, 'customer.created', { customer: { id: row.id, email: row.email, holderName: holderName(row), region: row.region } });
  const view = customerView(row);
  const type = verificationEventType(customerType, status);
  if (type) uow.emit(type, view);
  return view;
}

/** A customer of the platform that has not been deleted, by id or by UMA address. */
export async function findActiveCustomer(executor: Executor, platformId: PlatformId, by: { id: CustomerId } | { umaAddress: string }): Promise<CustomerRow | undefined> {
  let query = executor.selectFrom('customers').selectAll().where('platform_id', '=', platformId).where('deleted_at', 'is', null);
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('uma_address', '=', by.umaAddress);
  return query.executeTakeFirst();
}

/** refuseUnlessReady for a customer whose standing the caller has not read yet (one query). */
export async function requireCustomerReady(executor: Executor, platformId: PlatformId, customerId: CustomerId | null): Promise<void> {
  if (customerId === null) return;
  const row = await executor.selectFrom('customers').select(['kyc_status', 'deleted_at']).where('platform_id', '=', platformId).where('id', '=', customerId).executeTakeFirst();
  if (!row) throw customerNotFound();
  refuseUnlessReady(customerId, row.kyc_status, row.deleted_at);
}

/** One customer of the platform, deleted or not (one statement text, db/statement-shape.ts: the read of `GET /customers/{id}`). */
const customerById = statementShape((executor: Executor, { platformId, customerId }: { platformId: PlatformId; customerId: CustomerId }) =>
  executor.selectFrom('customers').selectAll().where('platform_id', '=', platformId).where('id', '=', customerId),
);

export async function getCustomer({ db }: Pick<CustomerDeps, 'db'>, { platformId }: Scope, customerId: CustomerId): Promise<CustomerView> {
  const [row] = (await customerById(db, { platformId, customerId }).execute(db)).rows;
  if (!row) throw customerNotFound();
  if (row.deleted_at) throw customerDeleted();
  return customerView(row);
}

export async function listCustomers({ db }: Pick<CustomerDeps, 'db'>, { platformId }: Scope, filters: CustomerFilters) {
  let query = db.selectFrom('customers as t').selectAll('t').where('t.platform_id', '=', platformId);
  if (!filters.isIncludingDeleted) query = query.where('t.deleted_at', 'is', null);
  if (filters.platformCustomerId !== undefined) query = query.where('t.platform_customer_id', '=', filters.platformCustomerId);
  if (filters.customerType) query = query.where('t.customer_type', '=', filters.customerType as CustomerType);
  if (filters.kycStatus) query = query.where('t.customer_type', '=', 'INDIVIDUAL').where('t.kyc_status', '=', filters.kycStatus as KycStatus);
  if (filters.kybStatus) query = query.where('t.customer_type', '=', 'BUSINESS').where('t.kyc_status', '=', filters.kybStatus as KycStatus);
  if (filters.region) query = query.where('t.region', '=', filters.region);
  if (filters.email) query = query.where('t.email', '=', filters.email);
  if (filters.currency) query = query.where(sql<boolean>`t.currencies @> ${JSON.stringify([filters.currency])}::jsonb`);
  if (filters.createdAfter) query = query.where('t.created_at', '>=', new Date(filters.createdAfter));
  if (filters.createdBefore) query = query.where('t.created_at', '<=', new Date(filters.createdBefore));
  if (filters.updatedAfter) query = query.where('t.updated_at', '>=', new Date(filters.updatedAfter));
  if (filters.updatedBefore) query = query.where('t.updated_at', '<=', new Date(filters.updatedBefore));
  return paginate(query, filters, customerView);
}

/** What is wrong with a patch that changes the customer's type, or email and phone number at once. */
function patchErrors(row: CustomerRow, patch: CustomerInput): FieldError[] {
  const errors: FieldError[] = [];
  if (patch.customerType !== row.customer_type) {
    errors.push({ field: 'customerType', constraint: { enum: [row.customer_type] }, message: `customerType must stay ${row.customer_type}` });
  }
  if (patch.email !== undefined && patch.phoneNumber !== undefined) {
    errors.push({ field: 'email', message: 'Update email and phoneNumber in separate requests' });
    errors.push({ field: 'phoneNumber', message: 'Update email and phoneNumber in separate requests' });
  }
  return errors;
}

/**
 * Applies an update. Sent fields replace stored ones. Changing the contact tied to a wallet's
 * OTP credential will need the wallet's signature (202 flow); `contactChangeNeedsSignature` is
 * the seam where the wallet module plugs that in.
 */
export async function updateCustomer(deps: CustomerDeps, uow: UnitOfWork, customerId: CustomerId, sent: CustomerInput, signature?: WalletSignature): Promise<CustomerView | SignatureRequired> {
  const row = await loadCustomerForUpdate(uow.tx, uow.platformId, customerId);
  const patch = await prepareInput(deps.endUserTerms, uow.tx, uow.platformId, sent, 'update', patchErrors(row, sent));

  // A contact an embedded wallet's OTP credential is tied to changes only with that wallet's
  // signature: a gate answers a challenge (202) or accepts the signed retry.
  if (patch.email !== undefined || patch.phoneNumber !== undefined) {
    for (const gate of deps.gates.of('customer.contactChange')) {
      const challenge = await gate(uow, { customer: row, patch, signature });
      if (challenge) return new SignatureRequired(challenge);
    }
  }

  const profile = { ...row.profile, ...profileOf(patch) };
  if (patch.businessInfo) profile.businessInfo = { ...((row.profile.businessInfo) ?? {}), ...patch.businessInfo };
  const updated = await uow.tx
    .updateTable('customers')
    .set({
      ...(patch.currencies !== undefined ? { currencies: JSON.stringify(patch.currencies) } : {}),
      ...(patch.email !== undefined ? { email: patch.email } : {}),
      ...(patch.phoneNumber !== undefined ? { phone_number: patch.phoneNumber } : {}),
      ...(patch.umaAddress !== undefined ? { uma_address: patch.umaAddress } : {}),
      ...contactVerificationAfter(row, patch),
      profile: JSON.stringify(profile),
      updated_at: uow.now,
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (patch.currencies !== undefined) await openAccounts(deps, uow, updated);
  return customerView(updated);
}

/** A verified contact that changes is no longer verified: its channel goes back to PENDING. */
function contactVerificationAfter(row: CustomerRow, patch: CustomerInput): { contact_verification?: string } {
  const state = row.contact_verification;
  if (!state) return {};
  const next = { ...state };
  if (patch.email !== undefined && patch.email !== row.email && next.email) next.email = 'PENDING';
  if (patch.phoneNumber !== undefined && patch.phoneNumber !== row.phone_number && next.phone) next.phone = 'PENDING';
  return { contact_verification: JSON.stringify(next) };
}

/**
 * Records the customer's contact verification state (the contact-verification module decides it):
 * shown as `contactVerification` on the customer from then on; null removes it.
 */
export async function setContactVerification(executor: Executor, platformId: PlatformId, customerId: CustomerId, state: ContactVerificationState | null): Promise<void> {
  await executor
    .updateTable('customers')
    .set({ contact_verification: state === null ? null : JSON.stringify(state) })
    .where('platform_id', '=', platformId)
    .where('id', '=', customerId)
    .execute();
}

/**
 * Soft-deletes: the record stays for the ledger and audit, answers 410 from then on, and its
 * money no longer moves (refuseUnlessReady). In the same unit of work the modules that hold
 * spending power for it give it up (`customer.deleted`: cards close, agents and delegated keys
 * are revoked, each with its event).
 */
export async function removeCustomer(deps: Pick<CustomerDeps, 'reactions' | 'ledger'>, uow: UnitOfWork, customerId: CustomerId): Promise<CustomerView> {
  const row = await loadCustomerForUpdate(uow.tx, uow.platformId, customerId);
  // Money moving on its accounts in a batch goes first; whatever moves after reads it deleted.
  await deps.ledger.lockHolderAccounts(uow.tx, uow.platformId, row.id);
  const deleted = await uow.tx
    .updateTable('customers')
    .set({ deleted_at: uow.now, updated_at: uow.now })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await deps.reactions.run(uow, 'customer.deleted', { customerId: row.id });
  return customerView(deleted);
}

/** The customer service: the functions above bound to their dependencies, under the names callers use. */
export function createCustomerService(deps: CustomerDeps) {
  return {
    loadForUpdate: loadCustomerForUpdate,
    setVerificationStatus,
    recordVerifiedDetails,
    setContactVerification,
    create: (uow: UnitOfWork, input: CustomerInput): Promise<CustomerView> => createCustomer(deps, uow, input),
    /** Every invalid field of a create request by POST /customers's schema (create then applies the rest of the rules). */
    createRequestErrors,
    findActive: findActiveCustomer,
    requireReady: requireCustomerReady,
    get: (scope: Scope, customerId: CustomerId): Promise<CustomerView> => getCustomer(deps, scope, customerId),
    list: (scope: Scope, filters: CustomerFilters) => listCustomers(deps, scope, filters),
    update: (uow: UnitOfWork, customerId: CustomerId, patch: CustomerInput, signature?: WalletSignature): Promise<CustomerView | SignatureRequired> =>
      updateCustomer(deps, uow, customerId, patch, signature),
    remove: (uow: UnitOfWork, customerId: CustomerId): Promise<CustomerView> => removeCustomer(deps, uow, customerId),
    /** The platform's current end-user terms and where they are hosted (GET /customers/end-user-terms). */
    endUserTerms: async ({ platformId }: Scope): Promise<{ version: string; url: string }> => {
      const { version, url } = await deps.endUserTerms(deps.db, platformId);
      return { version, url };
    },
    /** The `quote.create` gate: 403 END_USER_TERMS_NOT_ACCEPTED where the platform requires consent the paying customer has not given. */
    requireEndUserTerms: (uow: UnitOfWork, customerId: CustomerId | null): Promise<void> => requireEndUserTerms(deps.endUserTerms, uow.tx, uow.platformId, customerId),
  };
}
