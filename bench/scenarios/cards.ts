/**
 * Card scenarios: one card per money account (the server's own worker activates them), then
 * sandbox authorizations for 1 cent on one card (hot) and round-robin over the cards (spread), each
 * beside the same authorization by hand in one SQL transaction (`RAW_CARD_SQL`).
 */
import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import { v7 as uuidv7 } from 'uuid';
import { newId } from '../../packages/server/src/core/ids.js';
import { internalAccountView } from '../../packages/server/src/ledger/accounts.js';
import { inParallel, measure, type Row } from '../lib/load.js';
import { stopping } from '../lib/interruption.js';
import { cardAuthorizationInOneRoundTrip } from '../lib/one-round-trip.js';
import { envelope, measureRaw, RAW_COMMON_SQL, type AccountRow, type RawBook, type RawClient, type RawTarget } from '../lib/raw.js';
import { call, type Server } from '../lib/server.js';
import { API, MONEY_SECONDS, progress } from '../lib/settings.js';
import type { MoneyAccount } from '../lib/setup.js';

/**
 * Raw card authorization, as `cardTransactions.authorize` does it for an approved authorization in
 * the card's currency: read the card (state, funding sources, cardholder), hold the amount on its
 * funding source with one conditional UPDATE (the ledger's placeHold), insert the hold, the
 * card transaction with its aggregates, its index row in `transactions` (type CARD), the two card
 * events (the authorization and its pull), read the cardholder's platform id, and insert the two
 * events (CARD_TRANSACTION.AUTHORIZED, INTERNAL_ACCOUNT.BALANCE_UPDATED). 10 round trips with BEGIN
 * and COMMIT.
 */
const RAW_CARD_SQL = {
  card: `SELECT id, state, funding_sources, cardholder_id, currency FROM cards WHERE platform_id = $1 AND id = $2`,
  hold: `UPDATE ledger_accounts SET held_minor = held_minor + $1, updated_at = $2
    WHERE id = $3 AND platform_id = $4 AND status = 'ACTIVE' AND (may_go_negative OR total_minor - held_minor - $1 >= 0) RETURNING *`,
  holdRow: `INSERT INTO ledger_holds (id, platform_id, account_id, amount_minor, status, reason, created_at, updated_at) VALUES ($1, $2, $3, $4, 'ACTIVE', $5, $6, $6)`,
  cardTransaction: `INSERT INTO card_transactions (id, platform_id, card_id, customer_id, account_id, kind, direction, status, currency, issuer_transaction_token, merchant, hold_id,
      authorized_minor, pull_count, pull_total_minor, authorized_at, last_event_at, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, 'AUTHORIZATION', 'DEBIT', 'AUTHORIZED', $6, $7, $8, $9, $10, 1, $10, $11, $11, $11, $11) RETURNING *`,
  cardEvents: `INSERT INTO card_events (id, platform_id, card_transaction_id, type, amount_minor, status, details, created_at)
    VALUES ($1, $2, $3, 'AUTHORIZATION', $4, 'APPROVED', '{}', $5), ($6, $2, $3, 'PULL', $4, 'CONFIRMED', '{}', $5)`,
  customer: `SELECT platform_customer_id FROM customers WHERE id = $1`,
  insertCard: `INSERT INTO cards (id, platform_id, cardholder_id, platform_card_id, state, brand, form, currency, funding_sources, last4, exp_month, exp_year, pan_sealed, cvv_sealed,
      processor_ref, issuer_ref, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'ACTIVE', 'VISA', 'VIRTUAL', 'USD', $5, '4242', 12, 2030, 'v2.bench.sealed', 'v2.bench.sealed', 'bench', 'bench', $6, $6)`,
};

async function rawCardAuthorization(client: RawClient, book: RawBook, cardId: string, amount: bigint): Promise<void> {
  const at = new Date();
  await client.query('BEGIN', []);
  const card = (await client.query(RAW_CARD_SQL.card, [book.platformId, cardId])).rows[0] as { state: string; funding_sources: string[]; cardholder_id: string; currency: string } | undefined;
  if (!card || card.state !== 'ACTIVE') throw new Error(`raw card authorization: card ${cardId} is not ACTIVE`);
  const source = card.funding_sources[0]!;
  const held = (await client.query(RAW_CARD_SQL.hold, [amount, at, source, book.platformId])).rows[0] as AccountRow | undefined;
  if (!held) throw new Error(`raw card authorization: ${source} could not hold ${amount}`);
  const id = newId('CardTransaction');
  const holdId = newId('Hold');
  await client.query(RAW_CARD_SQL.holdRow, [holdId, book.platformId, source, amount, `CARD_AUTHORIZATION ${id}`, at]);
  const row = (await client.query(RAW_CARD_SQL.cardTransaction, [id, book.platformId, cardId, card.cardholder_id, source, card.currency, randomBytes(16).toString('hex'), JSON.stringify({ descriptor: 'BENCH MERCHANT', mcc: '5814', country: 'US' }), holdId, amount, at])).rows[0]!;
  await client.query(RAW_COMMON_SQL.transaction, [id, book.platformId, card.cardholder_id, 'CARD', 'DEBIT', 'AUTHORIZED', source, null, amount, card.currency, null, null, null, null, null, null, null, null, at, 'CARD']);
  await client.query(RAW_CARD_SQL.cardEvents, [uuidv7(), book.platformId, id, amount, at, uuidv7()]);
  const customer = (await client.query(RAW_CARD_SQL.customer, [card.cardholder_id])).rows[0] as { platform_customer_id: string };
  const authorized = envelope('CARD_TRANSACTION.AUTHORIZED', { type: 'CARD', ...row, platformCustomerId: customer.platform_customer_id }, at);
  const balance = envelope('INTERNAL_ACCOUNT.BALANCE_UPDATED', internalAccountView(held), at);
  await client.query(RAW_COMMON_SQL.events, [authorized.id, book.platformId, 'CARD_TRANSACTION.AUTHORIZED', authorized.json, at, balance.id, 'INTERNAL_ACCOUNT.BALANCE_UPDATED', balance.json]);
  await client.query('COMMIT', []);
}

/**
 * Card authorizations: one card per account (the server's own worker activates them), then
 * `POST /sandbox/cards/{id}/simulate/authorization` for 1 cent, on one card (hot) and round-robin
 * over every card (spread), each beside the same authorization by hand (RAW_CARD_SQL) on cards
 * inserted ACTIVE into the raw database.
 */
export async function benchCards(label: string, server: Server, accounts: MoneyAccount[], raw: RawTarget): Promise<Row[]> {
  progress(`[${label}] card setup: a card on each of the ${accounts.length} accounts, activated by the server's worker`);
  const tag = randomBytes(4).toString('hex');
  const cards = await inParallel(8, accounts, async (account, i) =>
    (await call<{ id: string }>(server, label, { method: 'POST', path: '/cards', body: { cardholderId: account.customerId, form: 'VIRTUAL', fundingSources: [account.accountId], platformCardId: `bench-${tag}-${i}-x` }, expect: 201 })).id,
  );
  for (let i = 0; i < 600 && !stopping; i++) {
    const processing = (await call<{ totalCount: number }>(server, label, { method: 'GET', path: '/cards?state=PROCESSING&limit=1', expect: 200 })).totalCount;
    if (processing === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rawCards: string[] = [];
  const client = await raw.pool.connect();
  try {
    for (const [i, account] of raw.book.accounts.entries()) {
      const id = newId('Card');
      await client.query(RAW_CARD_SQL.insertCard, [id, raw.book.platformId, account.customerId, `raw-bench-${tag}-${i}`, JSON.stringify([account.accountId]), new Date()]);
      rawCards.push(id);
    }
  } finally {
    client.release();
  }
  const rows: Row[] = [];
  for (const spread of [false, true]) {
    const scenario = `card authorization (${spread ? `spread over ${cards.length}` : 'hot'})`;
    let sequence = 0;
    const options: autocannon.Options = {
      url: server.base,
      requests: [
        {
          method: 'POST',
          headers: { authorization: server.authorization, 'content-type': 'application/json' },
          setupRequest: (request) => {
            const cardId = spread ? cards[sequence++ % cards.length]! : cards[0]!;
            return { ...request, path: `${API}/sandbox/cards/${cardId}/simulate/authorization`, body: JSON.stringify({ amount: 1, currency: { code: 'USD' }, merchant: { descriptor: 'BENCH MERCHANT', mcc: '5814', country: 'US' } }) };
          },
        },
      ],
    };
    const api = await measure(label, scenario, MONEY_SECONDS, options);
    let rawSequence = 0;
    const multi = await measureRaw(label, `raw SQL, 10 round trips, ${scenario}`, raw.pool, (c) => rawCardAuthorization(c, raw.book, spread ? rawCards[rawSequence++ % rawCards.length]! : rawCards[0]!, 1n));
    const ceiling = await measureRaw(label, `one-round-trip SQL ${scenario}`, raw.pool, (c) => cardAuthorizationInOneRoundTrip(c, raw.book, spread ? rawCards[rawSequence++ % rawCards.length]! : rawCards[0]!, 1n));
    rows.push({ ...api, ceiling }, { ...multi, ceiling }, ceiling);
  }
  return rows;
}
