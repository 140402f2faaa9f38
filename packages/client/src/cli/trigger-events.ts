import type { EventType } from '../event-stream.js';
import { encryptOtpCode } from '../wallet/crypto.js';
import { generateKeyPair } from '../wallet/keys.js';
import { isMonetaApiError } from '../errors.js';
import { CliError } from './errors.js';
import type { Fixtures, KycDecision } from './trigger-fixtures.js';

/**
 * `moneta trigger <EVENT_TYPE>`: for every event type the server sends, a recipe that creates in the
 * sandbox what the event needs, through the public API, and then causes it. The table is typed
 * against the event types of `GET /webhooks/events` in the generated schema: a type the server
 * starts sending without a recipe here fails `npm run typecheck`.
 */

export type { EventType };

/** The options a recipe honours (`--customer`, `--account`, `--amount`); others are refused as unknown. */
export type RecipeOption = 'customer' | 'account' | 'amount';

export interface Recipe {
  /** What it creates and does, for `--list`. */
  creates: string;
  options?: readonly RecipeOption[];
  /** Causes the event; answers the id its `data.id` carries when known (to tell it from others of the type). */
  run?: (f: Fixtures) => Promise<string | undefined>;
  /** Why it cannot be caused (nothing on the server sends it yet). */
  unavailable?: string;
}

const CUSTOMER: readonly RecipeOption[] = ['customer'];
const MONEY: readonly RecipeOption[] = ['customer', 'account', 'amount'];

const kyc = (status: KycDecision): Recipe => ({
  creates: `an individual customer with no KYC decision yet (or --customer), then the sandbox KYC decision ${status}`,
  options: CUSTOMER,
  async run(f) {
    const customerId = f.options.customer ?? (await f.newPerson('Trigger Person 003'));
    await f.decide(customerId, status);
    return customerId;
  },
});

/** A bulk customer upload (the JSON form, base64) of one row; the job's end is the event. */
const bulkUpload = (what: string, row: (tag: string) => string): Recipe => ({
  creates: `a bulk customer upload (POST /customers/bulk/csv) of ${what}`,
  async run(f) {
    const tag = `trigger-bulk-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const csv = `umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,email\n${row(tag)}\n`;
    const { jobId } = await f.post<{ jobId: string }>('/customers/bulk/csv', { file: Buffer.from(csv, 'utf8').toString('base64'), fileName: `${tag}.csv` });
    f.note(`uploaded bulk job ${jobId}`);
    return jobId;
  },
});

const kyb = (status: KycDecision): Recipe => ({
  creates: `a business customer (or --customer), then the sandbox KYB decision ${status}`,
  options: CUSTOMER,
  async run(f) {
    const customerId = await f.business();
    await f.decide(customerId, status);
    return customerId;
  },
});

/** A verification of a person whose name (last three characters) decides it. */
const verification = (creates: string, name: string, then?: (f: Fixtures) => Promise<void>): Recipe => ({
  creates,
  async run(f) {
    const customerId = await f.verifiablePerson(name);
    const submitted = await f.post<{ id: string; verificationStatus: string }>('/verifications', { customerId });
    f.made(`verification (${submitted.verificationStatus})`, submitted.id);
    await then?.(f);
    return submitted.id;
  },
});

/** A transfer out of the funded account to a bank account whose number ends in `suffix`. */
const payout = (creates: string, suffix: string, then?: (f: Fixtures, transactionId: string) => Promise<void>): Recipe => ({
  creates,
  options: MONEY,
  async run(f) {
    const { customerId, accountId } = await f.funded();
    const transactionId = await f.transferOut(accountId, await f.bankAccount(customerId, suffix));
    await then?.(f, transactionId);
    return transactionId;
  },
});

const cardTransaction = (creates: string, after: (f: Fixtures, card: { cardId: string }, transactionId: string) => Promise<void>, descriptor?: string): Recipe => ({
  creates,
  options: MONEY,
  async run(f) {
    const card = await f.card();
    const transactionId = await f.authorize(card.cardId, descriptor);
    await after(f, card, transactionId);
    return transactionId;
  },
});

/** Five wrong OTP codes in a row lock a wallet credential (AUTH_METHOD.LOCKED). */
async function lockCredential(f: Fixtures): Promise<string> {
  const { credentialId } = await f.wallet();
  const { publicKey: bundleSigningKey } = await f.get<{ publicKey: string }>('/auth/bundle-signing-key');
  const challenged = await f.post<{ otpEncryptionTargetBundle: string }>(`/auth/credentials/${credentialId}/challenge`, {});
  for (let attempt = 1; attempt <= 5; attempt++) {
    const encryptedOtpBundle = await encryptOtpCode({ code: '999999', targetBundle: challenged.otpEncryptionTargetBundle, publicKey: generateKeyPair().publicKey, bundleSigningKey });
    try {
      await f.signed('POST', `/auth/credentials/${credentialId}/verify`, { type: 'EMAIL_OTP', encryptedOtpBundle });
      throw new CliError(`a wrong OTP code was accepted by ${credentialId}`);
    } catch (error) {
      if (!isMonetaApiError(error)) throw error;
      if (error.status === 429) break;
    }
  }
  f.note(`sent 5 wrong OTP codes to ${credentialId}`);
  return credentialId;
}

/** A card funded by the wallet, with an ACTIVE delegated key (three signed legs). */
async function delegatedKey(f: Fixtures): Promise<string> {
  const { customerId, walletId } = await f.wallet();
  const card = await f.post<{ id: string }>('/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [walletId] });
  const cardId = f.made('card', card.id);
  const key = await f.signed<{ id: string; status: string }>('POST', '/auth/delegated-keys', { cardId, internalAccountId: walletId, nickname: 'Trigger key' });
  return f.made(`delegated key (${key.body.status})`, key.body.id);
}

export const EVENT_RECIPES = {
  'CUSTOMER.KYC_APPROVED': kyc('APPROVED'),
  'CUSTOMER.KYC_REJECTED': kyc('REJECTED'),
  'CUSTOMER.KYC_HOLD': kyc('HOLD'),
  'CUSTOMER.KYC_PENDING': kyc('PENDING'),
  'CUSTOMER.KYB_APPROVED': kyb('APPROVED'),
  'CUSTOMER.KYB_REJECTED': kyb('REJECTED'),
  'CUSTOMER.KYB_HOLD': kyb('HOLD'),
  'CUSTOMER.KYB_PENDING': kyb('PENDING'),

  'VERIFICATION.RESOLVE_ERRORS': {
    creates: 'an individual customer without birth date, address or identity document (or --customer), then a verification',
    options: CUSTOMER,
    async run(f) {
      const customerId = f.options.customer ?? (await f.newPerson('Trigger Person 003'));
      const submitted = await f.post<{ id: string; verificationStatus: string }>('/verifications', { customerId });
      return f.made(`verification (${submitted.verificationStatus})`, submitted.id);
    },
  },
  'VERIFICATION.IN_PROGRESS': verification('a complete individual with no KYC decision yet and a passport, then a verification (it waits for a decision)', 'Trigger Review 003'),
  'VERIFICATION.PENDING_MANUAL_REVIEW': verification('a complete individual the sandbox sends to manual review (name ending 001) and a passport, then a verification', 'Trigger Review 001'),
  'VERIFICATION.APPROVED': verification('a complete APPROVED individual and a passport, then a verification', 'Trigger Approved'),
  'VERIFICATION.REJECTED': verification('a complete individual the sandbox rejects (name ending 002) and a passport, a verification, then the sandbox clock 11 s on (the review decides)', 'Trigger Review 002', (f) =>
    f.advanceClock(11, 'the sandbox review decides after 10 s'),
  ),

  'INTERNAL_ACCOUNT.BALANCE_UPDATED': {
    creates: 'an APPROVED customer (or --customer) and its USD account (or --account), funded with --amount',
    options: MONEY,
    async run(f) {
      const accountId = f.options.account ?? f.made('internal account', await f.usdAccount(await f.person()));
      await f.fund(accountId, f.amount);
      return accountId;
    },
  },
  'INTERNAL_ACCOUNT.FUNDING_INSTRUCTIONS_UPDATED': {
    creates: 'nothing: no server flow changes funding instructions yet',
    unavailable: "nothing on the server changes an account's funding instructions after it opens, so this event is never sent yet (docs/decisions.md, Webhook types)",
  },

  'INCOMING_PAYMENT.COMPLETED': {
    creates: 'an APPROVED customer (or --customer) and its USD account (or --account), then a sandbox bank transfer of --amount quoting its funding reference',
    options: MONEY,
    async run(f) {
      const accountId = f.options.account ?? f.made('internal account', await f.usdAccount(await f.person()));
      return f.bankTransfer(accountId, f.amount);
    },
  },
  'INCOMING_PAYMENT.PENDING': {
    creates: 'an APPROVED customer and its USD account (or --account), then a bank transfer the sandbox holds for compliance review (amount ending 021)',
    options: MONEY,
    async run(f) {
      const accountId = f.options.account ?? f.made('internal account', await f.usdAccount(await f.person()));
      return f.bankTransfer(accountId, Math.floor(Math.max(f.amount, 1000) / 1000) * 1000 + 21);
    },
  },
  'INCOMING_PAYMENT.FAILED': {
    creates: 'a funded APPROVED customer (or --account), a bank account the sandbox rejects (..004), then a pull (transfer-in) from it',
    options: MONEY,
    async run(f) {
      const { customerId, accountId } = await f.funded();
      return f.transferIn(await f.bankAccount(customerId, '004'), accountId);
    },
  },
  'INCOMING_PAYMENT.REFUND_COMPLETED': {
    creates: 'nothing: no server flow refunds an incoming payment yet',
    unavailable: 'no server flow refunds an incoming payment yet (incoming payments complete, or fail with nothing to refund), so this event is never sent',
  },

  'OUTGOING_PAYMENT.PROCESSING': payout('a funded APPROVED customer (or --account) and a US bank account, then a transfer-out of --amount', '678'),
  'OUTGOING_PAYMENT.COMPLETED': payout('a funded APPROVED customer (or --account) and a US bank account, then a transfer-out of --amount (settles about 2 s later)', '678'),
  'OUTGOING_PAYMENT.FAILED': payout('a funded APPROVED customer (or --account) and a bank account whose counterparty rejects payments (..004), then a transfer-out', '004'),
  'OUTGOING_PAYMENT.PENDING': payout('a funded APPROVED customer (or --account) and a bank account under compliance review (..021), then a transfer-out', '021'),
  'OUTGOING_PAYMENT.REFUND_COMPLETED': payout('a funded APPROVED customer (or --account) and a US bank account, a transfer-out, then its cancellation (the money comes back)', '678', async (f, transactionId) => {
    await f.post(`/transactions/${transactionId}/cancel`, { reason: 'moneta trigger' });
    f.note(`cancelled ${transactionId}`);
  }),
  'OUTGOING_PAYMENT.REFUND_FAILED': {
    creates: 'a funded APPROVED customer (or --account), a CLABE account whose payout and refund both fail (..007), then a USD→MXN quote executed at once',
    options: MONEY,
    async run(f) {
      const { customerId, accountId } = await f.funded();
      return f.quote(accountId, await f.clabeAccount(customerId, '007'), true);
    },
  },
  'OUTGOING_PAYMENT.EXPIRED': {
    creates: 'a funded APPROVED customer (or --account), a CLABE account and a USD→MXN quote left unexecuted, then the sandbox clock 5 min on',
    options: MONEY,
    async run(f) {
      const { customerId, accountId } = await f.funded();
      const transactionId = await f.quote(accountId, await f.clabeAccount(customerId, '009'), false);
      await f.advanceClock(301, 'a quote expires after 5 minutes');
      return transactionId;
    },
  },
  'OUTGOING_PAYMENT.PENDING_AUTHORIZATION': {
    creates: 'an APPROVED customer in the EEA (strong customer authentication applies), its funded EUR account and a US bank account, then a quote executed at once (held for SCA)',
    options: ['amount'],
    async run(f) {
      const customerId = await f.newPerson('Trigger Kunde', { region: 'DE', currencies: ['EUR', 'USD'], phoneNumber: '+4915112345678', address: { line1: 'Torstr. 1', city: 'Berlin', postalCode: '10119', country: 'DE' } });
      const list = await f.get<{ data: { id: string }[] }>(`/internal-account?customerId=${encodeURIComponent(customerId)}&currency=EUR`);
      const accountId = f.made('internal account', list.data[0]!.id);
      await f.fund(accountId, Math.max(100_000, 3 * f.amount));
      return f.quote(accountId, await f.bankAccount(customerId, '678'), true);
    },
  },

  'CARD.STATE_CHANGE': {
    creates: 'a funded APPROVED customer (or --account) and a virtual card on its account (it turns ACTIVE), then the card frozen',
    options: ['customer', 'account'],
    async run(f) {
      const { cardId } = await f.card();
      await f.call('PATCH', `/cards/${cardId}`, { state: 'FROZEN' });
      f.note(`froze ${cardId}`);
      return cardId;
    },
  },
  'CARD.FUNDING_SOURCE_CHANGE': {
    creates: 'a funded APPROVED customer (or --account), a virtual card, then its funding sources replaced',
    options: ['customer', 'account'],
    async run(f) {
      const { cardId, accountId } = await f.card();
      await f.call('PATCH', `/cards/${cardId}`, { fundingSources: [accountId] });
      f.note(`replaced the funding sources of ${cardId}`);
      return cardId;
    },
  },
  'CARD_TRANSACTION.AUTHORIZED': cardTransaction('a funded APPROVED customer (or --account), a virtual card, then an authorization of --amount', async () => undefined),
  'CARD_TRANSACTION.PARTIALLY_SETTLED': cardTransaction('a funded card, an authorization of --amount, then a clearing of half of it', async (f, { cardId }, cardTransactionId) =>
    f.simulate(cardId, 'clearing', { cardTransactionId, amount: Math.max(1, Math.floor(f.amount / 2)) }),
  ),
  'CARD_TRANSACTION.SETTLED': cardTransaction('a funded card, an authorization of --amount, then its clearing in full', async (f, { cardId }, cardTransactionId) =>
    f.simulate(cardId, 'clearing', { cardTransactionId, amount: f.amount }),
  ),
  'CARD_TRANSACTION.REFUNDED': cardTransaction('a funded card, an authorization of --amount, its clearing, then a return of all of it', async (f, { cardId }, cardTransactionId) => {
    await f.simulate(cardId, 'clearing', { cardTransactionId, amount: f.amount });
    await f.simulate(cardId, 'return', { cardTransactionId, amount: f.amount });
  }),
  'CARD_TRANSACTION.EXCEPTION': cardTransaction(
    'a funded card, then an authorization at a merchant whose pull the sandbox reports failed (descriptor ending 006)',
    async () => undefined,
    'MONETA TRIGGER 006',
  ),

  'AUTH_METHOD.LOCKED': {
    creates: 'embedded wallets on, a customer with a wallet, then five wrong OTP codes to its credential',
    run: lockCredential,
  },
  'AUTH_METHOD.UNLOCKED': {
    creates: 'embedded wallets on, a customer with a wallet, its credential locked by five wrong OTP codes, then unlocked',
    async run(f) {
      const credentialId = await lockCredential(f);
      await f.post(`/auth/credentials/${credentialId}/unlock`);
      f.note(`unlocked ${credentialId}`);
      return credentialId;
    },
  },
  'DELEGATED_KEY.REVOKED': {
    creates: 'embedded wallets on, a customer with a wallet, a card on it and a delegated key (signed with the sandbox stamp), then the key revoked',
    async run(f) {
      const keyId = await delegatedKey(f);
      await f.signed('DELETE', `/auth/delegated-keys/${keyId}`);
      f.note(`revoked ${keyId}`);
      return keyId;
    },
  },

  'BULK_UPLOAD.COMPLETED': bulkUpload('one valid individual row', (tag) => `$${tag}@example.com,${tag},INDIVIDUAL,Trigger Bulk Person,1990-01-15,1 Main St,Seattle,WA,98101,US,${tag}@example.com`),
  'BULK_UPLOAD.FAILED': bulkUpload('one row no customer can be made of (a birth date of month 13)', (tag) => `$${tag}@example.com,${tag},INDIVIDUAL,Trigger Bulk Person,1990-13-45,1 Main St,Seattle,WA,98101,US,${tag}@example.com`),
  'INVITATION.CLAIMED': {
    creates: 'a customer (or --customer) inviting by UMA invitation, then the invitation claimed by an address at another VASP',
    options: CUSTOMER,
    async run(f) {
      const customerId = f.options.customer ?? (await f.newPerson('Trigger Inviter'));
      const customer = (await f.call<{ umaAddress: string }>('GET', `/customers/${customerId}`)).body;
      const invitation = await f.post<{ code: string }>('/invitations', { inviterUma: customer.umaAddress });
      f.note(`created invitation ${invitation.code}`);
      await f.post(`/invitations/${invitation.code}/claim`, { inviteeUma: `$friend.${Date.now().toString(36)}@vasp.example` });
      f.note(`claimed invitation ${invitation.code}`);
      // The webhook's data is the invitation, which has a code and no id.
      return undefined;
    },
  },
  'AGENT.REVOKED': {
    creates: 'an APPROVED customer (or --customer) and an agent for it, then the agent deleted',
    options: CUSTOMER,
    async run(f) {
      const { agentId } = await f.agent(await f.person(), 1_000_000);
      await f.call('DELETE', `/agents/${agentId}`);
      f.note(`deleted ${agentId}`);
      return agentId;
    },
  },
  'AGENT_ACTION.PENDING_APPROVAL': {
    creates: 'a funded APPROVED customer (or --account), a US bank account, an agent asking approval above half of --amount, then the agent paying --amount out',
    options: MONEY,
    async run(f) {
      const { customerId, accountId } = await f.funded();
      const bank = await f.bankAccount(customerId, '678');
      const { token } = await f.agent(customerId, Math.max(1, Math.floor(f.amount / 2)));
      const action = await f.post<{ id: string; status: string }>('/agents/me/transfer-out', { source: { accountId }, destination: { accountId: bank }, amount: f.amount }, { authorization: `Bearer ${token}` });
      return f.made(`agent action (${action.status})`, action.id);
    },
  },

  'EXTERNAL_ACCOUNT.STATUS_UPDATED': {
    creates: "an APPROVED customer (or --customer), a self-custody USDC wallet registered as its own (PENDING_OWNERSHIP_VERIFICATION), then a liveness check passed",
    options: CUSTOMER,
    async run(f) {
      const customerId = await f.person();
      const account = await f.post<{ id: string; status: string }>('/customers/external-accounts', {
        customerId,
        currency: 'USDC',
        ownershipType: 'FIRST_PARTY',
        accountInfo: { accountType: 'ETHEREUM_WALLET', address: '0x52908400098527886e0f7030069857d2e4169ee7', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Trigger Person', countryOfResidence: 'US' } },
      });
      const accountId = f.made(`wallet account (${account.status})`, account.id);
      await f.post(`/customers/external-accounts/${accountId}/challenge`, { method: 'LIVENESS' });
      await f.post(`/sandbox/external-accounts/${accountId}/liveness`, { result: 'PASSED' });
      f.note(`passed the liveness check of ${accountId}`);
      return accountId;
    },
  },

  TEST: {
    creates: 'nothing: sends a TEST event to the webhook endpoint now (POST /sandbox/webhooks/test; needs webhookEndpoint set)',
    async run(f) {
      await f.post('/sandbox/webhooks/test');
      return undefined;
    },
  },
} satisfies Record<EventType, Recipe>;

export const EVENT_TYPES = Object.keys(EVENT_RECIPES) as EventType[];

/** The event type a name means, case-insensitively (`card_transaction.authorized`), or undefined. */
export function eventTypeOf(name: string): EventType | undefined {
  const upper = name.toUpperCase();
  return EVENT_TYPES.find((type) => type === upper);
}
