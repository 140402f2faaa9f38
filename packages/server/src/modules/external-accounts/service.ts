import { sql, type Selectable } from 'kysely';
import type { Db, Executor, Tx } from '../../db/schema.js';
import { knownRead, readOnce } from '../../db/read-once.js';
import { setBatchReadAhead } from '../../db/group-commit.js';
import { statementShape } from '../../db/statement-shape.js';
import { readWithNext } from '../../db/read-with-next.js';
import type { ExternalAccountsTable } from './tables.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import { invalidInput, type FieldError } from '../../core/errors.js';
import { isId, newId, type CustomerId, type ExternalAccountId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { RailAccount } from '../../providers/payout-rail.js';
import type { CustomerService } from '../customers/service.js';
import type { Gates } from '../../core/gates.js';
import { ACCOUNT_TYPE_RULES, canonicalAccountType, identifierFieldOf, paymentRailsOf, requiredFields, textOf, type AccountTypeRule } from './account-types.js';
import { canonicalVaspName } from './ownership/vasps.js';
import { accountAlreadyRegistered, externalAccountNotFound, invalidBankAccount, verificationRequired } from './errors.js';

export type ExternalAccountRow = Selectable<ExternalAccountsTable>;

/** Live external accounts, each of its owner's (`byId` for several at once, one statement text). */
const liveByIds = statementShape((executor: Executor, { owners, ids }: { owners: readonly string[]; ids: readonly string[] }) =>
  executor
    .selectFrom('external_accounts')
    .selectAll()
    .where(sql<boolean>`(platform_id, id) IN (SELECT * FROM unnest(${owners}::text[], ${ids}::text[]))`)
    .where('deleted_at', 'is', null),
);

export interface ExternalAccountView {
  id: ExternalAccountId;
  customerId?: CustomerId;
  status: string;
  currency: string;
  platformAccountId?: string;
  ownershipType?: string;
  defaultUmaDepositAccount?: boolean;
  accountInfo: { accountType: string; paymentRails?: string[]; [field: string]: unknown };
  createdAt: string;
  updatedAt: string;
}

export interface ExternalAccountInput {
  customerId?: CustomerId | undefined;
  currency: string;
  platformAccountId?: string | undefined;
  ownershipType?: string | undefined;
  defaultUmaDepositAccount?: boolean | undefined;
  accountInfo: { accountType: string; [field: string]: unknown };
}

/** The statuses of a self-custody wallet whose ownership is not proven: it is not paid until it is. */
export const UNPROVEN_STATUSES: readonly string[] = ['PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED'];

/**
 * Whether a new account must prove ownership before it is paid: a wallet in self custody (no
 * `vaspName`) declared FIRST_PARTY. Accounts created without `ownershipType` (every client written
 * before it was accepted) are ACTIVE at once, as they always were.
 */
export function needsOwnershipProof(accountType: string, info: Record<string, unknown>, ownershipType: string | null | undefined): boolean {
  return Boolean(ACCOUNT_TYPE_RULES[accountType]?.wallet) && info.vaspName === undefined && ownershipType === 'FIRST_PARTY';
}

/**
 * Where `defaultUmaDepositAccount` is kept: a key of `account_info` that the view moves out of
 * `accountInfo` (external_accounts has no column for it yet).
 */
const DEFAULT_UMA_KEY = 'defaultUmaDepositAccount';

/** The canonical type of a stored row (rows written before a type was renamed carry the old name). */
function typeOf(row: ExternalAccountRow): string {
  return canonicalAccountType(row.account_type) ?? row.account_type;
}

export function externalAccountView(row: ExternalAccountRow): ExternalAccountView {
  const { [DEFAULT_UMA_KEY]: defaultUma, ...info } = row.account_info;
  const accountType = typeOf(row);
  const rule = ACCOUNT_TYPE_RULES[accountType];
  const paymentRails = rule ? paymentRailsOf(rule, info) : undefined;
  return {
    id: row.id,
    ...(row.customer_id ? { customerId: row.customer_id } : {}),
    status: row.status,
    currency: row.currency,
    ...(row.platform_account_id ? { platformAccountId: row.platform_account_id } : {}),
    ...(row.ownership_type ? { ownershipType: row.ownership_type } : {}),
    ...(row.customer_id ? { defaultUmaDepositAccount: defaultUma === true } : {}),
    accountInfo: { ...info, accountType, ...(paymentRails ? { paymentRails } : {}) },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The account as a payout rail sees it: its type, currency and identifying number or address. */
export function railAccount(row: ExternalAccountRow): RailAccount {
  const accountType = typeOf(row);
  const rule = ACCOUNT_TYPE_RULES[accountType];
  const value = rule ? row.account_info[identifierFieldOf(rule, row.account_info)] : undefined;
  return { accountId: row.id, accountType, currency: row.currency, identifier: typeof value === 'string' ? value : '' };
}

/**
 * The fields other clients send beside the reference's: `swiftBic` (swiftCode's other name),
 * `countries` (checked by the schema, not kept), `paymentRails` (some of the type's rails, kept),
 * and `vaspName` (a name of the VASP directory, kept in its spelling). Adjusts `info`; returns the
 * problems.
 */
function otherClientsFields(accountType: string, rule: AccountTypeRule, info: Record<string, unknown>): FieldError[] {
  const problems: FieldError[] = [];
  if (info.swiftBic !== undefined) {
    if (info.swiftCode !== undefined && info.swiftCode !== info.swiftBic) {
      problems.push({ field: 'accountInfo.swiftBic', message: 'swiftBic is another name for swiftCode; give one, or the same value in both' });
    }
    info.swiftCode ??= info.swiftBic;
    delete info.swiftBic;
  }
  delete info.countries;
  if (Array.isArray(info.paymentRails)) {
    const allowed = rule.paymentRails ?? [];
    const foreign = (info.paymentRails as string[]).filter((rail) => !allowed.includes(rail));
    if (foreign.length > 0) {
      problems.push({
        field: 'accountInfo.paymentRails',
        constraint: { enum: [...allowed] },
        message: allowed.length > 0 ? `A ${accountType} account is paid on ${allowed.join(', ')}` : `A ${accountType} account has no payment rails to choose`,
      });
    }
  }
  if (typeof info.vaspName === 'string') {
    const name = canonicalVaspName(info.vaspName);
    if (name) info.vaspName = name;
    else problems.push({ field: 'accountInfo.vaspName', message: 'vaspName must be a name from GET /vasps' });
  }
  return problems;
}

export type AccountOwner = 'customer' | 'platform';

export type ExternalAccountService = ReturnType<typeof createExternalAccountService>;

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /** An external account about to be deleted. A gate throws to refuse it (the sca module: 409 BENEFICIARY_TRUSTED for a trusted beneficiary). */
    'externalAccount.delete': { subject: { externalAccountId: ExternalAccountId; customerId: CustomerId | null }; verdict: void };
  }
}

export function createExternalAccountService({ db, customers, gates }: { db: Db; customers: CustomerService; gates: Pick<Gates, 'of'> }) {
  /** Checks the account against its type's rules and real encodings; returns it normalized. */
  function normalize(input: ExternalAccountInput): { accountType: string; info: Record<string, unknown>; fingerprint: string } {
    const accountType = canonicalAccountType(input.accountInfo.accountType);
    const rule = accountType ? ACCOUNT_TYPE_RULES[accountType] : undefined;
    if (!accountType || !rule) throw invalidInput([{ field: 'accountInfo.accountType', message: 'unknown account type' }]);
    if (!rule.currencies.includes(input.currency)) {
      throw invalidInput([{ field: 'currency', constraint: { enum: rule.currencies }, message: `A ${accountType} account holds ${rule.currencies.join(' or ')}` }]);
    }
    const info: Record<string, unknown> = { ...input.accountInfo, accountType };
    const missing = [...otherClientsFields(accountType, rule, info), ...(rule.requires?.(info) ?? [])];
    if (missing.length > 0) throw invalidInput(missing);
    const problems: FieldError[] = [];
    const required = requiredFields(rule);
    const present = Object.keys(rule.fields).filter((field) => info[field] !== undefined || required.includes(field));
    for (const field of present) {
      const result = rule.fields[field]!(textOf(info, field), info);
      if (result.ok) info[field] = result.normalized;
      else problems.push({ field: `accountInfo.${field}`, message: result.reason });
    }
    if (problems.length === 0) problems.push(...(rule.crossCheck?.(info) ?? []));
    if (problems.length > 0) throw invalidBankAccount(problems);
    const identity = present.map((field) => String(info[field])).join('|');
    return { accountType, info, fingerprint: sha256Hex(`${rule.fingerprintName ?? accountType}|${input.currency}|${identity}`) };
  }

  const byId = (executor: Executor, platformId: PlatformId, id: ExternalAccountId) =>
    executor.selectFrom('external_accounts').selectAll().where('platform_id', '=', platformId).where('id', '=', id).where('deleted_at', 'is', null);
  const readKey = (platformId: string, id: string) => `external_accounts ${platformId} ${id}`;

  // A group-commit batch reads the external accounts its units pay (RouteSpec.readsAhead) with
  // its other read-aheads, for all of them: `findWithNext` then answers from the transaction.
  setBatchReadAhead(db, 'external-accounts', async (tx, units) => {
    const wanted = new Map<string, { platformId: string; id: string }>();
    for (const { reads, owner } of units) {
      for (const id of reads) if (isId('ExternalAccount', id)) wanted.set(readKey(owner, id), { platformId: owner, id });
    }
    if (wanted.size === 0) return;
    const rows = await readWithNext(tx, liveByIds(tx, { owners: [...wanted.values()].map((w) => w.platformId), ids: [...wanted.values()].map((w) => w.id) }));
    for (const row of rows) knownRead(tx, readKey(row.platform_id, row.id), row);
  });

  /** The row, if `owner` holds it: a customer's account where the platform's is asked for (or the reverse) is simply not found. */
  function ownedBy(row: ExternalAccountRow | undefined, owner: AccountOwner): ExternalAccountRow {
    if (!row || (row.customer_id !== null) !== (owner === 'customer')) throw externalAccountNotFound();
    return row;
  }

  async function load(executor: Executor, platformId: PlatformId, id: ExternalAccountId, owner: AccountOwner): Promise<ExternalAccountRow> {
    return ownedBy(await byId(executor, platformId, id).executeTakeFirst(), owner);
  }

  return {
    async create(uow: UnitOfWork, input: ExternalAccountInput): Promise<ExternalAccountView> {
      const { accountType, info, fingerprint } = normalize(input);
      if (input.customerId) await customers.loadForUpdate(uow.tx, uow.platformId, input.customerId);
      const customerId = input.customerId ?? null;
      let duplicate = uow.tx.selectFrom('external_accounts').select('id').where('platform_id', '=', uow.platformId).where('fingerprint', '=', fingerprint).where('deleted_at', 'is', null);
      duplicate = customerId ? duplicate.where('customer_id', '=', customerId) : duplicate.where('customer_id', 'is', null);
      const existing = await duplicate.executeTakeFirst();
      if (existing) throw accountAlreadyRegistered(existing.id);
      // At most one default UMA deposit account per customer: a new default replaces the old (the
      // customer's row is locked above, so two requests cannot both become the default).
      const defaultUma = customerId !== null && input.defaultUmaDepositAccount === true;
      if (defaultUma) {
        await uow.tx
          .updateTable('external_accounts')
          .set({ account_info: sql`account_info - ${DEFAULT_UMA_KEY}::text`, updated_at: uow.now })
          .where('platform_id', '=', uow.platformId)
          .where('customer_id', '=', customerId)
          .where('deleted_at', 'is', null)
          .where(sql<boolean>`(account_info->>${DEFAULT_UMA_KEY}::text) = 'true'`)
          .execute();
      }
      try {
        const row = await uow.tx
          .insertInto('external_accounts')
          .values({
            id: newId('ExternalAccount'),
            platform_id: uow.platformId,
            customer_id: customerId,
            currency: input.currency,
            account_type: accountType,
            platform_account_id: input.platformAccountId ?? null,
            ownership_type: input.ownershipType ?? null,
            account_info: JSON.stringify(defaultUma ? { ...info, [DEFAULT_UMA_KEY]: true } : info),
            fingerprint,
            status: needsOwnershipProof(accountType, info, input.ownershipType) ? 'PENDING_OWNERSHIP_VERIFICATION' : 'ACTIVE',
            created_at: uow.now,
            updated_at: uow.now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return externalAccountView(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw accountAlreadyRegistered();
        throw error;
      }
    },

    load,
    ownedBy,
    /**
     * The account's row (or undefined), read in one round trip with the transaction's next
     * statement (db/read-with-next.ts): start it, start that statement, then await it and pass the
     * row to `ownedBy`. A later unit of the same group-commit batch is answered from memory
     * (db/read-once.ts): no money move changes an external account.
     */
    findWithNext: (tx: Tx, platformId: PlatformId, id: ExternalAccountId): Promise<ExternalAccountRow | undefined> =>
      readOnce(tx, readKey(platformId, id), async () => (await readWithNext(tx, byId(tx, platformId, id)))[0]),

    /** A live external account of the platform, whoever owns it; undefined when there is none. */
    async findAny(executor: Executor, platformId: PlatformId, id: ExternalAccountId): Promise<ExternalAccountRow | undefined> {
      return byId(executor, platformId, id).executeTakeFirst();
    },

    /** Refuses paying a wallet whose ownership is not proven (400 EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED). */
    requireProven(row: ExternalAccountRow): void {
      if (UNPROVEN_STATUSES.includes(row.status)) throw verificationRequired(row.id, row.status);
    },

    async get({ platformId }: Scope, id: ExternalAccountId, owner: AccountOwner): Promise<ExternalAccountView> {
      return externalAccountView(await load(db, platformId, id, owner));
    },

    async list({ platformId }: Scope, owner: AccountOwner, filters: PageParams & { customerId?: CustomerId | undefined; currency?: string | undefined }) {
      let query = db.selectFrom('external_accounts as t').selectAll('t').where('t.platform_id', '=', platformId).where('t.deleted_at', 'is', null);
      query = owner === 'customer' ? query.where('t.customer_id', 'is not', null) : query.where('t.customer_id', 'is', null);
      if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.currency) query = query.where('t.currency', '=', filters.currency);
      return paginate(query, filters, externalAccountView);
    },

    async remove(uow: UnitOfWork, id: ExternalAccountId, owner: AccountOwner): Promise<void> {
      const row = await load(uow.tx, uow.platformId, id, owner);
      for (const gate of gates.of('externalAccount.delete')) await gate(uow, { externalAccountId: row.id, customerId: row.customer_id });
      await uow.tx.updateTable('external_accounts').set({ deleted_at: uow.now, updated_at: uow.now, status: 'INACTIVE' }).where('id', '=', row.id).execute();
    },
  };
}
