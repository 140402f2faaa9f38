/**
 * Quote scenarios, USD to MXN, to each customer's CLABE account: creating a PENDING quote, and
 * creating one with immediatelyExecute (priced, debited into transit through the FX accounts, payout
 * scheduled), each beside the same reads and writes by hand in one SQL transaction (`RAW_QUOTE_SQL`).
 */
import { newId } from '../../packages/server/src/core/ids.js';
import { Dec, quoteAmounts } from '../../packages/server/src/fx/conversion.js';
import { internalAccountView } from '../../packages/server/src/ledger/accounts.js';
import { transactionView } from '../../packages/server/src/modules/transactions/service.js';
import { PAYOUT_SETTLEMENT_DELAY_MS } from '../../packages/server/src/sandbox/payout-outcomes.js';
import { measure, type Row } from '../lib/load.js';
import { quoteCreateInOneRoundTrip, quoteExecuteInOneRoundTrip, type PricedQuote } from '../lib/one-round-trip.js';
import { inLockOrder, insertFarJob, insertMoveRows, insertTransaction, measureRaw, transactionRow, type AccountRow, type RawBook, type RawClient, type RawTarget, type TransactionRow } from '../lib/raw.js';
import { call, type Server } from '../lib/server.js';
import { API, MONEY_SECONDS, QUOTE_SENDING_MINOR, QUOTE_TTL_MAX_SECONDS, SECONDS } from '../lib/settings.js';
import { moneyRequests, picker, quoteRequest, type MoneyAccount } from '../lib/setup.js';
import { awaitSettlements, RAW_TRANSFER_OUT_SQL, SETTLEMENTS } from './money.js';

/**
 * The raw quotes, USD to the customer's MXN CLABE account, priced with the project's quoteAmounts
 * at a constant rate in memory (`RAW_QUOTE`), the transaction and quote rows built by `rawQuote`.
 *
 * Create, as `quotes.create` does it without immediatelyExecute once priced: read the source
 * internal account and the destination external account by id and platform (as accounts.getRow
 * and externalAccounts.findAny do; the bench checks currencies and owner as resolveDestination
 * does), insert the PENDING OUTGOING transaction (with its quote, rate, fees and platform fees),
 * the PENDING quote, and its `quote.expire` job. 7 round trips with BEGIN and COMMIT. Not done:
 * reading the fee configuration and exchange rate (pricing) and the currency limits.
 *
 * Execute, as `quotes.create` with immediatelyExecute does it once priced: the conditional debit
 * of the source (RAW_TRANSFER_OUT_SQL.debitSource, toward the CLABE account), the quote row
 * (already PROCESSING and executed), the OUTGOING transaction (PROCESSING), the QUOTE_EXECUTE entry
 * with its five postings (source −total, FX(USD) +principal, TRANSIT(USD) +fees, FX(MXN) −received,
 * TRANSIT(MXN) +received; the bookkeeping accounts keep no running balance), the two events
 * (OUTGOING_PAYMENT.PROCESSING, INTERNAL_ACCOUNT.BALANCE_UPDATED) and the `quote.settle` job. 8
 * round trips with BEGIN and COMMIT. Not done: reading the source, destination, fee configuration
 * and limits, and the separate status updates the service makes after inserting the PENDING quote
 * and transaction.
 *
 * Both schedule their job a year ahead (the quote's own expires_at is the real TTL), so that on
 * PostgreSQL the server's job runner never expires or settles a raw quote beside a later scenario.
 */
const RAW_QUOTE_SQL = {
  source: `SELECT * FROM ledger_accounts WHERE platform_id = $1 AND id = $2 AND purpose IN ('CUSTOMER', 'PLATFORM')`,
  destination: `SELECT * FROM external_accounts WHERE platform_id = $1 AND id = $2 AND deleted_at IS NULL`,
  quote: `INSERT INTO quotes (id, platform_id, customer_id, status, source_type, source_account_id, destination_account_id, sending_currency, receiving_currency,
      locked_side, locked_amount, total_sending_minor, principal_minor, service_fees_minor, platform_fees_minor, total_receiving_minor, exchange_rate, mid_rate,
      transaction_id, funding_reference, payment_instructions, source, destination, description, expires_at, executed_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'ACCOUNT', $5, $6, $7, $8, 'SENDING', $9, $9, $10, $11, $12, $13, $14, $15, $16, NULL, NULL, $17, $18, NULL, $19, $20, $21, $21)`,
};

/** The raw quote's amounts: the project's own pricing arithmetic at a constant rate, the server's default service fee (10 bps). */
const RAW_QUOTE = {
  rate: '17.1',
  mid: '17.2',
  amounts: quoteAmounts({
    lockedSide: 'SENDING',
    lockedAmount: QUOTE_SENDING_MINOR,
    rate: new Dec('17.1'),
    sendingDecimals: 2,
    receivingDecimals: 2,
    serviceFee: { fixed: 0n, bps: 10 },
    platformFee: { fixed: 0n, bps: 0 },
  }),
};

/** A raw quote's OUTGOING transaction (PENDING when created, PROCESSING when executed at once) and its quote's id. */
function rawQuote(book: RawBook, account: MoneyAccount, status: 'PENDING' | 'PROCESSING', at: Date): { quoteId: string; transaction: TransactionRow } {
  const { amounts } = RAW_QUOTE;
  const quoteId = newId('Quote');
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'QUOTE',
      type: 'OUTGOING',
      direction: 'DEBIT',
      status,
      sender_account_id: account.accountId,
      receiver_account_id: account.clabeAccountId,
      sent_minor: amounts.totalSending,
      sent_currency: 'USD',
      received_minor: amounts.totalReceiving,
      received_currency: 'MXN',
      fees_minor: amounts.fees,
      platform_fees_minor: amounts.platformFees,
      exchange_rate: RAW_QUOTE.rate,
      quote_id: quoteId,
    },
    at,
  );
  return { quoteId, transaction };
}

/** `rawQuote` with its amounts and rates, for the one-round-trip statements. */
function pricedQuote(book: RawBook, account: MoneyAccount, status: 'PENDING' | 'PROCESSING'): PricedQuote {
  const at = new Date();
  return { ...rawQuote(book, account, status, at), amounts: RAW_QUOTE.amounts, rate: RAW_QUOTE.rate, midRate: RAW_QUOTE.mid, expiresAt: new Date(at.getTime() + QUOTE_TTL_MAX_SECONDS * 1000) };
}

/** The quote row of `rawQuote`, in its transaction's status (executed when PROCESSING). */
async function insertQuote(client: RawClient, book: RawBook, account: MoneyAccount, { quoteId, transaction }: ReturnType<typeof rawQuote>, at: Date): Promise<void> {
  const { amounts } = RAW_QUOTE;
  await client.query(RAW_QUOTE_SQL.quote, [
    quoteId, book.platformId, account.customerId, transaction.status, account.accountId, account.clabeAccountId, 'USD', 'MXN',
    amounts.totalSending, amounts.principal, amounts.serviceFees, amounts.platformFees, amounts.totalReceiving, RAW_QUOTE.rate, RAW_QUOTE.mid, transaction.id,
    JSON.stringify({ sourceType: 'ACCOUNT', accountId: account.accountId, customerId: account.customerId }),
    JSON.stringify({ destinationType: 'ACCOUNT', accountId: account.clabeAccountId }),
    new Date(at.getTime() + QUOTE_TTL_MAX_SECONDS * 1000),
    transaction.status === 'PROCESSING' ? at : null,
    at,
  ]);
}

async function rawQuoteCreate(client: RawClient, book: RawBook, account: MoneyAccount): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  const source = (await client.query(RAW_QUOTE_SQL.source, [book.platformId, account.accountId])).rows[0];
  if (!source || source.currency !== 'USD') throw new Error(`raw quote create: no USD source account ${account.accountId}`);
  const destination = (await client.query(RAW_QUOTE_SQL.destination, [book.platformId, account.clabeAccountId])).rows[0];
  if (!destination || destination.currency !== 'MXN' || destination.customer_id !== source.customer_id) {
    throw new Error(`raw quote create: ${account.clabeAccountId} is not an MXN account of the source's owner`);
  }
  const quote = rawQuote(book, account, 'PENDING', at);
  await insertTransaction(client, quote.transaction, at);
  await insertQuote(client, book, account, quote, at);
  await insertFarJob(client, book, 'quote.expire', { quoteId: quote.quoteId }, at);
  await client.query('COMMIT', []);
}

async function rawQuoteExecute(client: RawClient, book: RawBook, account: MoneyAccount): Promise<void> {
  const { amounts } = RAW_QUOTE;
  const at = new Date();
  await client.query('BEGIN', []);
  let debited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      debited = (await client.query(RAW_TRANSFER_OUT_SQL.debitSource, [amounts.totalSending, at, account.accountId, book.platformId, 'USD', account.clabeAccountId, 'MXN'])).rows[0] as AccountRow | undefined;
      if (!debited) throw new Error(`raw quote: account ${account.accountId} was not debited`);
    }],
  ]);
  const quote = rawQuote(book, account, 'PROCESSING', at);
  const { quoteId, transaction } = quote;
  await insertQuote(client, book, account, quote, at);
  await insertMoveRows(client, book, {
    transaction,
    kind: 'QUOTE_EXECUTE',
    postings: [
      { accountId: account.accountId, currency: 'USD', amount: -amounts.totalSending },
      { accountId: book.fx, currency: 'USD', amount: amounts.principal },
      ...(amounts.fees > 0n ? [{ accountId: book.transit, currency: 'USD', amount: amounts.fees }] : []),
      { accountId: book.fxMxn, currency: 'MXN', amount: -amounts.totalReceiving },
      { accountId: book.transitMxn, currency: 'MXN', amount: amounts.totalReceiving },
    ],
    events: [['OUTGOING_PAYMENT.PROCESSING', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(debited!)]],
    at,
  });
  await insertFarJob(client, book, 'quote.settle', { quoteId, outcome: { kind: 'complete', afterMs: PAYOUT_SETTLEMENT_DELAY_MS } }, at);
  await client.query('COMMIT', []);
}

/**
 * Quotes USD to MXN, to each customer's CLABE account, round-robin over the accounts: creating one,
 * then creating and executing in one request, each compared with the same reads and writes by hand
 * (see RAW_QUOTE_SQL). The quotes the first scenario leaves PENDING are expired before the next
 * measurement, by advancing the platform clock past their TTL, and the payouts the second leaves
 * are settled, so neither one's jobs run beside a later scenario; the raw quotes' jobs are a year ahead.
 */
export async function benchQuotes(
  label: string,
  server: Server,
  accounts: MoneyAccount[],
  raw: RawTarget,
  pendingSettlements: () => Promise<number>,
  notes: string[],
): Promise<Row[]> {

  const createScenario = `POST ${API}/quotes (create)`;
  const create = await measure(label, createScenario, SECONDS, moneyRequests(server, true, accounts, (account) => quoteRequest(account, false)));
  await call(server, label, { method: 'POST', path: '/sandbox/clock/advance', body: { seconds: QUOTE_TTL_MAX_SECONDS + 1 }, expect: 200 });
  const pendingQuotes = async () => (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/transactions?status=PENDING&type=OUTGOING&limit=1', expect: 200 })).totalCount;
  await awaitSettlements(label, createScenario, pendingQuotes, notes, {
    items: 'quotes',
    left: `PENDING (the platform clock then moved ${QUOTE_TTL_MAX_SECONDS + 1} s ahead, past their TTL)`,
    done: 'expired',
  });

  // After the expiry wait: on PostgreSQL the raw PENDING quotes share the database, and would be counted above.
  const pick = picker(raw.book.accounts, true);
  const createScenarioRaw = `quote create (spread over ${accounts.length})`;
  const createMulti = await measureRaw(label, `raw SQL, 7 round trips, ${createScenarioRaw}`, raw.pool, (client) => rawQuoteCreate(client, raw.book, pick()));
  const createCeiling = await measureRaw(label, `one-round-trip SQL ${createScenarioRaw}`, raw.pool, (client) => {
    const account = pick();
    return quoteCreateInOneRoundTrip(client, raw.book, account, pricedQuote(raw.book, account, 'PENDING'));
  });

  const scenario = `quote + execute (spread over ${accounts.length})`;
  const api = await measure(label, scenario, MONEY_SECONDS, moneyRequests(server, true, accounts, (account) => quoteRequest(account, true)));
  await awaitSettlements(label, scenario, pendingSettlements, notes, { ...SETTLEMENTS, items: 'quote payouts' });
  const multi = await measureRaw(label, `raw SQL, 8 round trips, ${scenario}`, raw.pool, (client) => rawQuoteExecute(client, raw.book, pick()));
  const ceiling = await measureRaw(label, `one-round-trip SQL ${scenario}`, raw.pool, (client) => {
    const account = pick();
    return quoteExecuteInOneRoundTrip(client, raw.book, account, pricedQuote(raw.book, account, 'PROCESSING'), PAYOUT_SETTLEMENT_DELAY_MS);
  });
  return [
    { ...create, ceiling: createCeiling }, { ...createMulti, ceiling: createCeiling }, createCeiling,
    { ...api, ceiling }, { ...multi, ceiling }, ceiling,
  ];
}
