import { uuidv7 } from '../../lib/uuid7.js';
import type { Gates } from '../../core/gates.js';
import { isError } from '../../core/errors.js';
import { isId, type CardId, type CardTransactionId, type CustomerId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import type { Executor, Tx } from '../../db/schema.js';
import { earlierRead, knownRead } from '../../db/read-once.js';
import type { UnitAhead } from '../../db/group-commit.js';
import { inSavepoint } from '../../db/savepoint.js';
import { writeWithNext } from '../../db/write-with-next.js';
import { readWithNext } from '../../db/read-with-next.js';
import { sql, type Insertable, type RawBuilder } from 'kysely';
import { statementShape } from '../../db/statement-shape.js';
import type { CardEventsTable } from './tables.js';
import { moves, type Ledger } from '../../ledger/index.js';
import { insufficientFunds } from '../../ledger/errors.js';
import { toJson } from '../../lib/json.js';
import type { RateSource } from '../../fx/rate-source.js';
import type { TransactionService } from '../transactions/service.js';
import { cardNotFound, cardTransactionNotFound } from './errors.js';
import { cardTransactionView, type CardRow, type CardTransactionRow, type CardTransactionView } from './view.js';
import { customerField, customerFields } from '../customers/queries.js';

/** The payment kind of card transactions (their `transactions` index rows). */
export const CARD = 'CARD';
export const PULL_CONFIRMATION_JOB = 'card.pull.confirmation';
/** How long the network's delayed pull confirmation takes (the reference's ~30 s). */
export const DELAYED_PULL_MS = 30_000;

/** What the card transaction functions work with; the service factory binds them to it. */
export interface CardTransactionDeps {
  ledger: Ledger;
  rates: RateSource;
  transactions: TransactionService;
  loadCard: (executor: Executor, platformId: PlatformId, cardId: CardId) => Promise<CardRow>;
  gates: Gates;
}

/** The aggregates a step of a card transaction may change. */
export type CardTransactionChange = Partial<
  Pick<CardTransactionRow, 'status' | 'hold_id' | 'authorized_minor' | 'settled_minor' | 'refunded_minor' | 'pull_count' | 'pull_total_minor' | 'pull_pending_count' | 'settlement_count' | 'refund_count'>
>;

export function selectCardTransactions(executor: Executor) {
  return executor
    .selectFrom('card_transactions as ct')
    .selectAll('ct')
    .select(customerField('ct.customer_id', 'platform_customer_id').as('platform_customer_id'));
}

export async function lockCardTransaction(uow: UnitOfWork, cardId: CardId, id: CardTransactionId): Promise<CardTransactionRow> {
  const row = await selectCardTransactions(uow.tx)
    .where('ct.platform_id', '=', uow.platformId)
    .where('ct.card_id', '=', cardId)
    .where('ct.id', '=', id)
    .forNoKeyUpdate('ct')
    .executeTakeFirst();
  if (!row) throw cardTransactionNotFound();
  return row;
}

/** A card event's row: one statement text (db/statement-shape.ts), not a builder's work per event. */
const insertCardEvent = statementShape((executor: Executor, row: Insertable<CardEventsTable> & { details: string }) =>
  executor.insertInto('card_events').values({
    id: row.id,
    platform_id: row.platform_id,
    card_transaction_id: row.card_transaction_id,
    type: row.type,
    amount_minor: row.amount_minor,
    status: row.status,
    details: row.details,
    created_at: row.created_at,
  }),
);

/** Keeps one step of a card transaction as a card event; the row travels with the transaction's next statement (db/write-with-next.ts). */
export async function recordCardEvent(uow: UnitOfWork, id: CardTransactionId, type: string, amount: bigint, status: string, details: Record<string, unknown> = {}): Promise<void> {
  await writeWithNext(
    uow.tx,
    insertCardEvent(uow.tx, { id: uuidv7(), platform_id: uow.platformId, card_transaction_id: id, type, amount_minor: amount, status, details: toJson(details), created_at: uow.now }),
  );
}

export function announceCardTransaction(uow: UnitOfWork, row: CardTransactionRow): CardTransactionView {
  const view = cardTransactionView(row);
  uow.emit(`CARD_TRANSACTION.${row.status}`, view);
  return view;
}

/** Writes the parent's new aggregates, keeps its index row in step, and announces it. */
export async function saveCardTransaction(deps: Pick<CardTransactionDeps, 'transactions'>, uow: UnitOfWork, row: CardTransactionRow, change: CardTransactionChange): Promise<CardTransactionView> {
  const updated = await uow.tx
    .updateTable('card_transactions')
    .set({ ...change, last_event_at: uow.now, updated_at: uow.now })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (change.status && change.status !== row.status) await deps.transactions.reindex(uow, row.id, change.status);
  return announceCardTransaction(uow, { ...updated, platform_customer_id: row.platform_customer_id });
}

export async function cardholderOf(uow: UnitOfWork, customerId: CustomerId) {
  return customerFields(uow.tx, customerId, ['platform_customer_id', 'kyc_status', 'deleted_at']);
}

/** The cards table with what `cardholderOf` tells of each card's holder. */
function cardsWithHolders(executor: Executor) {
  return executor
    .selectFrom('cards')
    .selectAll('cards')
    .select([
      customerField('cards.cardholder_id', 'platform_customer_id').as('holder_platform_customer_id'),
      customerField('cards.cardholder_id', 'kyc_status').as('holder_kyc_status'),
      customerField('cards.cardholder_id', 'deleted_at').as('holder_deleted_at'),
    ]);
}
type CardWithHolderRow = NonNullable<Awaited<ReturnType<ReturnType<typeof cardsWithHolders>['executeTakeFirst']>>>;

function splitCardRow({ holder_platform_customer_id, holder_kyc_status, holder_deleted_at, ...card }: CardWithHolderRow) {
  return { card, holder: { platform_customer_id: holder_platform_customer_id, kyc_status: holder_kyc_status ?? '', deleted_at: holder_deleted_at } };
}
export type CardWithHolder = ReturnType<typeof splitCardRow>;

const cardReadKey = (platformId: string, cardId: string) => `cards ${platformId} ${cardId}`;

/** A card of the platform (CARD_NOT_FOUND otherwise) with what `cardholderOf` tells of its holder, in one statement. */
export async function cardWithHolder(uow: UnitOfWork, cardId: CardId, { withNext = false }: { withNext?: boolean } = {}): Promise<CardWithHolder> {
  const query = cardsWithHolders(uow.tx).where('cards.platform_id', '=', uow.platformId).where('cards.id', '=', cardId);
  // With `withNext`, it travels with the caller's next statement (db/read-with-next.ts).
  const row = withNext ? (await readWithNext(uow.tx, query))[0] : await query.executeTakeFirst();
  if (!row) throw cardNotFound();
  return splitCardRow(row);
}

/** The card as its group-commit batch read it ahead (`readCardsAhead`), or undefined. */
export function cardReadAhead(uow: UnitOfWork, cardId: CardId): Promise<CardWithHolder> | undefined {
  return earlierRead<CardWithHolder>(uow.tx, cardReadKey(uow.platformId, cardId));
}

/**
 * A group-commit batch of card authorizations (their lane is the card, sandbox-routes.ts) reads
 * its cards with their holders, and the ledger their first funding sources under lock, in the
 * round trip of its BEGIN: each authorization then reads nothing (`authorize`). Only the declaring
 * platform's cards. No unit of a card's lane changes its card row, so the row read at the batch's
 * start is the one each unit would have read (as `readOnce` keeps an external account).
 */
export async function readCardsAhead(ledger: Ledger, tx: Tx, units: readonly UnitAhead[]): Promise<void> {
  const wanted = units.filter((unit) => isId('Card', unit.lane));
  if (wanted.length === 0) return;
  const owners = wanted.map((unit) => unit.owner);
  const ids = wanted.map((unit) => unit.lane);
  const cards = readWithNext(tx, cardsWithHolders(tx).where(sql<boolean>`(cards.platform_id, cards.id) IN (SELECT * FROM unnest(${owners}::text[], ${ids}::text[]))`));
  cards.catch(() => undefined);
  await ledger.readAccountsAhead(tx, sql`SELECT k.platform_id, k.funding_sources->>0 FROM cards k WHERE (k.platform_id, k.id) IN (SELECT * FROM unnest(${owners}::text[], ${ids}::text[]))`);
  for (const row of await cards) knownRead(tx, cardReadKey(row.platform_id, row.id), splitCardRow(row));
}

/** The id of a card's first funding source, as an expression (for the ledger to lock it with the card's read). */
export function firstFundingSource(uow: UnitOfWork, cardId: CardId): RawBuilder<InternalAccountId> {
  return sql<InternalAccountId>`(SELECT funding_sources->>0 FROM cards WHERE platform_id = ${uow.platformId} AND id = ${cardId})`;
}

/** Takes money from an account for the outside, or reports it could not (nothing is written then). */
export async function tryPull(
  { ledger }: Pick<CardTransactionDeps, 'ledger'>,
  uow: UnitOfWork,
  account: InternalAccountId,
  currency: string,
  amount: bigint,
  id: CardTransactionId,
  kind: string,
): Promise<boolean> {
  try {
    await inSavepoint(uow.tx, () => ledger.book(uow, { kind, transactionId: id }, moves.spend(account, currency, amount)));
    return true;
  } catch (error) {
    if (isError(error, insufficientFunds)) return false;
    throw error;
  }
}

/** What a return may still give back: the settled amount not yet returned, at most the money the source has net lost to this transaction. */
export async function stillReturnable({ ledger }: Pick<CardTransactionDeps, 'ledger'>, uow: UnitOfWork, row: CardTransactionRow): Promise<bigint> {
  const taken = -(await ledger.netMovement(uow, row.account_id, row.id));
  const unreturned = row.settled_minor - row.refunded_minor;
  return taken < unreturned ? taken : unreturned;
}
