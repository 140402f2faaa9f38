import type { Selectable } from 'kysely';
import type { Db, Executor } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { newId, type CustomerId, type Id, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { KycProvider, VerificationStatus as KycStatus } from '../../providers/kyc-provider.js';
import type { CustomerRow, CustomerService } from '../customers/service.js';
import type { BeneficialOwnerService } from '../beneficial-owners/service.js';
import type { DocumentService } from '../documents/service.js';
import { verificationNotFound } from './errors.js';
import { businessRequirements, individualRequirements } from './requirements.js';
import type { VerificationErrorView, VerificationStatus } from './schemas.js';
import type { VerificationsTable } from './tables.js';
import './events.js';

export type VerificationId = Id<'Verification'>;
type Row = Selectable<VerificationsTable>;

export interface VerificationView {
  id: VerificationId;
  customerId: CustomerId;
  verificationStatus: VerificationStatus;
  errors: VerificationErrorView[];
  createdAt: string;
  updatedAt: string;
}

/** The job that gives a verification in review its decision. */
export const DECIDE_JOB = 'verification.decide';
/** How long the review of a complete submission takes before its decision (the reference's asynchronous progression). */
export const REVIEW_DELAY_MS = 10_000;

function view(row: Row): VerificationView {
  return {
    id: row.id,
    customerId: row.customer_id,
    verificationStatus: row.status,
    errors: row.errors,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * Where the provider's decision on a complete submission leads (the sandbox decides by the suffix
 * of the business's registration number or the person's full name; production's manual review
 * answers PENDING): the verification's status now, the customer's, and the decision the review job
 * later records (none: it waits for a person).
 */
export function reviewOf(decision: KycStatus): { status: VerificationStatus; customerStatus: KycStatus; later?: 'APPROVED' | 'REJECTED' } {
  switch (decision) {
    case 'APPROVED':
    case 'REJECTED':
      return { status: 'IN_PROGRESS', customerStatus: 'PENDING', later: decision };
    case 'HOLD':
      return { status: 'PENDING_MANUAL_REVIEW', customerStatus: 'HOLD' };
    case 'PENDING':
      return { status: 'PENDING_MANUAL_REVIEW', customerStatus: 'PENDING' };
    default:
      // No automatic decision (the sandbox's 003): in progress until someone decides.
      return { status: 'IN_PROGRESS', customerStatus: 'PENDING' };
  }
}

type Deps = {
  db: Db;
  customers: CustomerService;
  beneficialOwners: Pick<BeneficialOwnerService, 'allOf'>;
  documents: Pick<DocumentService, 'forHolders' | 'markSubmitted'>;
  kyc: Pick<KycProvider, 'decide'>;
};

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

async function insert(uow: UnitOfWork, customerId: CustomerId, status: VerificationStatus, errors: VerificationErrorView[]): Promise<VerificationView> {
  const row = await uow.tx
    .insertInto('verifications')
    .values({ id: newId('Verification'), platform_id: uow.platformId, customer_id: customerId, status, errors: JSON.stringify(errors), created_at: uow.now, updated_at: uow.now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const verification = view(row);
  if (status !== 'READY_FOR_VERIFICATION') uow.emit(`VERIFICATION.${status}`, verification);
  return verification;
}

/** What the customer, its owners and their documents still lack; empty when the submission is complete. */
async function requirements(deps: Deps, uow: UnitOfWork, customer: CustomerRow) {
  const facts = { id: customer.id, customerType: customer.customer_type, profile: customer.profile };
  const owners = customer.customer_type === 'BUSINESS' ? await deps.beneficialOwners.allOf(uow.tx, uow.platformId, customer.id) : [];
  const documents = await deps.documents.forHolders(uow.tx, uow.platformId, [customer.id, ...owners.map((o) => o.id)]);
  const errors =
    customer.customer_type === 'BUSINESS'
      ? businessRequirements(facts, owners.map((o) => ({ id: o.id, roles: o.roles, nationality: o.personalInfo.nationality, kycStatus: o.kycStatus })), documents)
      : individualRequirements(facts, documents);
  return { errors, documents };
}

export async function submitVerification(deps: Deps, uow: UnitOfWork, customerId: CustomerId): Promise<VerificationView> {
  const customer = await deps.customers.loadForUpdate(uow.tx, uow.platformId, customerId);
  // A submission already in review is the answer to a repeated POST: one review at a time.
  const open = await uow.tx.selectFrom('verifications').selectAll().where('platform_id', '=', uow.platformId).where('customer_id', '=', customerId).where('status', 'in', ['IN_PROGRESS', 'PENDING_MANUAL_REVIEW']).executeTakeFirst();
  if (open) return view(open);
  const { errors, documents } = await requirements(deps, uow, customer);
  if (errors.length > 0) return insert(uow, customerId, 'RESOLVE_ERRORS', errors);
  await deps.documents.markSubmitted(uow.tx, uow.platformId, documents.map((d) => d.id), uow.now);
  // An approved customer stays approved: the complete submission is approved at once.
  if (customer.kyc_status === 'APPROVED') return insert(uow, customerId, 'APPROVED', []);
  const profile = customer.profile as { fullName?: unknown; birthDate?: unknown; nationality?: unknown; businessInfo?: Record<string, unknown> };
  const decision =
    customer.customer_type === 'BUSINESS'
      ? deps.kyc.decide('BUSINESS', { registrationNumber: text(profile.businessInfo?.registrationNumber) ?? text(profile.businessInfo?.taxId), legalName: text(profile.businessInfo?.legalName) })
      : deps.kyc.decide('INDIVIDUAL', { fullName: text(profile.fullName), birthDate: text(profile.birthDate), nationality: text(profile.nationality) });
  const review = reviewOf(decision);
  const verification = await insert(uow, customerId, review.status, []);
  await deps.customers.setVerificationStatus(uow, customer, review.customerStatus);
  if (review.later) await scheduleJob(uow, { kind: DECIDE_JOB, payload: { verificationId: verification.id, decision: review.later }, runAt: inMs(uow, REVIEW_DELAY_MS) });
  return verification;
}

/** The review's decision: the verification and the customer move to it, each with its event. */
export async function decideVerification(deps: Pick<Deps, 'customers'>, uow: UnitOfWork, verificationId: VerificationId, decision: 'APPROVED' | 'REJECTED'): Promise<void> {
  const row = await uow.tx.selectFrom('verifications').selectAll().where('platform_id', '=', uow.platformId).where('id', '=', verificationId).forNoKeyUpdate().executeTakeFirst();
  if (!row || row.status !== 'IN_PROGRESS') return;
  const updated = await uow.tx.updateTable('verifications').set({ status: decision, updated_at: uow.now }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  uow.emit(`VERIFICATION.${decision}`, view(updated));
  // A customer deleted since keeps its record as it was.
  const customer = await deps.customers.findActive(uow.tx, uow.platformId, { id: row.customer_id });
  if (customer) await deps.customers.setVerificationStatus(uow, await deps.customers.loadForUpdate(uow.tx, uow.platformId, customer.id), decision);
}

async function find(executor: Executor, platformId: PlatformId, id: VerificationId): Promise<Row> {
  const row = await executor.selectFrom('verifications').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst();
  if (!row) throw verificationNotFound();
  return row;
}

export type VerificationService = ReturnType<typeof createVerificationService>;

export function createVerificationService(deps: Deps) {
  const { db } = deps;
  return {
    submit: (uow: UnitOfWork, customerId: CustomerId) => submitVerification(deps, uow, customerId),
    decide: (uow: UnitOfWork, verificationId: VerificationId, decision: 'APPROVED' | 'REJECTED') => decideVerification(deps, uow, verificationId, decision),
    get: async (scope: Scope, id: VerificationId): Promise<VerificationView> => view(await find(db, scope.platformId, id)),
    async list(scope: Scope, filters: PageParams & { customerId?: CustomerId | undefined; verificationStatus?: string | undefined }) {
      let query = db.selectFrom('verifications as t').selectAll('t').where('t.platform_id', '=', scope.platformId);
      if (filters.customerId !== undefined) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.verificationStatus !== undefined) query = query.where('t.status', '=', filters.verificationStatus as VerificationStatus);
      return paginate(query, filters, view);
    },
  };
}
