import type { Selectable } from 'kysely';
import type { Db, Executor } from '../../db/schema.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput } from '../../core/errors.js';
import { newId, type CustomerId, type Id, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Sealer } from '../../lib/sealed.js';
import type { KycProvider, VerificationStatus } from '../../providers/kyc-provider.js';
import type { CustomerService } from '../customers/service.js';
import { customerNotFound } from '../customers/errors.js';
import { beneficialOwnerNotFound } from './errors.js';
import type { BeneficialOwnersTable } from './tables.js';

export type BeneficialOwnerId = Id<'BeneficialOwner'>;
type Row = Selectable<BeneficialOwnersTable>;

export interface PersonalInfoInput {
  firstName?: string | undefined;
  middleName?: string | undefined;
  lastName?: string | undefined;
  birthDate?: string | undefined;
  nationality?: string | undefined;
  email?: string | undefined;
  phoneNumber?: string | undefined;
  address?: Record<string, unknown> | undefined;
  idType?: string | undefined;
  identifier?: string | undefined;
  countryOfIssuance?: string | undefined;
}

export interface BeneficialOwnerInput {
  customerId: CustomerId;
  roles: string[];
  ownershipPercentage: number;
  personalInfo: PersonalInfoInput;
}

export interface BeneficialOwnerPatch {
  roles?: string[] | undefined;
  ownershipPercentage?: number | undefined;
  personalInfo?: PersonalInfoInput | undefined;
}

export interface BeneficialOwnerView {
  id: BeneficialOwnerId;
  customerId: CustomerId;
  roles: string[];
  ownershipPercentage: number;
  personalInfo: Record<string, unknown>;
  kycStatus: VerificationStatus;
  createdAt: string;
  updatedAt: string;
}

/** The identifier as responses show it: its last four characters, the rest masked. */
export function maskIdentifier(identifier: string): string {
  const visible = identifier.slice(-4);
  return `${'*'.repeat(Math.max(identifier.length - visible.length, 1))}${visible}`;
}

function sealContext(row: { platform_id: PlatformId; id: string }): string {
  return `${row.platform_id}\n${row.id}\nidentifier`;
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

export type BeneficialOwnerService = ReturnType<typeof createBeneficialOwnerService>;

export function createBeneficialOwnerService(deps: { db: Db; sealer: Sealer; customers: CustomerService; kyc: Pick<KycProvider, 'initialStatus'> }) {
  const { db, sealer, customers, kyc } = deps;

  function view(row: Row): BeneficialOwnerView {
    const identifier = sealer.open(row.identifier_sealed, sealContext(row));
    return {
      id: row.id,
      customerId: row.customer_id,
      roles: row.roles,
      ownershipPercentage: row.ownership_percentage,
      personalInfo: { ...row.personal_info, identifier: maskIdentifier(identifier) },
      kycStatus: row.kyc_status as VerificationStatus,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  /** The person's KYC, decided by the verification provider from their name (the sandbox's suffix table). */
  function kycStatusOf(info: Record<string, unknown>): VerificationStatus {
    return kyc.initialStatus('INDIVIDUAL', { fullName: `${String(info.firstName)} ${String(info.lastName)}` });
  }

  /** A business's owners together own at most 100%. */
  async function checkTotalOwnership(executor: Executor, platformId: PlatformId, customerId: CustomerId, percentage: number, exceptId?: BeneficialOwnerId): Promise<void> {
    let query = executor.selectFrom('beneficial_owners').select('ownership_percentage').where('platform_id', '=', platformId).where('customer_id', '=', customerId);
    if (exceptId) query = query.where('id', '!=', exceptId);
    const others = (await query.execute()).reduce((sum, r) => sum + r.ownership_percentage, 0);
    if (others + percentage > 100) {
      throw invalidInput([{ field: 'ownershipPercentage', message: `The business's other owners already hold ${others}%; together they cannot exceed 100%` }]);
    }
  }

  async function find(executor: Executor, platformId: PlatformId, id: BeneficialOwnerId, lock = false): Promise<Row> {
    let query = executor.selectFrom('beneficial_owners').selectAll().where('platform_id', '=', platformId).where('id', '=', id);
    if (lock) query = query.forNoKeyUpdate();
    const row = await query.executeTakeFirst();
    if (!row) throw beneficialOwnerNotFound();
    return row;
  }

  return {
    async create(uow: UnitOfWork, input: BeneficialOwnerInput): Promise<BeneficialOwnerView> {
      // Locks the business, so two owners added at once cannot together pass 100%.
      const customer = await customers.loadForUpdate(uow.tx, uow.platformId, input.customerId);
      if (customer.customer_type !== 'BUSINESS') {
        throw invalidInput([{ field: 'customerId', message: 'Beneficial owners belong to a BUSINESS customer' }]);
      }
      await checkTotalOwnership(uow.tx, uow.platformId, input.customerId, input.ownershipPercentage);
      const { identifier, ...info } = input.personalInfo;
      const id = newId('BeneficialOwner');
      const personalInfo = withoutUndefined(info);
      const row = await uow.tx
        .insertInto('beneficial_owners')
        .values({
          id,
          platform_id: uow.platformId,
          customer_id: input.customerId,
          roles: JSON.stringify(input.roles),
          ownership_percentage: input.ownershipPercentage,
          personal_info: JSON.stringify(personalInfo),
          identifier_sealed: sealer.seal(identifier ?? '', sealContext({ platform_id: uow.platformId, id })),
          kyc_status: kycStatusOf(personalInfo),
          created_at: uow.now,
          updated_at: uow.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return view(row);
    },

    async list(scope: Scope, filters: PageParams & { customerId: CustomerId }) {
      const customer = await customers.findActive(db, scope.platformId, { id: filters.customerId });
      if (!customer) throw customerNotFound();
      const query = db.selectFrom('beneficial_owners as t').selectAll('t').where('t.platform_id', '=', scope.platformId).where('t.customer_id', '=', filters.customerId);
      return paginate(query, filters, view);
    },

    async get(scope: Scope, id: BeneficialOwnerId): Promise<BeneficialOwnerView> {
      return view(await find(db, scope.platformId, id));
    },

    /** Changes only the fields sent; personalInfo field by field (an address as a whole). */
    async update(uow: UnitOfWork, id: BeneficialOwnerId, patch: BeneficialOwnerPatch): Promise<BeneficialOwnerView> {
      const current = await find(uow.tx, uow.platformId, id, true);
      if (patch.ownershipPercentage !== undefined) {
        await customers.loadForUpdate(uow.tx, uow.platformId, current.customer_id);
        await checkTotalOwnership(uow.tx, uow.platformId, current.customer_id, patch.ownershipPercentage, id);
      }
      const { identifier, ...infoPatch } = patch.personalInfo ?? {};
      const personalInfo = { ...current.personal_info, ...withoutUndefined(infoPatch) };
      const renamed = infoPatch.firstName !== undefined || infoPatch.lastName !== undefined;
      const row = await uow.tx
        .updateTable('beneficial_owners')
        .set({
          ...(patch.roles !== undefined ? { roles: JSON.stringify(patch.roles) } : {}),
          ...(patch.ownershipPercentage !== undefined ? { ownership_percentage: patch.ownershipPercentage } : {}),
          ...(identifier !== undefined ? { identifier_sealed: sealer.seal(identifier, sealContext(current)) } : {}),
          // A new name is a new person to check, unless they were already approved.
          ...(renamed && current.kyc_status !== 'APPROVED' ? { kyc_status: kycStatusOf(personalInfo) } : {}),
          personal_info: JSON.stringify(personalInfo),
          updated_at: uow.now,
        })
        .where('platform_id', '=', uow.platformId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return view(row);
    },

    /** The business a beneficial owner of the platform belongs to, or undefined when the platform has no such owner. */
    async customerOf(executor: Executor, platformId: PlatformId, id: string): Promise<CustomerId | undefined> {
      const row = await executor.selectFrom('beneficial_owners').select('customer_id').where('platform_id', '=', platformId).where('id', '=', id as BeneficialOwnerId).executeTakeFirst();
      return row?.customer_id;
    },

    /** Every owner of a business, oldest first (what a verification checks). */
    async allOf(executor: Executor, platformId: PlatformId, customerId: CustomerId): Promise<BeneficialOwnerView[]> {
      const rows = await executor.selectFrom('beneficial_owners').selectAll().where('platform_id', '=', platformId).where('customer_id', '=', customerId).orderBy('created_at').orderBy('id').execute();
      return rows.map(view);
    },
  };
}
