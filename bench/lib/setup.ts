/**
 * What the money, quote and card scenarios run on: USD customers made through the API, each with a
 * funded internal account, a US bank account and an MXN CLABE account the sandbox settles; and the
 * autocannon requests that pick among them (hot or spread).
 */
import { randomBytes } from 'node:crypto';
import type autocannon from 'autocannon';
import type { CustomerId, ExternalAccountId, InternalAccountId } from '../../packages/server/src/core/ids.js';
import { clabeCheckDigit } from '../../packages/server/src/lib/account-numbers/clabe.js';
import { PAYOUT_SETTLEMENT_DELAY_MS, sandboxPayoutOutcome } from '../../packages/server/src/sandbox/payout-outcomes.js';
import { sandboxTransferOutcome } from '../../packages/server/src/sandbox/transfer-outcomes.js';
import { inParallel } from './load.js';
import { checkInterrupted } from './interruption.js';
import { call, type Server } from './server.js';
import { API, PREFUND_MINOR, progress, QUOTE_SENDING_MINOR, SPREAD_ACCOUNTS } from './settings.js';

/** A USD customer with its internal account, and a registered US bank account and MXN CLABE account that the sandbox rails settle. */
export interface MoneyAccount {
  customerId: CustomerId;
  platformCustomerId: string;
  accountId: InternalAccountId;
  externalAccountId: ExternalAccountId;
  clabeAccountId: ExternalAccountId;
}

/** An account number the sandbox settles successfully: never ending in 002/003/004/005. */
function benchAccountNumber(index: number): string {
  const accountNumber = `1000${String(index).padStart(6, '0')}1`;
  const outcome = sandboxTransferOutcome(accountNumber);
  if (outcome.kind !== 'settle' || !outcome.succeeds) throw new Error(`bench account number ${accountNumber} would not settle in the sandbox`);
  return accountNumber;
}

/** A valid CLABE whose payout the sandbox completes after the default delay: its last three digits are 21x, never 002 to 007. */
function benchClabe(index: number): string {
  const first17 = `032180${String(index).padStart(9, '0')}21`;
  const clabe = `${first17}${clabeCheckDigit(first17)}`;
  const outcome = sandboxPayoutOutcome(clabe);
  if (outcome.kind !== 'complete' || outcome.afterMs !== PAYOUT_SETTLEMENT_DELAY_MS) throw new Error(`bench CLABE ${clabe} would not complete in the sandbox`);
  return clabe;
}

const BENCH_BENEFICIARY = { beneficiaryType: 'INDIVIDUAL', fullName: 'Bench' };
const BENCH_MX_BENEFICIARY = {
  ...BENCH_BENEFICIARY,
  birthDate: '1988-03-04',
  nationality: 'MX',
  address: { line1: 'Av. Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' },
};

export function usAccountInfo(index: number) {
  return { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: benchAccountNumber(index), beneficiary: BENCH_BENEFICIARY };
}

export function clabeAccountInfo(index: number) {
  return { accountType: 'CLABE', clabeNumber: benchClabe(index), bankName: 'BBVA', beneficiary: BENCH_MX_BENEFICIARY };
}

export async function createMoneyAccounts(label: string, server: Server): Promise<MoneyAccount[]> {
  progress(`[${label}] money setup: ${SPREAD_ACCOUNTS} USD customers through the API, each with a US_ACCOUNT and an MXN CLABE external account, funded with ${PREFUND_MINOR} minor units`);
  const tag = randomBytes(4).toString('hex');
  const accounts = await inParallel(8, Array.from({ length: SPREAD_ACCOUNTS }, (_, i) => i), async (i) => {
    checkInterrupted();
    const platformCustomerId = `bench-money-${tag}-${i}`;
    const customer = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers',
      body: { customerType: 'INDIVIDUAL', platformCustomerId, fullName: 'Bench Money', email: 'money@example.com', currencies: ['USD'] },
      expect: 201,
    });
    const list = await call<{ data: { id: string; balance: { currency: { code: string } } }[] }>(server, label, {
      method: 'GET',
      path: `/internal-account?customerId=${encodeURIComponent(customer.id)}`,
      expect: 200,
    });
    const account = list.data.find((a) => a.balance.currency.code === 'USD');
    if (!account) throw new Error(`[${label}] customer ${customer.id} has no USD internal account`);
    const external = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers/external-accounts',
      body: { customerId: customer.id, currency: 'USD', accountInfo: usAccountInfo(i) },
      expect: 201,
    });
    const clabe = await call<{ id: string }>(server, label, {
      method: 'POST',
      path: '/customers/external-accounts',
      body: { customerId: customer.id, currency: 'MXN', accountInfo: clabeAccountInfo(i) },
      expect: 201,
    });
    await call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account.id}/fund`, body: { amount: Number(PREFUND_MINOR) }, expect: 200 });
    return {
      customerId: customer.id as CustomerId,
      platformCustomerId,
      accountId: account.id as InternalAccountId,
      externalAccountId: external.id as ExternalAccountId,
      clabeAccountId: clabe.id as ExternalAccountId,
    };
  });
  progress(`[${label}] money setup done`);
  return accounts;
}

/** The accounts in turn (spread), or always the first (hot). */
export function picker(accounts: MoneyAccount[], spread: boolean): () => MoneyAccount {
  let sequence = 0;
  return () => (spread ? accounts[sequence++ % accounts.length]! : accounts[0]!);
}

/** autocannon requests: all on accounts[0] (hot) or round-robin over every account (spread). */
export function moneyRequests(server: Server, spread: boolean, accounts: MoneyAccount[], build: (account: MoneyAccount) => { path: string; body: unknown }): autocannon.Options {
  const headers = { authorization: server.authorization, 'content-type': 'application/json' };
  const pick = picker(accounts, spread);
  return {
    url: server.base,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (request) => {
          const { path, body } = build(pick());
          return { ...request, path, body: JSON.stringify(body) };
        },
      },
    ],
  };
}

/** A quote from the account to its MXN CLABE account, locked on the sending side (executed at once when asked). */
export function quoteRequest(account: MoneyAccount, immediatelyExecute: boolean): { path: string; body: unknown } {
  return {
    path: `${API}/quotes`,
    body: {
      source: { sourceType: 'ACCOUNT', accountId: account.accountId },
      destination: { destinationType: 'ACCOUNT', accountId: account.clabeAccountId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: Number(QUOTE_SENDING_MINOR),
      ...(immediatelyExecute ? { immediatelyExecute: true } : {}),
    },
  };
}
