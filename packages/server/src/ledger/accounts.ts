import { randomInt } from 'node:crypto';
import { sql, type Expression, type Selectable } from 'kysely';
import { statementShape } from '../db/statement-shape.js';
import { readWithNext } from '../db/read-with-next.js';
import type { Db, Executor, FundingInstructionRecord, InternalAccountType, LedgerAccountsTable, Tx } from '../db/schema.js';
import { paginate, type Page, type PageParams } from '../db/paginate.js';
import { newId, type CustomerId, type InternalAccountId, type LedgerAccountId, type PlatformId } from '../core/ids.js';
import { CURRENCY_CODES, isCrypto } from '../lib/currencies.js';
import { currencyAmount, type CurrencyAmount } from '../lib/money.js';
import type { FundingRail } from '../providers/funding-rail.js';
import { internalAccountNotFound } from './errors.js';
import { mayGoNegative, SYSTEM_PURPOSES, type SystemPurpose } from './policy.js';

export type AccountRow = Selectable<LedgerAccountsTable>;
/** An account with its holder's standing (null for a platform account): verification status, when it was deleted, its platformCustomerId. */
export type HeldAccountRow = AccountRow & { holder_status: string | null; holder_deleted_at: Date | null; holder_platform_customer_id: string | null; holder_region: string | null };

export interface InternalAccountView {
  id: InternalAccountId;
  customerId?: CustomerId;
  type: string;
  status: string;
  balance: CurrencyAmount;
  totalBalance: CurrencyAmount;
  fundingPaymentInstructions: FundingInstructionRecord[];
  createdAt: string;
  updatedAt: string;
}

export interface AccountFilters extends PageParams {
  customerId?: CustomerId | undefined;
  currency?: string | undefined;
  type?: InternalAccountType | undefined;
}

/** Currencies a customer holds when it named none: its region's currency, else USD. */
const REGION_CURRENCY: Record<string, string> = { US: 'USD', MX: 'MXN', BR: 'BRL', GB: 'GBP', IN: 'INR', NG: 'NGN', CA: 'CAD', PH: 'PHP', KE: 'KES', JP: 'JPY' };
const EURO_AREA = new Set(['AT', 'BE', 'CY', 'DE', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PT', 'SI', 'SK']);

export function inferredCurrencies(region: string | null | undefined): string[] {
  if (!region) return ['USD'];
  if (EURO_AREA.has(region)) return ['EUR'];
  return [REGION_CURRENCY[region] ?? 'USD'];
}

export function accountTypeFor(currency: string): InternalAccountType {
  return isCrypto(currency) ? 'INTERNAL_CRYPTO' : 'INTERNAL_FIAT';
}

const REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function fundingReference(): string {
  let out = 'MNT';
  for (let i = 0; i < 10; i++) out += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return out;
}

export function internalAccountView(row: AccountRow): InternalAccountView {
  return {
    id: row.id as InternalAccountId,
    ...(row.customer_id ? { customerId: row.customer_id } : {}),
    type: row.account_type ?? 'INTERNAL_FIAT',
    status: row.status,
    balance: currencyAmount(row.total_minor - row.held_minor, row.currency),
    totalBalance: currencyAmount(row.total_minor, row.currency),
    fundingPaymentInstructions: row.funding_instructions,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function systemAccountRow(platformId: PlatformId, purpose: SystemPurpose, currency: string, at: Date) {
  return {
    id: newId('LedgerAccount'),
    platform_id: platformId,
    customer_id: null,
    purpose,
    account_type: null,
    currency,
    may_go_negative: mayGoNegative(purpose),
    created_at: at,
    updated_at: at,
  };
}

/** Customer and platform accounts (`a`), each with its holder's standing. */
function heldAccounts(executor: Executor) {
  return executor
    .selectFrom('ledger_accounts as a')
    .leftJoin('customers as c', 'c.id', 'a.customer_id')
    .selectAll('a')
    .select(['c.kyc_status as holder_status', 'c.deleted_at as holder_deleted_at', 'c.platform_customer_id as holder_platform_customer_id', 'c.region as holder_region'])
    .where('a.purpose', 'in', ['CUSTOMER', 'PLATFORM']);
}

/** A customer or platform account of the platform, with its holder's standing (one statement text each, db/statement-shape.ts). */
function heldAccountQuery(executor: Executor, { platformId, accountId }: { platformId: PlatformId; accountId: InternalAccountId | Expression<InternalAccountId> }) {
  return heldAccounts(executor).where('a.platform_id', '=', platformId).where('a.id', '=', accountId);
}
const heldAccount = statementShape(heldAccountQuery);
/**
 * The accounts a group-commit batch's units will move, read ahead under lock in one statement
 * (ledger/index.ts): only each one's owner's, in id order (two batches lock what they share in the
 * same order). A row another transaction holds is waited for, as the unit moving it would have:
 * skipping it instead costs a hot account's batch a round trip more (its first unit reads it again).
 */
const heldAccountsLockedAhead = statementShape((executor: Executor, { owners, ids }: { owners: readonly string[]; ids: readonly string[] }) =>
  heldAccounts(executor)
    .where(sql<boolean>`(a.platform_id, a.id) IN (SELECT * FROM unnest(${owners}::text[], ${ids}::text[]))`)
    .orderBy('a.id')
    .forNoKeyUpdate('a'),
);
const heldAccountLocked = statementShape((executor: Executor, args: { platformId: PlatformId; accountId: InternalAccountId }) => heldAccountQuery(executor, args).forNoKeyUpdate('a'));

/** The account a subquery names (a card's first funding source), of this platform, under its row lock; undefined when there is none. */
export async function internalAccountLockedBy(tx: Tx, platformId: PlatformId, id: Expression<InternalAccountId>): Promise<HeldAccountRow | undefined> {
  return heldAccountQuery(tx, { platformId, accountId: id })
    .forNoKeyUpdate('a')
    .executeTakeFirst();
}

/**
 * The accounts a subquery names as (platform_id, id) pairs (the first funding sources of the
 * cards a batch will authorize on), under lock in id order, sent with the next statement.
 */
export async function internalAccountsLockedNamedBy(tx: Tx, pairs: Expression<unknown>): Promise<HeldAccountRow[]> {
  return readWithNext(tx, heldAccounts(tx).where(sql<boolean>`(a.platform_id, a.id) IN (${pairs})`).orderBy('a.id').forNoKeyUpdate('a'));
}

/** Several accounts, each of its owner's, under lock (`heldAccountsLockedAhead`). */
export async function internalAccountsLockedAhead(tx: Tx, wanted: readonly { platformId: string; accountId: string }[]): Promise<HeldAccountRow[]> {
  // With the other read-aheads of its batch, in one round trip (db/group-commit.ts).
  return readWithNext(tx, heldAccountsLockedAhead(tx, { owners: wanted.map((w) => w.platformId), ids: wanted.map((w) => w.accountId) }));
}

export type AccountStore = ReturnType<typeof createAccountStore>;

/**
 * Locks a customer's accounts before a change of the customer's standing (deletion): it then waits
 * for the group-commit batches moving them, whose later units use the standing their first unit
 * read (ledger.internalAccountToMove), and every move after it reads the new one.
 */
async function lockHolderAccounts(tx: Tx, platformId: PlatformId, customerId: CustomerId): Promise<void> {
  await tx.selectFrom('ledger_accounts').select('id').where('platform_id', '=', platformId).where('customer_id', '=', customerId).orderBy('id').forNoKeyUpdate().execute();
}

/** The ledger's accounts: internal accounts of customers and of the platform, and the bookkeeping accounts. */
export function createAccountStore({ db, fundingRail }: { db: Db; fundingRail: FundingRail }) {
  // Bookkeeping account ids never change once committed; remembering them saves a query per move.
  const systemAccountIds = new Map<string, LedgerAccountId>();
  const platformAccountIds = new Map<string, InternalAccountId>();

  async function insertInternal(
    executor: Executor,
    input: { platformId: PlatformId; customerId: CustomerId | null; currency: string; holderName: string; at: Date; type?: InternalAccountType; id?: InternalAccountId },
  ): Promise<void> {
    const reference = fundingReference();
    await executor
      .insertInto('ledger_accounts')
      .values({
        id: input.id ?? newId('InternalAccount'),
        platform_id: input.platformId,
        customer_id: input.customerId,
        purpose: input.customerId ? 'CUSTOMER' : 'PLATFORM',
        account_type: input.type ?? accountTypeFor(input.currency),
        currency: input.currency,
        may_go_negative: false,
        funding_reference: reference,
        funding_instructions: JSON.stringify(fundingRail.accountInstructions(input.currency, reference, input.holderName)),
        created_at: input.at,
        updated_at: input.at,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  return {
    lockHolderAccounts,

    /** Opens the customer's internal accounts, one per currency it holds (idempotent). */
    async openCustomerAccounts(tx: Tx, customer: { platformId: PlatformId; id: CustomerId; currencies: string[]; region: string | null; holderName: string }, at: Date): Promise<void> {
      const currencies = customer.currencies.length > 0 ? customer.currencies : inferredCurrencies(customer.region);
      for (const currency of currencies) {
        await insertInternal(tx, { platformId: customer.platformId, customerId: customer.id, currency, holderName: customer.holderName, at });
      }
    },

    /**
     * Opens the customer's embedded wallet: an internal account of type EMBEDDED_WALLET (one per
     * customer and currency). Returns its id, or undefined when the customer already has one.
     */
    async openWalletAccount(tx: Tx, customer: { platformId: PlatformId; id: CustomerId; holderName: string }, currency: string, at: Date): Promise<InternalAccountId | undefined> {
      const id = newId('InternalAccount');
      await insertInternal(tx, { platformId: customer.platformId, customerId: customer.id, currency, holderName: customer.holderName, at, type: 'EMBEDDED_WALLET', id });
      const opened = await tx.selectFrom('ledger_accounts').select('id').where('id', '=', id).executeTakeFirst();
      return opened ? id : undefined;
    },

    /** The platform's own internal account in every supported currency, and its bookkeeping accounts (idempotent). */
    async openPlatformAccounts(executor: Executor, platformId: PlatformId, holderName: string, at: Date): Promise<void> {
      const existing = await executor.selectFrom('ledger_accounts').select('currency').where('platform_id', '=', platformId).where('purpose', '=', 'PLATFORM').execute();
      const have = new Set(existing.map((r) => r.currency));
      for (const currency of CURRENCY_CODES) {
        if (!have.has(currency)) await insertInternal(executor, { platformId, customerId: null, currency, holderName, at });
      }
      // The bookkeeping accounts too, up front: created lazily, two first payments that need the
      // same two accounts in opposite orders (USD->MXN and MXN->USD) could deadlock on creating them.
      await executor
        .insertInto('ledger_accounts')
        .values(SYSTEM_PURPOSES.flatMap((purpose) => CURRENCY_CODES.map((currency) => systemAccountRow(platformId, purpose, currency, at))))
        .onConflict((oc) => oc.doNothing())
        .execute();
    },

    /** The platform's bookkeeping account of a purpose and currency (opened with the platform, or on first use). */
    async systemAccount(tx: Tx, platformId: PlatformId, purpose: SystemPurpose, currency: string, at: Date): Promise<LedgerAccountId> {
      const cacheKey = `${platformId}|${purpose}|${currency}`;
      const known = systemAccountIds.get(cacheKey);
      if (known) return known;
      const created = await tx.insertInto('ledger_accounts').values(systemAccountRow(platformId, purpose, currency, at)).onConflict((oc) => oc.doNothing()).returning('id').executeTakeFirst();
      // Created in this transaction: not cached, since the transaction may still roll back.
      if (created) return created.id as LedgerAccountId;
      const row = await tx
        .selectFrom('ledger_accounts')
        .select('id')
        .where('platform_id', '=', platformId)
        .where('purpose', '=', purpose)
        .where('currency', '=', currency)
        .where('customer_id', 'is', null)
        .executeTakeFirstOrThrow();
      systemAccountIds.set(cacheKey, row.id as LedgerAccountId);
      return row.id as LedgerAccountId;
    },

    /** The platform's own internal account in a currency (opened with the platform). */
    async platformAccountId(executor: Executor, platformId: PlatformId, currency: string): Promise<InternalAccountId> {
      const cacheKey = `${platformId}|${currency}`;
      const known = platformAccountIds.get(cacheKey);
      if (known) return known;
      const row = await executor
        .selectFrom('ledger_accounts')
        .select('id')
        .where('platform_id', '=', platformId)
        .where('purpose', '=', 'PLATFORM')
        .where('currency', '=', currency)
        .executeTakeFirst();
      if (!row) throw new Error(`platform ${platformId} has no ${currency} internal account`);
      platformAccountIds.set(cacheKey, row.id as InternalAccountId);
      return row.id as InternalAccountId;
    },

    /**
     * A customer or platform internal account of this platform, or 404; with its holder's
     * standing, read in the same query, since money moves only for a verified holder not deleted.
     */
    async internalAccount(executor: Executor, platformId: PlatformId, accountId: InternalAccountId, { lock = false }: { lock?: boolean } = {}): Promise<HeldAccountRow> {
      const { rows } = await (lock ? heldAccountLocked : heldAccount)(executor, { platformId, accountId }).execute(executor);
      const row = rows[0];
      if (!row) throw internalAccountNotFound();
      return row;
    },

    async findByReference(executor: Executor, platformId: PlatformId, reference: string): Promise<AccountRow | undefined> {
      return executor.selectFrom('ledger_accounts').selectAll().where('platform_id', '=', platformId).where('funding_reference', '=', reference).executeTakeFirst();
    },

    async listCustomerAccounts(platformId: PlatformId, filters: AccountFilters): Promise<Page<InternalAccountView>> {
      let query = db.selectFrom('ledger_accounts as t').selectAll('t').where('t.platform_id', '=', platformId).where('t.purpose', '=', 'CUSTOMER');
      if (filters.customerId) query = query.where('t.customer_id', '=', filters.customerId);
      if (filters.currency) query = query.where('t.currency', '=', filters.currency);
      if (filters.type) query = query.where('t.account_type', '=', filters.type);
      return paginate(query, filters, internalAccountView);
    },

    async listPlatformAccounts(platformId: PlatformId, filters: { currency?: string | undefined; type?: InternalAccountType | undefined }): Promise<{ data: InternalAccountView[] }> {
      let query = db.selectFrom('ledger_accounts').selectAll().where('platform_id', '=', platformId).where('purpose', '=', 'PLATFORM');
      if (filters.currency) query = query.where('currency', '=', filters.currency);
      if (filters.type) query = query.where('account_type', '=', filters.type);
      const rows = await query.orderBy('created_at').orderBy('id').execute();
      return { data: rows.map(internalAccountView) };
    },
  };
}
