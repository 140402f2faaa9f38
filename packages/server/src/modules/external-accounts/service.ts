import type { Selectable } from 'kysely';
import type { Db, Executor, ExternalAccountsTable } from '../../db/schema.js';
import type { TxContext } from '../../http/idempotency.js';
import { paginate, type PageParams } from '../../http/pagination.js';
import { AppError, conflict, invalidInput, notFound, type FieldError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { CustomerService } from '../customers/service.js';
import { ACCOUNT_TYPE_RULES, canonicalAccountType } from './account-types.js';

type ExternalAccountRow = Selectable<ExternalAccountsTable>;

export interface ExternalAccountView {
  id: string;
  customerId?: string;
  status: string;
  currency: string;
  platformAccountId?: string;
  accountInfo: { accountType: string; [field: string]: unknown };
  createdAt: string;
  updatedAt: string;
}

export interface ExternalAccountInput {
  customerId?: string | undefined;
  currency: string;
  platformAccountId?: string | undefined;
  accountInfo: { accountType: string; [field: string]: unknown };
}

export function externalAccountView(row: ExternalAccountRow): ExternalAccountView {
  return {
    id: row.id,
    ...(row.customer_id ? { customerId: row.customer_id } : {}),
    status: row.status,
    currency: row.currency,
    ...(row.platform_account_id ? { platformAccountId: row.platform_account_id } : {}),
    accountInfo: { ...row.account_info, accountType: row.account_type },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The identifying value whose last three characters pick a sandbox outcome (account number, address). */
export function sandboxIdentifier(row: ExternalAccountRow): string {
  const rule = ACCOUNT_TYPE_RULES[row.account_type];
  const value = rule ? row.account_info[rule.identifierField] : undefined;
  return typeof value === 'string' ? value : '';
}

export type ExternalAccountService = ReturnType<typeof createExternalAccountService>;

export function createExternalAccountService({ db, customers }: { db: Db; customers: CustomerService }) {
  /** Checks the account against its type's rules and real encodings; returns it normalized. */
  function normalize(input: ExternalAccountInput): { accountType: string; info: Record<string, unknown>; fingerprint: string } {
    const accountType = canonicalAccountType(input.accountInfo.accountType);
    const rule = accountType ? ACCOUNT_TYPE_RULES[accountType] : undefined;
    if (!accountType || !rule) throw invalidInput([{ field: 'accountInfo.accountType', message: 'unknown account type' }]);
    if (!rule.currencies.includes(input.currency)) {
      throw invalidInput([{ field: 'currency', constraint: { enum: rule.currencies }, message: `A ${accountType} account holds ${rule.currencies.join(' or ')}` }]);
    }
    const info: Record<string, unknown> = { ...input.accountInfo, accountType };
    const problems: FieldError[] = [];
    for (const [field, validate] of Object.entries(rule.fields)) {
      const result = validate(String(info[field] ?? ''), info);
      if (result.ok) info[field] = result.normalized;
      else problems.push({ field: `accountInfo.${field}`, message: result.reason });
    }
    if (problems.length > 0) {
      throw new AppError(400, 'INVALID_BANK_ACCOUNT', problems.length === 1 ? problems[0]!.message! : `${problems.length} account fields are invalid`, { errors: problems });
    }
    const identity = Object.keys(rule.fields).map((field) => String(info[field])).join('|');
    return { accountType, info, fingerprint: sha256Hex(`${accountType}|${input.currency}|${identity}`) };
  }

  async function load(executor: Executor, platformId: string, id: string, owner: 'customer' | 'platform'): Promise<ExternalAccountRow> {
    let query = executor.selectFrom('external_accounts').selectAll().where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null);
    query = owner === 'customer' ? query.where('customer_id', 'is not', null) : query.where('customer_id', 'is', null);
    const row = await query.executeTakeFirst();
    if (!row) throw notFound('ACCOUNT_NOT_FOUND', 'External account');
    return row;
  }

  return {
    async create(ctx: TxContext, input: ExternalAccountInput): Promise<ExternalAccountView> {
      const { accountType, info, fingerprint } = normalize(input);
      if (input.customerId) await customers.loadForUpdate(ctx.tx, ctx.platformId, input.customerId);
      const customerId = input.customerId ?? null;
      let duplicate = ctx.tx.selectFrom('external_accounts').select('id').where('platform_id', '=', ctx.platformId).where('fingerprint', '=', fingerprint).where('deleted_at', 'is', null);
      duplicate = customerId ? duplicate.where('customer_id', '=', customerId) : duplicate.where('customer_id', 'is', null);
      const existing = await duplicate.executeTakeFirst();
      if (existing) throw conflict('CONFLICT', 'This account is already registered', { existingAccountId: existing.id });
      try {
        const row = await ctx.tx
          .insertInto('external_accounts')
          .values({
            id: newId('ExternalAccount'),
            platform_id: ctx.platformId,
            customer_id: customerId,
            currency: input.currency,
            account_type: accountType,
            platform_account_id: input.platformAccountId ?? null,
            account_info: JSON.stringify(info),
            fingerprint,
            status: 'ACTIVE',
            created_at: ctx.now,
            updated_at: ctx.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return externalAccountView(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict('CONFLICT', 'This account is already registered');
        throw error;
      }
    },

    load,

    /** A live external account of the platform, whoever owns it; undefined when there is none. */
    async findAny(executor: Executor, platformId: string, id: string): Promise<ExternalAccountRow | undefined> {
      return executor.selectFrom('external_accounts').selectAll().where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    },

    async get(platformId: string, id: string, owner: 'customer' | 'platform'): Promise<ExternalAccountView> {
      return externalAccountView(await load(db, platformId, id, owner));
    },

    async list(platformId: string, owner: 'customer' | 'platform', filters: PageParams & { customerId?: string | undefined; currency?: string | undefined }) {
      let query = db.selectFrom('external_accounts as t').selectAll('t').where('t.platform_id', '=', platformId).where('t.deleted_at', 'is', null);
      query = owner === 'customer' ? query.where('t.customer_id', 'is not', null) : query.where('t.customer_id', 'is', null);
      if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.currency) query = query.where('t.currency', '=', filters.currency);
      return paginate(query, filters, externalAccountView);
    },

    async remove(ctx: TxContext, id: string, owner: 'customer' | 'platform'): Promise<void> {
      const row = await load(ctx.tx, ctx.platformId, id, owner);
      await ctx.tx.updateTable('external_accounts').set({ deleted_at: ctx.now, updated_at: ctx.now, status: 'INACTIVE' }).where('id', '=', row.id).execute();
    },
  };
}
