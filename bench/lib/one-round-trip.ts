/**
 * The one-round-trip ceilings: each money move of the bench written as ONE SQL statement (a
 * data-modifying CTE) that writes the same rows as the service, sent per move as one round trip in
 * autocommit (the statement is its own transaction: its COMMIT and the schema's deferred balance
 * trigger are in that round trip). On PostgreSQL it is a named prepared statement, parsed and
 * planned once per connection; on PGlite the project's client prepares every text once
 * (db/pglite-statements.ts), so there it is sent as text and prepared all the same.
 *
 * What each writes is what the multi-round-trip raw moves of the scenarios write (see their
 * comments), with the same conditions (the conditional debit or hold in its WHERE; the source and
 * destination reads of a quote). Event bodies the service builds from a row it just changed (the
 * balance after a move, the card transaction) are built in the statement with jsonb_build_object;
 * those built from rows the move creates (the transaction view) are built in JS beforehand, as the
 * service would. A statement that changed nothing (insufficient funds, wrong account) fails the move.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { newId } from '../../packages/server/src/core/ids.js';
import { requireCurrency } from '../../packages/server/src/lib/currencies.js';
import { toJson } from '../../packages/server/src/lib/json.js';
import { transactionView } from '../../packages/server/src/modules/transactions/service.js';
import { envelope, transactionRow, type RawBook, type RawClient, type TransactionRow } from './raw.js';
import type { MoneyAccount } from './setup.js';

/** A statement written with `:name` parameters, turned once into `$n` text and a values order. */
interface Statement {
  name: string;
  text: string;
  order: string[];
}

function statement(name: string, source: string): Statement {
  const order: string[] = [];
  const text = source.replace(/(?<!:):([a-zA-Z]\w*)/g, (_, parameter: string) => {
    let index = order.indexOf(parameter);
    if (index < 0) index = order.push(parameter) - 1;
    return `$${index + 1}`;
  });
  return { name, text, order };
}

/** Sends one statement: prepared by name on PostgreSQL, as text on PGlite (whose client prepares it once). Throws when it moved no money. */
async function send(client: RawClient, s: Statement, values: Record<string, unknown>): Promise<void> {
  const ordered = s.order.map((parameter) => {
    if (!(parameter in values)) throw new Error(`${s.name}: no value for :${parameter}`);
    return values[parameter];
  });
  const result: { rows: { moved?: unknown }[] } = client instanceof pg.Client
    ? await client.query({ name: s.name, text: s.text, values: ordered })
    : await client.query(s.text, ordered);
  const moved = Number(result.rows[0]?.moved ?? 0);
  if (moved !== 1) throw new Error(`${s.name}: the move was refused (no row changed)`);
}

/** The envelope of INTERNAL_ACCOUNT.BALANCE_UPDATED for the account row `a` (internalAccountView, in SQL). */
const BALANCE_EVENT_BODY = `jsonb_build_object('id', :balanceEventId::text, 'type', 'INTERNAL_ACCOUNT.BALANCE_UPDATED', 'timestamp', :atIso::text,
  'data', jsonb_strip_nulls(jsonb_build_object('id', a.id, 'customerId', a.customer_id, 'type', coalesce(a.account_type, 'INTERNAL_FIAT'), 'status', a.status,
    'balance', jsonb_build_object('amount', a.total_minor - a.held_minor, 'currency', :currencyJson::jsonb),
    'totalBalance', jsonb_build_object('amount', a.total_minor, 'currency', :currencyJson::jsonb),
    'fundingPaymentInstructions', a.funding_instructions, 'createdAt', a.created_at, 'updatedAt', a.updated_at)))`;

const TRANSACTION_COLUMNS = `id, platform_id, customer_id, type, direction, status, sender_account_id, receiver_account_id, sent_minor, sent_currency,
  received_minor, received_currency, fees_minor, platform_fees_minor, exchange_rate, quote_id, reference, description, failure_reason, settled_at, details,
  created_at, updated_at, kind`;

/** The transaction row's values, from JSON: one parameter instead of twenty. */
const TRANSACTION_FROM_JSON = `SELECT r.id, r.platform_id, r.customer_id, r.type, r.direction, r.status, r.sender_account_id, r.receiver_account_id, r.sent_minor, r.sent_currency,
  r.received_minor, r.received_currency, r.fees_minor, r.platform_fees_minor, r.exchange_rate, r.quote_id, NULL, r.description, NULL, r.settled_at, '{}'::jsonb,
  r.created_at, r.created_at, r.kind
  FROM jsonb_populate_record(NULL::transactions, :transactionJson::jsonb) r`;

/** The two postings of a two-legged move, and two events: the first's body from JS, the balance one from the moved row `a`. */
function entryAndEvents(kind: string, postingsFrom: string): string {
  return `e AS (INSERT INTO ledger_entries (id, platform_id, kind, transaction_id, description, created_at)
      SELECT :entryId, :platformId, '${kind}', t.id, t.description, :at FROM t RETURNING id),
    p AS (INSERT INTO ledger_postings (id, entry_id, platform_id, account_id, currency, amount_minor, created_at)
      SELECT x.id, e.id, :platformId, x.account_id, x.currency, x.amount, :at FROM e, ${postingsFrom} RETURNING 1),
    v AS (INSERT INTO events (id, platform_id, type, payload, body, next_attempt_at, created_at)
      SELECT x.id, :platformId, x.type, x.body::jsonb, x.body, :at, :at FROM a,
        LATERAL (VALUES (:moveEventId, :moveEventType, :moveEventBody::text), (:balanceEventId, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', (${BALANCE_EVENT_BODY})::text)) x(id, type, body)
      RETURNING 1)`;
}

const TWO_POSTINGS = `(VALUES (:posting1::uuid, :account1::text, :currency::text, :amount1::bigint), (:posting2::uuid, :account2::text, :currency::text, :amount2::bigint)) x(id, account_id, currency, amount)`;

const FAR_JOB = `j AS (INSERT INTO jobs (id, platform_id, kind, payload, run_at, status, created_at, updated_at)
  SELECT :jobId, :platformId, :jobKind, :jobPayload::jsonb, :farAt, 'PENDING', :at, :at FROM t RETURNING 1)`;

const FUND = statement('one_round_trip_fund', `WITH a AS (
    UPDATE ledger_accounts SET total_minor = total_minor + :amount, updated_at = :at
    WHERE id = :accountId AND platform_id = :platformId AND currency = :currency AND status = 'ACTIVE' AND purpose IN ('CUSTOMER', 'PLATFORM')
    RETURNING *),
  t AS (INSERT INTO transactions (${TRANSACTION_COLUMNS}) ${TRANSACTION_FROM_JSON} WHERE EXISTS (SELECT 1 FROM a) RETURNING id, description),
  ${entryAndEvents('INCOMING_PAYMENT', TWO_POSTINGS)}
  SELECT (SELECT count(*) FROM a) AS moved`);

const TRANSFER_OUT = statement('one_round_trip_transfer_out', `WITH a AS (
    UPDATE ledger_accounts a SET total_minor = total_minor - :amount, updated_at = :at
    WHERE a.id = :accountId AND a.platform_id = :platformId AND a.currency = :currency AND a.status = 'ACTIVE' AND a.purpose IN ('CUSTOMER', 'PLATFORM')
      AND (a.may_go_negative OR a.total_minor - a.held_minor - :amount >= 0)
      AND EXISTS (SELECT 1 FROM external_accounts e WHERE e.id = :destinationId AND e.platform_id = a.platform_id AND e.customer_id = a.customer_id
                  AND e.currency = :destinationCurrency AND e.deleted_at IS NULL)
    RETURNING a.*),
  t AS (INSERT INTO transactions (${TRANSACTION_COLUMNS}) ${TRANSACTION_FROM_JSON} WHERE EXISTS (SELECT 1 FROM a) RETURNING id, description),
  ${entryAndEvents('TRANSFER_OUT_DEBIT', TWO_POSTINGS)},
  ${FAR_JOB}
  SELECT (SELECT count(*) FROM a) AS moved`);

const QUOTE_COLUMNS = `id, platform_id, customer_id, status, source_type, source_account_id, destination_account_id, sending_currency, receiving_currency,
  locked_side, locked_amount, total_sending_minor, principal_minor, service_fees_minor, platform_fees_minor, total_receiving_minor, exchange_rate, mid_rate,
  transaction_id, funding_reference, payment_instructions, source, destination, description, expires_at, executed_at, created_at, updated_at`;

const QUOTE_VALUES = `SELECT :quoteId, :platformId, :customerId, t.status, 'ACCOUNT', :accountId, :destinationId, 'USD', 'MXN', 'SENDING', :totalSending, :totalSending,
  :principal, :serviceFees, :platformFees, :totalReceiving, :rate, :midRate, t.id, NULL, NULL, :sourceJson::jsonb, :destinationJson::jsonb, NULL, :expiresAt, :executedAt, :at, :at FROM t`;

const QUOTE_CREATE = statement('one_round_trip_quote_create', `WITH s AS (
    SELECT id, customer_id FROM ledger_accounts WHERE platform_id = :platformId AND id = :accountId AND purpose IN ('CUSTOMER', 'PLATFORM') AND currency = 'USD'),
  d AS (SELECT id FROM external_accounts WHERE platform_id = :platformId AND id = :destinationId AND deleted_at IS NULL AND currency = 'MXN'
    AND customer_id = (SELECT customer_id FROM s)),
  t AS (INSERT INTO transactions (${TRANSACTION_COLUMNS}) ${TRANSACTION_FROM_JSON} WHERE EXISTS (SELECT 1 FROM s) AND EXISTS (SELECT 1 FROM d) RETURNING id, status),
  q AS (INSERT INTO quotes (${QUOTE_COLUMNS}) ${QUOTE_VALUES} RETURNING 1),
  ${FAR_JOB}
  SELECT (SELECT count(*) FROM t) AS moved`);

const FIVE_POSTINGS = `(VALUES (:posting1::uuid, :account1::text, 'USD', :amount1::bigint), (:posting2::uuid, :account2::text, 'USD', :amount2::bigint),
  (:posting3::uuid, :account3::text, 'USD', :amount3::bigint), (:posting4::uuid, :account4::text, 'MXN', :amount4::bigint),
  (:posting5::uuid, :account5::text, 'MXN', :amount5::bigint)) x(id, account_id, currency, amount) WHERE x.amount <> 0`;

const QUOTE_EXECUTE = statement('one_round_trip_quote_execute', `WITH a AS (
    UPDATE ledger_accounts a SET total_minor = total_minor - :totalSending, updated_at = :at
    WHERE a.id = :accountId AND a.platform_id = :platformId AND a.currency = 'USD' AND a.status = 'ACTIVE' AND a.purpose IN ('CUSTOMER', 'PLATFORM')
      AND (a.may_go_negative OR a.total_minor - a.held_minor - :totalSending >= 0)
      AND EXISTS (SELECT 1 FROM external_accounts e WHERE e.id = :destinationId AND e.platform_id = a.platform_id AND e.customer_id = a.customer_id
                  AND e.currency = 'MXN' AND e.deleted_at IS NULL)
    RETURNING a.*),
  t AS (INSERT INTO transactions (${TRANSACTION_COLUMNS}) ${TRANSACTION_FROM_JSON} WHERE EXISTS (SELECT 1 FROM a) RETURNING id, status, description),
  q AS (INSERT INTO quotes (${QUOTE_COLUMNS}) ${QUOTE_VALUES} RETURNING 1),
  ${entryAndEvents('QUOTE_EXECUTE', FIVE_POSTINGS)},
  ${FAR_JOB}
  SELECT (SELECT count(*) FROM a) AS moved`);

const CARD_AUTHORIZATION = statement('one_round_trip_card_authorization', `WITH c AS (
    SELECT id, cardholder_id, currency, funding_sources->>0 AS source FROM cards WHERE platform_id = :platformId AND id = :cardId AND state = 'ACTIVE'),
  a AS (UPDATE ledger_accounts SET held_minor = held_minor + :amount, updated_at = :at
    WHERE id = (SELECT source FROM c) AND platform_id = :platformId AND status = 'ACTIVE' AND (may_go_negative OR total_minor - held_minor - :amount >= 0) RETURNING *),
  h AS (INSERT INTO ledger_holds (id, platform_id, account_id, amount_minor, status, reason, created_at, updated_at)
    SELECT :holdId, :platformId, a.id, :amount, 'ACTIVE', 'CARD_AUTHORIZATION ' || :cardTransactionId, :at, :at FROM a RETURNING id),
  ct AS (INSERT INTO card_transactions (id, platform_id, card_id, customer_id, account_id, kind, direction, status, currency, issuer_transaction_token, merchant, hold_id,
      authorized_minor, pull_count, pull_total_minor, authorized_at, last_event_at, created_at, updated_at)
    SELECT :cardTransactionId, :platformId, c.id, c.cardholder_id, c.source, 'AUTHORIZATION', 'DEBIT', 'AUTHORIZED', c.currency, :token, :merchant::jsonb, h.id,
      :amount, 1, :amount, :at, :at, :at, :at FROM c, h RETURNING *),
  t AS (INSERT INTO transactions (id, platform_id, customer_id, type, direction, status, sender_account_id, sent_minor, sent_currency, details, created_at, updated_at, kind)
    SELECT ct.id, :platformId, ct.customer_id, 'CARD', 'DEBIT', 'AUTHORIZED', ct.account_id, :amount, ct.currency, '{}', :at, :at, 'CARD' FROM ct RETURNING id),
  ce AS (INSERT INTO card_events (id, platform_id, card_transaction_id, type, amount_minor, status, details, created_at)
    SELECT x.id, :platformId, ct.id, x.type, :amount, x.status, '{}', :at FROM ct,
      (VALUES (:cardEvent1::uuid, 'AUTHORIZATION', 'APPROVED'), (:cardEvent2::uuid, 'PULL', 'CONFIRMED')) x(id, type, status) RETURNING 1),
  v AS (INSERT INTO events (id, platform_id, type, payload, body, next_attempt_at, created_at)
    SELECT x.id, :platformId, x.type, x.body::jsonb, x.body, :at, :at FROM a, ct, customers cu,
      LATERAL (VALUES
        (:authorizedEventId, 'CARD_TRANSACTION.AUTHORIZED', jsonb_build_object('id', :authorizedEventId::text, 'type', 'CARD_TRANSACTION.AUTHORIZED', 'timestamp', :atIso::text,
          'data', to_jsonb(ct) || jsonb_build_object('type', 'CARD', 'platformCustomerId', cu.platform_customer_id))::text),
        (:balanceEventId, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', (${BALANCE_EVENT_BODY})::text)) x(id, type, body)
    WHERE cu.id = ct.customer_id RETURNING 1)
  SELECT (SELECT count(*) FROM a) AS moved`);

const YEAR_MS = 365 * 24 * 3600 * 1000;

function common(book: RawBook, at: Date, currency: string) {
  return {
    platformId: book.platformId,
    at,
    atIso: at.toISOString(),
    farAt: new Date(at.getTime() + YEAR_MS),
    currencyJson: toJson(requireCurrency(currency)),
    balanceEventId: newId('Webhook'),
  };
}

/** The transaction row as JSON for jsonb_populate_record, and its view's event envelope built in JS. */
function transactionParameters(transaction: TransactionRow, eventType: string, at: Date) {
  const event = envelope(eventType, transactionView(transaction), at);
  return { transactionJson: toJson(transaction), moveEventId: event.id, moveEventType: eventType, moveEventBody: event.json };
}

export async function fundInOneRoundTrip(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  const transaction = transactionRow(
    { id: newId('Transaction'), platform_id: book.platformId, customer_id: account.customerId, platform_customer_id: account.platformCustomerId, kind: 'FUNDING', type: 'INCOMING', direction: 'CREDIT', status: 'COMPLETED', receiver_account_id: account.accountId, received_minor: amount, received_currency: 'USD', description: 'Sandbox funding', settled_at: at },
    at,
  );
  await send(client, FUND, {
    ...common(book, at, 'USD'),
    ...transactionParameters(transaction, 'INCOMING_PAYMENT.COMPLETED', at),
    amount, accountId: account.accountId, currency: 'USD', entryId: newId('LedgerEntry'),
    posting1: uuidv7(), account1: book.external, amount1: -amount, posting2: uuidv7(), account2: account.accountId, amount2: amount,
  });
}

export async function transferOutInOneRoundTrip(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  const transaction = transactionRow(
    { id: newId('Transaction'), platform_id: book.platformId, customer_id: account.customerId, platform_customer_id: account.platformCustomerId, kind: 'TRANSFER', type: 'OUTGOING', direction: 'DEBIT', status: 'PROCESSING', sender_account_id: account.accountId, receiver_account_id: account.externalAccountId, sent_minor: amount, sent_currency: 'USD', received_minor: amount, received_currency: 'USD' },
    at,
  );
  await send(client, TRANSFER_OUT, {
    ...common(book, at, 'USD'),
    ...transactionParameters(transaction, 'OUTGOING_PAYMENT.PROCESSING', at),
    amount, accountId: account.accountId, currency: 'USD', destinationId: account.externalAccountId, destinationCurrency: 'USD', entryId: newId('LedgerEntry'),
    posting1: uuidv7(), account1: account.accountId, amount1: -amount, posting2: uuidv7(), account2: book.transit, amount2: amount,
    jobId: newId('Job'), jobKind: 'transfer.settle', jobPayload: JSON.stringify({ transactionId: transaction.id, succeeds: true }),
  });
}

/** What a quote's statement needs beside the book: its priced amounts and its transaction (PENDING or PROCESSING). */
export interface PricedQuote {
  quoteId: string;
  transaction: TransactionRow;
  amounts: { totalSending: bigint; principal: bigint; serviceFees: bigint; platformFees: bigint; fees: bigint; totalReceiving: bigint };
  rate: string;
  midRate: string;
  expiresAt: Date;
}

function quoteParameters(book: RawBook, account: MoneyAccount, quote: PricedQuote, at: Date) {
  const { amounts } = quote;
  return {
    quoteId: quote.quoteId, customerId: account.customerId, accountId: account.accountId, destinationId: account.clabeAccountId,
    totalSending: amounts.totalSending, principal: amounts.principal, serviceFees: amounts.serviceFees, platformFees: amounts.platformFees, totalReceiving: amounts.totalReceiving,
    rate: quote.rate, midRate: quote.midRate, expiresAt: quote.expiresAt, executedAt: quote.transaction.status === 'PROCESSING' ? at : null,
    sourceJson: JSON.stringify({ sourceType: 'ACCOUNT', accountId: account.accountId, customerId: account.customerId }),
    destinationJson: JSON.stringify({ destinationType: 'ACCOUNT', accountId: account.clabeAccountId }),
    transactionJson: toJson(quote.transaction),
    jobId: newId('Job'), platformId: book.platformId,
  };
}

export async function quoteCreateInOneRoundTrip(client: RawClient, book: RawBook, account: MoneyAccount, quote: PricedQuote): Promise<void> {
  const at = quote.transaction.created_at;
  await send(client, QUOTE_CREATE, {
    ...quoteParameters(book, account, quote, at), at, farAt: new Date(at.getTime() + YEAR_MS),
    jobKind: 'quote.expire', jobPayload: JSON.stringify({ quoteId: quote.quoteId }),
  });
}

export async function quoteExecuteInOneRoundTrip(client: RawClient, book: RawBook, account: MoneyAccount, quote: PricedQuote, settleAfterMs: number): Promise<void> {
  const at = quote.transaction.created_at;
  const { amounts } = quote;
  await send(client, QUOTE_EXECUTE, {
    ...common(book, at, 'USD'),
    ...quoteParameters(book, account, quote, at),
    ...transactionParameters(quote.transaction, 'OUTGOING_PAYMENT.PROCESSING', at),
    entryId: newId('LedgerEntry'),
    posting1: uuidv7(), account1: account.accountId, amount1: -amounts.totalSending,
    posting2: uuidv7(), account2: book.fx, amount2: amounts.principal,
    posting3: uuidv7(), account3: book.transit, amount3: amounts.fees,
    posting4: uuidv7(), account4: book.fxMxn, amount4: -amounts.totalReceiving,
    posting5: uuidv7(), account5: book.transitMxn, amount5: amounts.totalReceiving,
    jobKind: 'quote.settle', jobPayload: JSON.stringify({ quoteId: quote.quoteId, outcome: { kind: 'complete', afterMs: settleAfterMs } }),
  });
}

export async function cardAuthorizationInOneRoundTrip(client: RawClient, book: RawBook, cardId: string, amount: bigint): Promise<void> {
  const at = new Date();
  await send(client, CARD_AUTHORIZATION, {
    ...common(book, at, 'USD'),
    amount, cardId, holdId: newId('Hold'), cardTransactionId: newId('CardTransaction'), token: randomBytes(16).toString('hex'),
    merchant: JSON.stringify({ descriptor: 'BENCH MERCHANT', mcc: '5814', country: 'US' }),
    cardEvent1: uuidv7(), cardEvent2: uuidv7(), authorizedEventId: newId('Webhook'),
  });
}
