/**
 * Money scenarios: sandbox funding (`POST /sandbox/internal-accounts/{id}/fund`) and
 * `POST /transfer-out` to the customer's US bank account, each beside the same money move written
 * by hand as one SQL transaction (`RAW_FUND_SQL`, `RAW_TRANSFER_OUT_SQL`). Every funding also debits
 * the platform's single EXTERNAL account and every transfer-out credits its single TRANSIT account,
 * so "spread" moves still share one hot row; the raw moves do too.
 */
import { newId } from '../../packages/server/src/core/ids.js';
import { internalAccountView } from '../../packages/server/src/ledger/accounts.js';
import { transactionView } from '../../packages/server/src/modules/transactions/service.js';
import { measure, type Row } from '../lib/load.js';
import { stopping } from '../lib/interruption.js';
import { fundInOneRoundTrip, transferOutInOneRoundTrip } from '../lib/one-round-trip.js';
import { inLockOrder, insertFarJob, insertMoveRows, measureRaw, transactionRow, type AccountRow, type RawBook, type RawClient, type RawTarget } from '../lib/raw.js';
import type { Server } from '../lib/server.js';
import { API, MONEY_SECONDS, progress, SETTLEMENT_WAIT_MS } from '../lib/settings.js';
import { moneyRequests, picker, type MoneyAccount } from '../lib/setup.js';

/**
 * Raw funding, as `incoming.fund` does it: credit the account (the row comes back with RETURNING
 * for the balance event; the platform's EXTERNAL bookkeeping account keeps no running balance, its
 * posting is enough), the COMPLETED INCOMING transaction, the entry with its two postings in one
 * statement, and the two events (INCOMING_PAYMENT.COMPLETED, INTERNAL_ACCOUNT.BALANCE_UPDATED).
 * 6 round trips with BEGIN and COMMIT; the deferred balance trigger of the schema runs at COMMIT as in the service.
 */
const RAW_FUND_SQL = {
  credit: `UPDATE ledger_accounts SET total_minor = total_minor + $1, updated_at = $2
    WHERE id = $3 AND platform_id = $4 AND currency = $5 AND status = 'ACTIVE' AND purpose IN ('CUSTOMER', 'PLATFORM')
    RETURNING *`,
};

/**
 * Raw transfer-out, as `transfers.transferOut` does it for an external destination the sandbox
 * settles: the conditional debit of the source (which also checks, in its WHERE, that the
 * destination is an undeleted external account of the same customer, in the currency it receives),
 * the PROCESSING OUTGOING transaction, the entry with its two postings (TRANSIT keeps no running
 * balance), the settlement job, and the two events (OUTGOING_PAYMENT.PROCESSING,
 * INTERNAL_ACCOUNT.BALANCE_UPDATED). 7 round trips with BEGIN and COMMIT. Not done: reading the
 * platform's currency limits (a constant here). The job row (`RAW_COMMON_SQL.job`) is scheduled a
 * year ahead so that on PostgreSQL, where the server shares the database, its job runner leaves the
 * raw rows alone: settlement is a later move, not part of this one. The quote execution reuses the debit.
 */
export const RAW_TRANSFER_OUT_SQL = {
  debitSource: `UPDATE ledger_accounts a SET total_minor = total_minor - $1, updated_at = $2
    WHERE a.id = $3 AND a.platform_id = $4 AND a.currency = $5 AND a.status = 'ACTIVE' AND a.purpose IN ('CUSTOMER', 'PLATFORM')
      AND (a.may_go_negative OR a.total_minor - a.held_minor - $1 >= 0)
      AND EXISTS (SELECT 1 FROM external_accounts e WHERE e.id = $6 AND e.platform_id = a.platform_id AND e.customer_id = a.customer_id
                  AND e.currency = $7 AND e.deleted_at IS NULL)
    RETURNING a.*`,
};

export async function rawFund(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  let credited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      credited = (await client.query(RAW_FUND_SQL.credit, [amount, at, account.accountId, book.platformId, 'USD'])).rows[0] as AccountRow | undefined;
      if (!credited) throw new Error(`raw fund: account ${account.accountId} was not credited`);
    }],
  ]);
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'FUNDING',
      type: 'INCOMING',
      direction: 'CREDIT',
      status: 'COMPLETED',
      receiver_account_id: account.accountId,
      received_minor: amount,
      received_currency: 'USD',
      description: 'Sandbox funding',
      settled_at: at,
    },
    at,
  );
  await insertMoveRows(client, book, {
    transaction,
    kind: 'INCOMING_PAYMENT',
    postings: [{ accountId: book.external, currency: 'USD', amount: -amount }, { accountId: account.accountId, currency: 'USD', amount }],
    events: [['INCOMING_PAYMENT.COMPLETED', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(credited!)]],
    at,
  });
  await client.query('COMMIT', []);
}

async function rawTransferOut(client: RawClient, book: RawBook, account: MoneyAccount, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  let debited: AccountRow | undefined;
  await inLockOrder([
    [account.accountId, async () => {
      debited = (await client.query(RAW_TRANSFER_OUT_SQL.debitSource, [amount, at, account.accountId, book.platformId, 'USD', account.externalAccountId, 'USD'])).rows[0] as AccountRow | undefined;
      if (!debited) throw new Error(`raw transfer-out: account ${account.accountId} was not debited`);
    }],
  ]);
  const transaction = transactionRow(
    {
      id: newId('Transaction'),
      platform_id: book.platformId,
      customer_id: account.customerId,
      platform_customer_id: account.platformCustomerId,
      kind: 'TRANSFER',
      type: 'OUTGOING',
      direction: 'DEBIT',
      status: 'PROCESSING',
      sender_account_id: account.accountId,
      receiver_account_id: account.externalAccountId,
      sent_minor: amount,
      sent_currency: 'USD',
      received_minor: amount,
      received_currency: 'USD',
    },
    at,
  );
  await insertMoveRows(client, book, {
    transaction,
    kind: 'TRANSFER_OUT_DEBIT',
    postings: [{ accountId: account.accountId, currency: 'USD', amount: -amount }, { accountId: book.transit, currency: 'USD', amount }],
    events: [['OUTGOING_PAYMENT.PROCESSING', transactionView(transaction)], ['INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(debited!)]],
    at,
  });
  await insertFarJob(client, book, 'transfer.settle', { transactionId: transaction.id, succeeds: true }, at);
  await client.query('COMMIT', []);
}

/** How a wait for the server's job runner is reported: what it waited for, in what state, and what the jobs did. */
export interface Backlog {
  items: string;
  left: string;
  done: string;
}
export const SETTLEMENTS: Backlog = { items: 'transfers', left: 'unsettled', done: 'settled' };

/** Waits until the server's job runner has settled (or otherwise worked off) what a scenario left behind. */
export async function awaitSettlements(label: string, scenario: string, pending: () => Promise<number>, notes: string[], what: Backlog = SETTLEMENTS): Promise<void> {
  const begun = Date.now();
  const initial = await pending();
  let left = initial;
  while (left > 0 && !stopping && Date.now() - begun < SETTLEMENT_WAIT_MS) {
    await new Promise((r) => setTimeout(r, 500));
    left = await pending();
  }
  const seconds = ((Date.now() - begun) / 1000).toFixed(1);
  const line = left > 0
    ? `${label} ${scenario}: ${left} of ${initial} ${what.items} were still ${what.left} after ${seconds} s; the next scenario ran beside them.`
    : `${label} ${scenario}: ${initial} ${what.items} were still ${what.left} when the run ended; the server's job runner ${what.done} them in ${seconds} s.`;
  progress(`[${label}] ${line.slice(label.length + 1)}`);
  notes.push(line);
}

/**
 * Sandbox funding and transfer-out, amount 1, on one account (hot) and round-robin over every
 * account (spread), each beside the same move by hand (`rawFund`, `rawTransferOut`); the transfers'
 * settlements (scheduled past the window: SETTLE_AFTER_MS) are awaited before the next measurement.
 */
export async function benchMoney(
  label: string,
  server: Server,
  accounts: MoneyAccount[],
  raw: RawTarget,
  pendingSettlements: () => Promise<number>,
  notes: string[],
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const move of ['fund', 'transfer-out'] as const) {
    for (const spread of [false, true]) {
      const scenario = `${move} (${spread ? `spread over ${accounts.length}` : 'hot'})`;
      const options = moneyRequests(server, spread, accounts, (account) =>
        move === 'fund'
          ? { path: `${API}/sandbox/internal-accounts/${account.accountId}/fund`, body: { amount: 1 } }
          : { path: `${API}/transfer-out`, body: { source: { accountId: account.accountId }, destination: { accountId: account.externalAccountId }, amount: 1 } },
      );
      const api = await measure(label, scenario, MONEY_SECONDS, options);
      if (move === 'transfer-out') await awaitSettlements(label, scenario, pendingSettlements, notes);

      const pick = picker(raw.book.accounts, spread);
      const roundTrips = move === 'fund' ? 6 : 7;
      const multi = await measureRaw(label, `raw SQL, ${roundTrips} round trips, ${scenario}`, raw.pool, (client) =>
        move === 'fund' ? rawFund(client, raw.book, pick(), 1n) : rawTransferOut(client, raw.book, pick(), 1n),
      );
      const ceiling = await measureRaw(label, `one-round-trip SQL ${scenario}`, raw.pool, (client) =>
        move === 'fund' ? fundInOneRoundTrip(client, raw.book, pick(), 1n) : transferOutInOneRoundTrip(client, raw.book, pick(), 1n),
      );
      rows.push({ ...api, ceiling }, { ...multi, ceiling }, ceiling);
    }
  }
  return rows;
}
