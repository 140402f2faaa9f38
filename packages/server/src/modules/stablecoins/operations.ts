import type { Selectable } from 'kysely';
import { invalidInput, type FieldError } from '../../core/errors.js';
import { newId, type ExternalAccountId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import { paginate, type PageParams } from '../../db/paginate.js';
import type { Db, Executor } from '../../db/schema.js';
import { inMs, scheduleJob } from '../../jobs/jobs.js';
import type { StablecoinIssuer } from '../../providers/stablecoin-issuer.js';
import type { ExternalAccountService } from '../external-accounts/service.js';
import { externalAccountNotFound } from '../external-accounts/errors.js';
import { providerUnavailable, stablecoinNotProvisioned, stablecoinOperationNotFound } from './errors.js';
import type { ProviderAccountLinks, UsableLink } from './links.js';
import { fiatValue, type Funding } from './money.js';
import type { StablecoinId, StablecoinOperationId, StablecoinOperationsTable, StablecoinsTable } from './tables.js';

type CoinRow = Selectable<StablecoinsTable>;
export type OperationRow = Selectable<StablecoinOperationsTable>;

/** The job that asks the provider where an operation stands, until it is final (lifecycle.ts). */
export const POLL_JOB = 'stablecoin.operation.poll';
export const FINAL_STATUSES: readonly string[] = ['COMPLETED', 'FAILED', 'EXPIRED'];

export interface MintInput {
  amount: string;
  fundingSource: { type: string; externalAccountId?: string | undefined; accountId?: string | undefined; sourceTokenIdentifier?: string | undefined; cryptoNetwork?: string | undefined };
  destination: { accountId: string };
  description?: string | undefined;
}

export interface BurnInput {
  amount: string;
  source: { type: string; accountId?: string | undefined };
  destination: { type: string; externalAccountId: ExternalAccountId; rail: string };
  description?: string | undefined;
}

/** Static rail timings of a fiat redemption (guidance, as the reference says, not a promise). */
const RAIL_TIMING: Record<string, string> = {
  WIRE: 'Same business day',
  ACH_CREDIT: '1-3 business days',
  SAME_DAY_ACH_CREDIT: 'Same business day',
  RTP_CREDIT: 'Within minutes',
};

/** The fields each source variant takes beyond `type`. */
const MINT_FIELDS: Record<string, readonly string[]> = {
  WIRE: [],
  ACH_DEBIT: ['externalAccountId'],
  SAME_DAY_ACH_DEBIT: ['externalAccountId'],
  GRID_INTERNAL_ACCOUNT: ['accountId'],
  PROVIDER_INTERNAL_BALANCE: ['sourceTokenIdentifier', 'cryptoNetwork'],
};
const BURN_FIELDS: Record<string, readonly string[]> = { EXTERNAL_ACCOUNT: [], GRID_INTERNAL_ACCOUNT: ['accountId'], PROVIDER_INTERNAL_BALANCE: [] };

/** Every field a variant is missing, and every field it does not take, at once. */
function variantProblems(prefix: string, value: Record<string, unknown>, fields: Record<string, readonly string[]>): FieldError[] {
  const wanted = fields[String(value.type)] ?? [];
  const problems: FieldError[] = [];
  for (const field of wanted) if (value[field] === undefined) problems.push({ field: `${prefix}.${field}`, message: `${field} is required when type is ${String(value.type)}` });
  for (const field of Object.keys(value)) {
    if (field !== 'type' && !wanted.includes(field) && value[field] !== undefined) problems.push({ field: `${prefix}.${field}`, message: `${field} is not taken when type is ${String(value.type)}` });
  }
  return problems;
}

export function operationView(row: OperationRow) {
  return {
    id: row.id,
    stablecoinId: row.stablecoin_id,
    operationType: row.operation_type,
    status: row.status,
    amount: row.amount_minor.toString(),
    provider: row.provider,
    providerEnvironment: row.provider_environment,
    stablecoinProviderAccountId: row.stablecoin_provider_account_id,
    source: row.source,
    ...(row.funding_instructions ? { fundingInstructions: row.funding_instructions } : {}),
    destination: row.destination,
    ...(row.estimated_delivery ? { estimatedDelivery: row.estimated_delivery } : {}),
    ...(row.expires_at ? { expiresAt: row.expires_at.toISOString() } : {}),
    ...(row.provider_status ? { providerStatus: row.provider_status } : {}),
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    ...(row.description ? { description: row.description } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type StablecoinOperationView = ReturnType<typeof operationView>;

/** An operation about to be handed to the provider: its row's own fields, its coin and link, and where it goes. */
type NewOperation = Omit<OperationRow, 'platform_id' | 'status' | 'provider_operation_id' | 'provider_status' | 'funding_instructions' | 'expires_at' | 'submitted_at' | 'created_at' | 'updated_at' | 'failure_reason'> & {
  coin: CoinRow;
  link: UsableLink;
  address?: string;
  rail?: string;
};

/** Submits to the provider and stores the operation, then schedules its first check. */
async function startOperation(uow: UnitOfWork, issuer: StablecoinIssuer, input: NewOperation): Promise<StablecoinOperationView> {
  const { coin, link } = input;
  const sourceType = String(input.source.type);
  const result = await issuer.submit(link.credentials, link.row.provider_account_id, {
    operationId: input.id,
    operationType: input.operation_type as 'MINT' | 'BURN',
    sourceType,
    amount: input.amount_minor,
    fiatAmount: input.fiat_minor,
    baseCurrency: coin.base_currency,
    valueType: coin.provider_token_identifier,
    destination: { ...(input.address ? { address: input.address } : {}), ...(input.rail ? { rail: input.rail } : {}) },
  });
  if (result.kind === 'unavailable') throw providerUnavailable();
  const status = result.fundingInstructions ? 'PENDING_FUNDING' : input.debited_account_id ? 'PROCESSING' : 'PENDING_PROVIDER';
  const row = await uow.tx
    .insertInto('stablecoin_operations')
    .values({
      id: input.id,
      platform_id: uow.platformId,
      stablecoin_id: coin.id,
      stablecoin_provider_account_id: link.row.id,
      provider: coin.provider,
      provider_environment: coin.provider_environment,
      operation_type: input.operation_type,
      status,
      amount_minor: input.amount_minor,
      fiat_minor: input.fiat_minor,
      base_currency: coin.base_currency,
      source: JSON.stringify(input.source),
      destination: JSON.stringify(input.destination),
      funding_instructions: result.fundingInstructions ? JSON.stringify(result.fundingInstructions) : null,
      estimated_delivery: input.estimated_delivery ? JSON.stringify(input.estimated_delivery) : null,
      debited_account_id: input.debited_account_id,
      provider_operation_id: result.providerOperationId,
      provider_status: result.providerStatus,
      description: input.description,
      expires_at: result.expiresInMs !== undefined ? inMs(uow, result.expiresInMs) : null,
      submitted_at: uow.now,
      created_at: uow.now,
      updated_at: uow.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await scheduleJob(uow, { kind: POLL_JOB, payload: { stablecoinOperationId: row.id }, runAt: inMs(uow, result.checkAfterMs) });
  return operationView(row);
}


export interface OperationDeps {
  db: Db;
  issuer: StablecoinIssuer;
  links: ProviderAccountLinks;
  externalAccounts: Pick<ExternalAccountService, 'findAny'>;
  funding: Funding;
  findCoin: (executor: Executor, platformId: PlatformId, id: StablecoinId) => Promise<CoinRow>;
}

/**
 * Mint and burn operations. Each is handed to the provider in the request's transaction (after any
 * money it takes from an internal account is debited, so a refusal for funds reaches no provider)
 * and then followed by a durable job (lifecycle.ts).
 */
export function createOperations({ db, issuer, links, externalAccounts, funding, findCoin }: OperationDeps) {
  /** A coin that can be minted and burned now, and its link ready to use. */
  async function operable(uow: UnitOfWork, id: StablecoinId) {
    const coin = await findCoin(uow.tx, uow.platformId, id);
    if (coin.issuance_status !== 'PROVISIONED') throw stablecoinNotProvisioned(coin.issuance_status);
    const link = await links.use(uow.tx, uow.platformId, coin.stablecoin_provider_account_id);
    return { coin, link };
  }

  /** A live external account of the platform (its own or a customer's), or 404. */
  async function external(uow: UnitOfWork, id: string) {
    const row = await externalAccounts.findAny(uow.tx, uow.platformId, id as ExternalAccountId);
    if (!row) throw externalAccountNotFound();
    return row;
  }

  /** A fiat bank account in the coin's base currency, usable now; a field problem otherwise. */
  async function bankAccount(uow: UnitOfWork, id: string, field: string, currency: string, platformOwned = false): Promise<FieldError | undefined> {
    const row = await external(uow, id);
    if (row.currency !== currency || row.account_type.endsWith('_WALLET')) return { field, message: `Must be a bank account in ${currency}` };
    // The issuer pays for its mint: the account debited is the platform's own, not a customer's.
    if (platformOwned && row.customer_id !== null) return { field, message: "Must be one of the platform's own external accounts (POST /platform/external-accounts)" };
    if (row.status !== 'ACTIVE') return { field, message: `The external account is ${row.status}` };
    return undefined;
  }

  return {
    /** POST /stablecoins/{id}/mints. */
    async mint(uow: UnitOfWork, stablecoinId: StablecoinId, input: MintInput): Promise<StablecoinOperationView> {
      const { coin, link } = await operable(uow, stablecoinId);
      const value = fiatValue(input.amount, coin.decimals, coin.base_currency);
      const problems: FieldError[] = [...value.problems, ...variantProblems('fundingSource', input.fundingSource, MINT_FIELDS)];
      if (input.destination.accountId.startsWith('InternalAccount:') && coin.grid_operations_status !== 'ENABLED') {
        problems.push({ field: 'destination.accountId', message: 'Minting into a Grid internal account needs the stablecoin enabled for Grid operations; name a Spark external account' });
      }
      if (problems.length > 0) throw invalidInput(problems);
      const destination = await external(uow, input.destination.accountId);
      if (destination.account_type !== 'SPARK_WALLET') problems.push({ field: 'destination.accountId', message: 'Must be a Spark wallet (SPARK_WALLET) external account' });
      else if (destination.status !== 'ACTIVE') problems.push({ field: 'destination.accountId', message: `The external account is ${destination.status}` });
      const source = input.fundingSource;
      if (source.externalAccountId) {
        const problem = await bankAccount(uow, source.externalAccountId, 'fundingSource.externalAccountId', coin.base_currency, true);
        if (problem) problems.push(problem);
      }
      if (problems.length > 0) throw invalidInput(problems);
      const id = newId('StablecoinOperation');
      const debited = source.type === 'GRID_INTERNAL_ACCOUNT' ? await funding.debit(uow, { accountId: source.accountId as InternalAccountId, currency: coin.base_currency, amount: value.fiat!, operationId: id }) : null;
      return startOperation(uow, issuer, {
        id,
        coin,
        link,
        stablecoin_id: coin.id,
        stablecoin_provider_account_id: link.row.id,
        provider: coin.provider,
        provider_environment: coin.provider_environment,
        operation_type: 'MINT',
        amount_minor: value.amount!,
        fiat_minor: value.fiat!,
        base_currency: coin.base_currency,
        source: Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined)),
        destination: { accountId: destination.id },
        estimated_delivery: null,
        debited_account_id: debited,
        description: input.description ?? null,
        address: typeof destination.account_info.address === 'string' ? destination.account_info.address : '',
      });
    },

    /** POST /stablecoins/{id}/burns. */
    async burn(uow: UnitOfWork, stablecoinId: StablecoinId, input: BurnInput): Promise<StablecoinOperationView> {
      const { coin, link } = await operable(uow, stablecoinId);
      const value = fiatValue(input.amount, coin.decimals, coin.base_currency);
      const problems: FieldError[] = [...value.problems, ...variantProblems('source', input.source, BURN_FIELDS)];
      if (input.source.type === 'GRID_INTERNAL_ACCOUNT' && coin.grid_operations_status !== 'ENABLED') {
        problems.push({ field: 'source.type', message: 'Burning from a Grid internal account needs the stablecoin enabled for Grid operations; use EXTERNAL_ACCOUNT or PROVIDER_INTERNAL_BALANCE' });
      }
      if (problems.length > 0) throw invalidInput(problems);
      const problem = await bankAccount(uow, input.destination.externalAccountId, 'destination.externalAccountId', coin.base_currency);
      if (problem) throw invalidInput([problem]);
      const rail = input.destination.rail;
      return startOperation(uow, issuer, {
        id: newId('StablecoinOperation'),
        coin,
        link,
        stablecoin_id: coin.id,
        stablecoin_provider_account_id: link.row.id,
        provider: coin.provider,
        provider_environment: coin.provider_environment,
        operation_type: 'BURN',
        amount_minor: value.amount!,
        fiat_minor: value.fiat!,
        base_currency: coin.base_currency,
        source: { type: input.source.type },
        destination: { accountId: input.destination.externalAccountId, rail },
        estimated_delivery: { rail, amount: value.fiat!.toString(), currency: coin.base_currency, timing: RAIL_TIMING[rail] ?? 'Depends on the rail' },
        debited_account_id: null,
        description: input.description ?? null,
        rail,
      });
    },

    async listOperations(scope: Scope, stablecoinId: StablecoinId, filters: PageParams & { operationType?: string | undefined }) {
      await findCoin(db, scope.platformId, stablecoinId);
      let query = db.selectFrom('stablecoin_operations as t').selectAll('t').where('t.platform_id', '=', scope.platformId).where('t.stablecoin_id', '=', stablecoinId);
      if (filters.operationType) query = query.where('t.operation_type', '=', filters.operationType);
      return paginate(query, filters, operationView);
    },

    async getOperation(scope: Scope, id: StablecoinOperationId): Promise<StablecoinOperationView> {
      const row = await db.selectFrom('stablecoin_operations').selectAll().where('platform_id', '=', scope.platformId).where('id', '=', id).executeTakeFirst();
      if (!row) throw stablecoinOperationNotFound();
      return operationView(row);
    },
  };
}
