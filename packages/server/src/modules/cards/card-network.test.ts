import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { Card, CardTransaction } from '../../../../../test/wire-types.js';
import { isError, type ErrorSpec } from '../../core/errors.js';
import type { InternalAccountId } from '../../core/ids.js';
import type { CardTransactionView } from './view.js';
import type { CardNetworkAdapter, CardNetworkEntry } from '../../providers/card-network.js';
import { cardNotFound, cardTransactionNotFound, cardTransactionNotOpen } from './errors.js';
import { cardTransactionsModule } from './index.js';

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;

beforeAll(async () => {
  t = await createTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());
afterEach(() => vi.restoreAllMocks());

/** A processor adapter as an operator would write one, minus the processor's wire protocol: it only keeps the entry it is connected to. */
class TestProcessor implements CardNetworkAdapter {
  readonly name = 'test-processor';
  private connected: CardNetworkEntry<CardTransactionView> | undefined;
  connect(entry: CardNetworkEntry): void {
    // The cards module connects the entry it renders its own views with.
    this.connected = entry as CardNetworkEntry<CardTransactionView>;
  }
  get entry(): CardNetworkEntry<CardTransactionView> {
    if (!this.connected) throw new Error('the card transactions module did not connect the issuer’s network adapter');
    return this.connected;
  }
}

/** The card transactions module set up as production sets it up, with an issuer that has a network adapter. */
function withProcessor(): TestProcessor {
  const processor = new TestProcessor();
  const { providers } = t.container;
  cardTransactionsModule.createService({ ...t.container, settings: undefined, providers: { ...providers, cardIssuer: { ...providers.cardIssuer, network: processor } } });
  return processor;
}

async function activeCard(fund: number): Promise<{ card: Card; accountId: string }> {
  const { customerId, accountId } = await f.customerWithAccount('USD', fund, 'Nico Network');
  const created = await t.api<Card>(p, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
  expect(created.status, created.text).toBe(201);
  await t.container.jobs.runDue();
  return { card: (await t.api<Card>(p, 'GET', `/cards/${created.body.id}`)).body, accountId };
}

async function books(accountId: string): Promise<{ total: bigint; held: bigint }> {
  const row = await t.database.db.selectFrom('ledger_accounts').select(['total_minor', 'held_minor']).where('id', '=', accountId as InternalAccountId).executeTakeFirstOrThrow();
  return { total: row.total_minor, held: row.held_minor };
}

/** Whether a message was refused with the module's error `spec`. */
async function refusedWith(message: Promise<unknown>, spec: ErrorSpec): Promise<boolean> {
  try {
    await message;
    return false;
  } catch (error) {
    return isError(error, spec);
  }
}

const shop = { descriptor: 'CORNER SHOP OAKLAND', mcc: '5411', country: 'US' };

describe('the card network inbound port, driven by a processor adapter (no sandbox routes)', () => {
  it('authorizes by the processor’s card reference, clears and returns by the issuer transaction token, each committed with its events', async () => {
    const processor = withProcessor();
    const { card, accountId } = await activeCard(10_000);
    const ref = { processorRef: card.processorRef };

    const authorized = await processor.entry.authorize(ref, { kind: 'AUTHORIZATION', amount: 2_500n, currency: 'USD', merchant: shop });
    if (!authorized.approved) throw new Error(`declined: ${authorized.declineReason}`);
    const token = authorized.transaction.issuerTransactionToken;
    expect(authorized.transaction).toMatchObject({ cardId: card.id, status: 'AUTHORIZED', merchant: shop, pullSummary: { count: 1, pendingCount: 0 } });
    expect(await books(accountId)).toEqual({ total: 10_000n, held: 2_500n });

    const cleared = await processor.entry.clear(ref, { transaction: { issuerTransactionToken: token }, amount: 2_000n });
    expect(cleared).toMatchObject({ status: 'PARTIALLY_SETTLED', settlementSummary: { count: 1, totalAmount: 2_000n } });
    const settled = await processor.entry.clear(ref, { transaction: { issuerTransactionToken: token }, amount: 500n });
    expect(settled.status).toBe('SETTLED');
    expect(await books(accountId)).toEqual({ total: 7_500n, held: 0n });

    const returned = await processor.entry.refund(ref, { transaction: { issuerTransactionToken: token }, amount: 2_500n });
    expect(returned).toMatchObject({ status: 'REFUNDED', refundSummary: { count: 1, totalAmount: 2_500n } });
    const reversed = await processor.entry.reverseReturn(ref, { transaction: { cardTransactionId: returned.id } });
    expect(reversed.status).toBe('SETTLED');
    expect(await books(accountId)).toEqual({ total: 7_500n, held: 0n });

    // Each message is its own committed unit of work: the platform's webhooks are in the outbox already.
    expect(await f.eventTypes(authorized.transaction.id)).toEqual([
      'CARD_TRANSACTION.AUTHORIZED',
      'CARD_TRANSACTION.PARTIALLY_SETTLED',
      'CARD_TRANSACTION.SETTLED',
      'CARD_TRANSACTION.REFUNDED',
      'CARD_TRANSACTION.SETTLED',
    ]);
    const seen = await t.api<CardTransaction>(p, 'GET', `/transactions/${authorized.transaction.id}`);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body).toMatchObject({ status: 'SETTLED', issuerTransactionToken: token });
  });

  it('answers declines synchronously with the issuer’s token, and re-sizes by advice', async () => {
    const processor = withProcessor();
    const { card, accountId } = await activeCard(1_000);
    const ref = { processorRef: card.processorRef };

    const tooMuch = await processor.entry.authorize(ref, { kind: 'AUTHORIZATION', amount: 5_000n, currency: 'USD', merchant: shop });
    expect(tooMuch).toMatchObject({ approved: false, declineReason: 'INSUFFICIENT_FUNDS' });
    expect(tooMuch.approved ? '' : tooMuch.issuerTransactionToken).toMatch(/^[0-9a-f-]{36}$/);
    const byNetwork = await processor.entry.authorize(ref, { kind: 'AUTHORIZATION', amount: 100n, currency: 'USD', merchant: shop, declinedBy: 'CARD_PAUSED' });
    expect(byNetwork).toMatchObject({ approved: false, declineReason: 'CARD_PAUSED' });
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 0n });

    const approved = await processor.entry.authorize(ref, { kind: 'AUTHORIZATION', amount: 400n, currency: 'USD', merchant: shop });
    if (!approved.approved) throw new Error('declined');
    const transaction = { issuerTransactionToken: approved.transaction.issuerTransactionToken };
    expect(await processor.entry.advise(ref, { transaction, amount: 900n })).toMatchObject({ approved: true, transaction: { authorizedAmount: { amount: 900n } } });
    expect(await processor.entry.advise(ref, { transaction, amount: 1_500n })).toMatchObject({ approved: false, declineReason: 'INSUFFICIENT_FUNDS' });
    expect(await books(accountId)).toEqual({ total: 1_000n, held: 900n });
  });

  it('refuses what it cannot place: an unknown card, a transaction of another card, a clearing of a settled one', async () => {
    const processor = withProcessor();
    const first = await activeCard(1_000);
    const second = await activeCard(1_000);
    const card = (which: { card: Card }) => ({ processorRef: which.card.processorRef });

    expect(await refusedWith(processor.entry.authorize({ processorRef: 'no-such-card' }, { kind: 'AUTHORIZATION', amount: 1n, currency: 'USD', merchant: shop }), cardNotFound)).toBe(true);
    const approved = await processor.entry.authorize(card(first), { kind: 'FINANCIAL_AUTHORIZATION', amount: 300n, currency: 'USD', merchant: shop });
    if (!approved.approved) throw new Error('declined');
    const transaction = { issuerTransactionToken: approved.transaction.issuerTransactionToken };
    expect(await refusedWith(processor.entry.clear(card(second), { transaction, amount: 300n }), cardTransactionNotFound)).toBe(true);
    expect(await refusedWith(processor.entry.clear(card(first), { transaction, amount: 300n }), cardTransactionNotOpen)).toBe(true);
    expect(await books(first.accountId)).toEqual({ total: 700n, held: 0n });
  });
});

describe('the sandbox simulators', () => {
  it('reach the card transactions only through the same inbound port', async () => {
    const { card } = await activeCard(5_000);
    const network = t.container.cardTransactions.network;
    const authorize = vi.spyOn(network, 'authorize');
    const clear = vi.spyOn(network, 'clear');
    const simulated = await t.api<CardTransaction>(p, 'POST', `/sandbox/cards/${card.id}/simulate/authorization`, { amount: 1_200, currency: { code: 'USD' }, merchant: shop });
    expect(simulated.status, simulated.text).toBe(202);
    expect(authorize).toHaveBeenCalledWith(expect.anything(), { cardId: card.id }, { kind: 'AUTHORIZATION', amount: 1_200n, currency: 'USD', merchant: shop, pull: 'CONFIRMED', declinedBy: undefined });
    const cleared = await t.api<CardTransaction>(p, 'POST', `/sandbox/cards/${card.id}/simulate/clearing`, { cardTransactionId: simulated.body.id, amount: 1_200 });
    expect(cleared.status, cleared.text).toBe(202);
    expect(clear).toHaveBeenCalledWith(expect.anything(), { cardId: card.id }, { transaction: { cardTransactionId: simulated.body.id }, amount: 1_200n });

    // With the port refusing everything, no simulator gets through another way.
    authorize.mockRejectedValue(cardNotFound());
    const blocked = await t.api(p, 'POST', `/sandbox/cards/${card.id}/simulate/financial_authorization`, { amount: 100, currency: { code: 'USD' }, merchant: shop });
    expect(blocked.status).toBe(404);
  });
});
