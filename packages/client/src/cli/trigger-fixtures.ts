import type { Api, HttpMethod } from './api.js';
import { CliError } from './errors.js';

/**
 * What `moneta trigger <EVENT_TYPE>` builds its events from: sandbox resources made through the
 * public API (customers, accounts and their funding, bank accounts, cards, wallets, agents), each
 * reported as it is created. Options reuse existing resources instead (`--customer`, `--account`).
 */

export interface TriggerOptions {
  /** An existing Customer:… to use instead of creating one (where the recipe needs a customer). */
  customer?: string;
  /** An existing InternalAccount:… (USD, of an APPROVED customer) to use instead of creating and funding one. */
  account?: string;
  /** The amount of the money movement, in the smallest unit (default 1000). */
  amount?: number;
}

export type KycDecision = 'APPROVED' | 'REJECTED' | 'HOLD' | 'PENDING';

export interface Created {
  label: string;
  id: string;
}

interface Answer<T> {
  status: number;
  body: T;
}

interface SignatureChallenge {
  payloadToSign?: string;
  requestId?: string;
}

/** The stand-in stamp the sandbox accepts for a wallet's signature (never in production). */
const SANDBOX_SIGNATURE = 'sandbox-valid-signature';

const DEFAULT_AMOUNT = 1000;

/** A valid CLABE (Mexican account number, check digit included) whose last three digits are `suffix` (00d). */
export function clabeEndingIn(suffix: string): string {
  if (!/^00\d$/.test(suffix)) throw new Error(`a CLABE suffix here is 00 and its check digit, got ${suffix}`);
  const weights = [3, 7, 1];
  const check = (digits: string) => (10 - ([...digits].reduce((sum, c, i) => sum + ((Number(c) * weights[i % 3]!) % 10), 0) % 10)) % 10;
  for (let d = 0; d < 10; d++) {
    const body = `03218000011835${d}00`;
    if (String(check(body)) === suffix[2]) return `${body}${suffix[2]}`;
  }
  throw new Error(`no CLABE ends in ${suffix}`);
}

export class Fixtures {
  readonly created: Created[] = [];
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(
    private readonly api: Api,
    readonly options: TriggerOptions,
    private readonly say: (line: string) => void,
  ) {}

  get amount(): number {
    return this.options.amount ?? DEFAULT_AMOUNT;
  }

  /** One API call; a non-2xx answer throws the API's error (printed as `CODE: message`). */
  async call<T = Record<string, unknown>>(method: HttpMethod, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>> {
    const answer = await this.api.call({ method, path, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
    return { status: answer.status, body: answer.json as T };
  }

  async post<T = Record<string, unknown>>(path: string, body: unknown = {}, headers?: Record<string, string>): Promise<T> {
    return (await this.call<T>('POST', path, body, headers)).body;
  }

  async get<T = Record<string, unknown>>(path: string): Promise<T> {
    return (await this.call<T>('GET', path)).body;
  }

  /** Records (and prints) a resource the recipe made. */
  made<T extends string>(label: string, id: T): T {
    this.created.push({ label, id });
    this.say(`created ${label.padEnd(18)} ${id}`);
    return id;
  }

  note(line: string): void {
    this.say(line);
  }

  /** Once per run: the same building block asked twice gives the same resource. */
  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    let value = this.memo.get(key) as Promise<T> | undefined;
    if (!value) {
      value = make();
      this.memo.set(key, value);
    }
    return value;
  }

  /**
   * A signed wallet action: the call, and while it answers 202 with something to sign, the same
   * call again with the sandbox's stand-in stamp (delegated keys take three legs).
   */
  async signed<T = Record<string, unknown>>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Answer<T>> {
    let answer = await this.call<T & SignatureChallenge>(method, path, body);
    for (let leg = 0; leg < 5 && answer.status === 202 && answer.body?.payloadToSign && answer.body.requestId; leg++) {
      answer = await this.call<T & SignatureChallenge>(method, path, body, { 'service-wallet-signature': SANDBOX_SIGNATURE, 'request-id': answer.body.requestId });
    }
    return answer;
  }

  async advanceClock(seconds: number, why: string): Promise<void> {
    await this.post('/sandbox/clock/advance', { seconds });
    this.note(`advanced the sandbox clock by ${seconds} s (${why})`);
  }

  /** Asks until `check` answers something (bounded). */
  async until<T>(what: string, check: () => Promise<T | undefined>, seconds = 30): Promise<T> {
    const deadline = Date.now() + seconds * 1000;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new CliError(`gave up waiting for ${what} after ${seconds} s`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  // Customers

  /**
   * A new individual customer, USD, in the US. The sandbox decides its KYC from the last three
   * characters of the name (`003`: no decision yet, `002` rejected, …; anything else APPROVED).
   */
  async newPerson(name: string, more: Record<string, unknown> = {}): Promise<string> {
    const customer = await this.post<{ id: string }>('/customers', { customerType: 'INDIVIDUAL', fullName: name, currencies: ['USD'], region: 'US', email: 'trigger@example.com', ...more });
    return this.made('customer', customer.id);
  }

  /** `--customer`, or a new APPROVED individual. */
  person(): Promise<string> {
    return this.once('person', async () => this.options.customer ?? this.newPerson('Trigger Person'));
  }

  /** A person with everything a verification asks (birth date, nationality, address, a passport). */
  async verifiablePerson(name: string): Promise<string> {
    const id = await this.newPerson(name, { birthDate: '1990-01-01', nationality: 'US', address: { line1: '1 Main St', city: 'Springfield', postalCode: '12345', country: 'US' } });
    const document = await this.post<{ id: string }>('/documents', { documentHolder: id, documentType: 'PASSPORT', country: 'US', fileName: 'passport.pdf', file: TINY_PDF_BASE64 });
    this.made('document', document.id);
    return id;
  }

  /** `--customer`, or a new business customer (KYB). */
  business(): Promise<string> {
    return this.once('business', async () => {
      if (this.options.customer) return this.options.customer;
      const customer = await this.post<{ id: string }>('/customers', {
        customerType: 'BUSINESS',
        region: 'US',
        currencies: ['USD'],
        businessInfo: { legalName: 'Trigger Business Inc', registrationNumber: 'REG-1003', taxId: '12-3456789' },
      });
      return this.made('business customer', customer.id);
    });
  }

  /**
   * The sandbox KYC (KYB for a business) decision. A decision that changes nothing sends no event,
   * so a customer already in that status is first moved to another one (and that is said).
   */
  async decide(customerId: string, status: KycDecision): Promise<void> {
    const customer = await this.get<{ kycStatus?: string; kybStatus?: string }>(`/customers/${customerId}`);
    if ((customer.kycStatus ?? customer.kybStatus) === status) {
      const other = status === 'PENDING' ? 'HOLD' : 'PENDING';
      await this.post(`/sandbox/customers/${customerId}/kyc-decision`, { status: other });
      this.note(`${customerId} was already ${status}: decided ${other} first (a decision that changes nothing sends no event)`);
    }
    await this.post(`/sandbox/customers/${customerId}/kyc-decision`, { status });
  }

  // Money

  /** The customer's USD internal account. */
  async usdAccount(customerId: string): Promise<string> {
    const list = await this.get<{ data: { id: string }[] }>(`/internal-account?customerId=${encodeURIComponent(customerId)}&currency=USD`);
    const account = list.data[0];
    if (!account) throw new CliError(`${customerId} has no USD internal account (create the customer with currencies USD, or pass --account)`);
    return account.id;
  }

  /** `--account` (and its customer), or the person's USD account funded with enough for the recipe. */
  funded(): Promise<{ customerId: string; accountId: string }> {
    return this.once('funded', async () => {
      if (this.options.account) {
        const account = await this.get<{ customerId?: string }>(`/internal-accounts/${this.options.account}`);
        if (!account.customerId) throw new CliError(`${this.options.account} is not a customer's account: pass a customer's USD internal account`);
        return { customerId: account.customerId, accountId: this.options.account };
      }
      const customerId = await this.person();
      const accountId = this.made('internal account', await this.usdAccount(customerId));
      await this.fund(accountId, Math.max(100_000, 3 * this.amount));
      return { customerId, accountId };
    });
  }

  async fund(accountId: string, amount: number): Promise<void> {
    await this.post(`/sandbox/internal-accounts/${accountId}/fund`, { amount });
    this.note(`funded ${accountId} with ${amount}`);
  }

  /** The account's funding reference (MNT…), quoted by a bank transfer to reach it. */
  async fundingReference(accountId: string): Promise<string> {
    const account = await this.get<{ fundingPaymentInstructions?: { accountOrWalletInfo?: { reference?: string } }[] }>(`/internal-accounts/${accountId}`);
    const reference = account.fundingPaymentInstructions?.map((i) => i.accountOrWalletInfo?.reference).find((r) => r);
    if (!reference) throw new CliError(`${accountId} has no funding reference`);
    return reference;
  }

  /** A bank transfer quoting the account's reference, as money really arrives. */
  async bankTransfer(accountId: string, amount: number): Promise<string> {
    const transaction = await this.post<{ id: string; status: string }>('/sandbox/bank-transfers', { reference: await this.fundingReference(accountId), amount, senderName: 'Trigger Sender' });
    return this.made(`transaction (${transaction.status})`, transaction.id);
  }

  /**
   * A US bank account of the customer; the sandbox decides payouts and pulls by the last three
   * digits of its number (`004` rejected, `021` compliance review, …; others complete).
   */
  async bankAccount(customerId: string, suffix: string): Promise<string> {
    const account = await this.post<{ id: string }>('/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber: `98765${suffix}`, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Trigger Beneficiary' } },
    });
    return this.made(`bank account ..${suffix}`, account.id);
  }

  /** A Mexican (CLABE) account of the customer: the destination of a cross-currency quote. */
  async clabeAccount(customerId: string, suffix: string): Promise<string> {
    const account = await this.post<{ id: string }>('/customers/external-accounts', {
      customerId,
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingIn(suffix), bankName: 'BBVA', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Trigger Beneficiario' } },
    });
    return this.made(`CLABE account ..${suffix}`, account.id);
  }

  async transferOut(accountId: string, destinationId: string): Promise<string> {
    const transaction = await this.post<{ id: string; status: string }>('/transfer-out', { source: { accountId }, destination: { accountId: destinationId }, amount: this.amount });
    return this.made(`transaction (${transaction.status})`, transaction.id);
  }

  async transferIn(sourceId: string, accountId: string): Promise<string> {
    const transaction = await this.post<{ id: string; status: string }>('/transfer-in', { source: { accountId: sourceId }, destination: { accountId }, amount: this.amount });
    return this.made(`transaction (${transaction.status})`, transaction.id);
  }

  /** A USD→MXN quote from the account; executed at once unless `execute` is false. Answers its transaction. */
  async quote(accountId: string, destinationId: string, execute: boolean): Promise<string> {
    const quote = await this.post<{ id: string; status: string; transactionId: string }>('/quotes', {
      source: { sourceType: 'ACCOUNT', accountId },
      destination: { destinationType: 'ACCOUNT', accountId: destinationId },
      lockedCurrencySide: 'SENDING',
      lockedCurrencyAmount: this.amount,
      ...(execute ? { immediatelyExecute: true } : {}),
    });
    this.made(`quote (${quote.status})`, quote.id);
    return this.made('transaction', quote.transactionId);
  }

  // Cards

  /** An ACTIVE virtual card of the funded customer, on its account. */
  card(): Promise<{ cardId: string; accountId: string; customerId: string }> {
    return this.once('card', async () => {
      const { customerId, accountId } = await this.funded();
      const card = await this.post<{ id: string }>('/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [accountId] });
      const cardId = this.made('card', card.id);
      await this.until('the card to be ACTIVE', async () => ((await this.get<{ state: string }>(`/cards/${cardId}`)).state === 'ACTIVE' ? true : undefined));
      return { cardId, accountId, customerId };
    });
  }

  /** A card authorization; `descriptor` ending 006 has its pull reported failed (EXCEPTION). */
  async authorize(cardId: string, descriptor = 'MONETA TRIGGER'): Promise<string> {
    const transaction = await this.post<{ id?: string; status?: string; declineReason?: string }>(`/sandbox/cards/${cardId}/simulate/authorization`, {
      amount: this.amount,
      currency: { code: 'USD' },
      merchant: { descriptor, mcc: '5814', country: 'US' },
    });
    if (!transaction.id) throw new CliError(`the authorization was declined: ${transaction.declineReason ?? 'no reason given'}`);
    return this.made(`card transaction (${transaction.status})`, transaction.id);
  }

  async simulate(cardId: string, kind: string, body: Record<string, unknown>): Promise<void> {
    await this.post(`/sandbox/cards/${cardId}/simulate/${kind}`, body);
    this.note(`simulated card ${kind} ${JSON.stringify(body)}`);
  }

  // Embedded wallets

  /** Embedded wallets on for the platform (a new customer then gets a wallet), and a new customer's wallet. */
  wallet(): Promise<{ customerId: string; walletId: string; credentialId: string }> {
    return this.once('wallet', async () => {
      const config = await this.get<{ embeddedWalletConfig?: unknown }>('/config');
      if (!config.embeddedWalletConfig) {
        await this.call('PATCH', '/config', { embeddedWalletConfig: { appName: 'Moneta Trigger' } });
        this.note('turned embedded wallets on for the platform (PATCH /config embeddedWalletConfig)');
      }
      const customerId = await this.newPerson('Trigger Wallet Holder', { phoneNumber: '+15555550100' });
      const wallets = await this.get<{ data: { id: string }[] }>(`/internal-account?customerId=${encodeURIComponent(customerId)}&type=EMBEDDED_WALLET`);
      const walletId = wallets.data[0]?.id;
      if (!walletId) throw new CliError(`${customerId} got no embedded wallet`);
      this.made('wallet', walletId);
      const credentials = await this.get<{ data: { id: string }[] }>(`/auth/credentials?accountId=${encodeURIComponent(walletId)}`);
      const credentialId = credentials.data[0]?.id;
      if (!credentialId) throw new CliError(`${walletId} has no credential`);
      return { customerId, walletId, credentialId: this.made('auth method', credentialId) };
    });
  }

  // Agents

  /** An agent of the funded customer that may move money, asking approval above `approvalAbove`. */
  async agent(customerId: string, approvalAbove: number): Promise<{ agentId: string; token: string }> {
    const created = await this.post<{ agent: { id: string }; deviceCode: { code: string } }>('/agents', {
      name: 'Trigger Agent',
      customerId,
      policy: {
        permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS', 'CREATE_QUOTES', 'EXECUTE_QUOTES'],
        defaultExecutionMode: 'AUTO',
        spendingLimits: { currency: 'USD', perTransactionLimit: 100 * Math.max(approvalAbove, 1000), dailyLimit: 1000 * Math.max(approvalAbove, 1000) },
        approvalThresholds: { currency: 'USD', amount: approvalAbove },
      },
    });
    const agentId = this.made('agent', created.agent.id);
    const redeemed = await this.post<{ accessToken: string }>(`/agents/device-codes/${encodeURIComponent(created.deviceCode.code)}/redeem`);
    return { agentId, token: redeemed.accessToken };
  }
}

/** The smallest complete PDF the document checks accept, base64. */
const TINY_PDF_BASE64 = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n').toString('base64');
