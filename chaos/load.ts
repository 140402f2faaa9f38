/**
 * The load: many clients (bounded in number and time, all to 127.0.0.1 through HAProxy) doing a mix
 * of customers, fundings, transfers out, quotes and their execution, card authorizations and
 * clearings, agent spends (an agent of some customers, spending through its own bearer token under
 * its policy: at once below the approval threshold, else once the platform approves), and webhook
 * endpoint changes. Every money operation carries an Idempotency-Key; one
 * whose answer never came (timeout, broken connection, 5xx, a 409 "in progress") is tried again
 * later with the same key, a few times, and stays unknown if it never gets a definite answer.
 *
 * Each client calls with an API token of its own (run.ts creates them) and is well-behaved: when the
 * run limits rates, a Pacer keeps it under half its limit, so the service never has a reason to
 * refuse it (a 429 to one of these is a finding of the noisy-client check). An agent is a credential
 * of its own (the limit counts per agent), with a Pacer of its own that the clients spending through
 * it share. Each request's start, latency and status are kept (Api.samples).
 */
import { API_PREFIX } from '../packages/server/src/config.js';
import { clabeCheckDigit } from '../packages/server/src/lib/account-numbers/clabe.js';
import { History, MOVES, type Op, type OpKind } from './history.js';
import { percentile, type Sample } from './noisy-check.js';

/**
 * A US account number for customer i: most settle after the sandbox's delay; every fourth is held
 * for compliance review then cleared (021), every fourth fails after about 30 s and its money comes
 * back (005), so the run meets the slow paths too.
 */
export function sandboxAccountNumber(i: number): string {
  const suffix = i % 4 === 3 ? '021' : i % 4 === 2 ? '005' : '100';
  return `4${String(i).padStart(7, '0')}${suffix}`;
}

/** A valid CLABE the sandbox pays out to after its delay (last three digits 21x: never a failure code). */
export function sandboxClabe(i: number): string {
  const first17 = `032180${String(i).padStart(9, '0')}21`;
  return `${first17}${clabeCheckDigit(first17)}`;
}

const MX_BENEFICIARY = {
  beneficiaryType: 'INDIVIDUAL',
  birthDate: '1988-03-04',
  nationality: 'MX',
  address: { line1: 'Av. Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Api {
  base: string;
  /** The Authorization header ('' for none: a public route). */
  authorization: string;
  keyPrefix: string;
  /** A well-behaved caller: its requests start no closer together than the pacer allows. */
  pace?: Pacer;
  /** Every request's start, latency and status, when kept (the well-behaved clients'). */
  samples?: Sample[];
}

/**
 * Spaces the starts of one caller's requests at least `intervalMs` apart (concurrent callers of
 * one credential take turns): a client that keeps under its rate limit by itself.
 */
export class Pacer {
  private next = 0;

  constructor(readonly intervalMs: number) {}

  async turn(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await sleep(at - now);
  }
}

type Answer = { status: number; body: Record<string, unknown> } | undefined;

/** One HTTP attempt; undefined when no answer came (timeout, connection refused or broken). */
export async function send(api: Api, method: string, path: string, body: unknown, key: string | undefined, timeoutMs = 5000): Promise<Answer> {
  await api.pace?.turn();
  const at = Date.now();
  const answer = await sendOnce(api, method, path, body, key, timeoutMs);
  api.samples?.push({ at, ms: Date.now() - at, status: answer?.status });
  return answer;
}

async function sendOnce(api: Api, method: string, path: string, body: unknown, key: string | undefined, timeoutMs: number): Promise<Answer> {
  try {
    const response = await fetch(`${api.base}${API_PREFIX}${path}`, {
      method,
      headers: { ...(api.authorization ? { authorization: api.authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key ? { 'idempotency-key': key } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { raw: text.slice(0, 200) };
    }
    return { status: response.status, body: parsed };
  } catch {
    return undefined;
  }
}

/**
 * The load's requests started in [from, to): how many a second were answered below 500, their
 * p50/p99 latency, what failed, and the money moves acknowledged a second (from `ops`).
 */
export function describeThroughput(samples: readonly Sample[], from: number, to: number, ops: readonly Op[] = []): string {
  const inWindow = samples.filter((x) => x.at >= from && x.at < to);
  const answered = inWindow.filter((x) => x.status !== undefined && x.status < 500);
  const seconds = Math.max(0.001, (to - from) / 1000);
  const ms = answered.map((x) => x.ms);
  const moves = ops.filter((op) => MOVES.includes(op.kind) && op.status === 'ok' && op.invokedAt >= from && op.invokedAt < to).length;
  return (
    `${(answered.length / seconds).toFixed(1)} requests/s answered over ${seconds.toFixed(0)} s (${answered.length}), p50 ${percentile(ms, 50) ?? '-'} ms, p99 ${percentile(ms, 99) ?? '-'} ms, ` +
    `${inWindow.length - answered.length} without an answer or 5xx; ${(moves / seconds).toFixed(1)} money moves acknowledged/s`
  );
}

/** Not a definite answer: the operation may or may not have happened, so it is asked again with its key. */
function indefinite(answer: Answer): boolean {
  if (answer === undefined || answer.status >= 500 || answer.status === 429) return true;
  // The same key still being processed (a first attempt whose connection broke may still commit).
  const details = answer.body.details as { reason?: unknown } | undefined;
  return answer.status === 409 && details?.reason === 'IDEMPOTENCY_KEY_IN_PROGRESS';
}

interface Pending {
  op: Op;
  /** Who sends it (and sends it again with its key). */
  api: Api;
  method: string;
  path: string;
  body: unknown;
  onOk?: (body: Record<string, unknown>) => void;
}

export interface Account {
  customerId: string;
  accountId: string;
  reference: string;
  externalAccountId: string;
  clabeAccountId: string | undefined;
  cardId: string | undefined;
}

/** A customer's agent: the account it spends from, and its own credential (Bearer). */
export interface AgentSeat {
  agentId: string;
  account: Account;
  caller: Api;
}

/**
 * The agents' policy: transfers out at once up to AGENT_APPROVAL_ABOVE, with the platform's approval
 * above it, refused above the per-transaction limit (the load asks for up to AGENT_MAX_SPEND, so it
 * meets all three); the daily limits are not in the way of a run.
 */
const AGENT_APPROVAL_ABOVE = 600;
const AGENT_PER_TRANSACTION_LIMIT = 1000;
const AGENT_MAX_SPEND = 1200;
export const AGENT_POLICY = {
  permissions: ['VIEW_TRANSACTIONS', 'CREATE_TRANSFERS'],
  defaultExecutionMode: 'AUTO',
  spendingLimits: { currency: 'USD', perTransactionLimit: AGENT_PER_TRANSACTION_LIMIT, dailyLimit: 100_000_000, dailyTransactionLimit: 1_000_000, monthlyLimit: null },
  approvalThresholds: { currency: 'USD', amount: AGENT_APPROVAL_ABOVE },
};

export class Load {
  readonly unresolved: Pending[] = [];
  readonly accounts: Account[] = [];
  /** Approved card authorizations not yet cleared: one clearing each. */
  readonly toClear: { cardTransactionId: string; accountId: string; amount: number }[] = [];
  /** The customers' agents (made in setup, for every other customer). */
  readonly agents: AgentSeat[] = [];
  /** Agent spends acknowledged as PENDING_APPROVAL, for a platform client to approve. */
  readonly toApprove: { seat: AgentSeat; actionId: string; tag: string; amount: number }[] = [];
  readonly receiverUrls: string[];
  readonly counts = new Map<string, number>();
  /** Past it, an operation without a definite answer is not asked again now: resolveUnknowns() does, after the faults. */
  deadline = Number.POSITIVE_INFINITY;
  /** Operations that needed more than one attempt. */
  retried = 0;

  constructor(
    readonly api: Api,
    readonly history: History,
    receiverUrls: string[],
  ) {
    this.receiverUrls = receiverUrls;
  }

  private key(op: { kind: OpKind }): string {
    return `${this.api.keyPrefix}-${op.kind}-${this.history.nextId}`;
  }

  /** Runs one operation as `caller`: up to `tries` attempts with its key (backoff between), then ok, fail or unknown. */
  async perform(caller: Api, kind: OpKind, fields: Partial<Op>, method: string, path: string, body: unknown, tries = 3, onOk?: (b: Record<string, unknown>) => void): Promise<Answer> {
    // A tagged move names itself in what the service stores: `[k<id>]`, which no other tag contains.
    const tag = typeof body === 'function' ? `[k${this.history.nextId}]` : undefined;
    const op = this.history.invoke({ kind, key: this.key({ kind }), ...fields, ...(tag ? { tag } : {}) });
    const realBody = tag ? (body as (tag: string) => unknown)(tag) : body;
    return this.attempt({ op, api: caller, method, path, body: realBody, ...(onOk ? { onOk } : {}) }, tries);
  }

  async attempt(p: Pending, tries: number): Promise<Answer> {
    let answer: Answer;
    for (let i = 0; i < tries; i++) {
      if (i > 0 && Date.now() > this.deadline) break;
      if (i > 0) await sleep(300 * 2 ** i + Math.random() * 200);
      if (i === 1) this.retried++;
      p.op.attempts++;
      answer = await send(p.api, p.method, p.path, p.body, p.op.key);
      if (!indefinite(answer)) break;
    }
    const resultId = typeof answer?.body.id === 'string' ? answer.body.id : undefined;
    if (answer && answer.status < 300) {
      const actionStatus = p.op.kind.startsWith('agent-') && typeof answer.body.status === 'string' ? answer.body.status : undefined;
      this.history.complete(p.op, 'ok', { httpStatus: answer.status, ...(resultId ? { resultId } : {}), ...(actionStatus ? { actionStatus } : {}) });
      p.onOk?.(answer.body);
    } else if (!indefinite(answer)) {
      const details = answer!.body.details as { reason?: unknown } | undefined;
      const error = typeof details?.reason === 'string' ? details.reason : typeof answer!.body.code === 'string' ? answer!.body.code : undefined;
      this.history.complete(p.op, 'fail', { httpStatus: answer!.status, ...(error ? { error } : {}) });
    } else {
      this.history.complete(p.op, 'unknown', answer ? { httpStatus: answer.status } : {});
      if (!this.unresolved.includes(p)) this.unresolved.push(p);
    }
    const label = `${p.op.kind} ${p.op.status}${p.op.status === 'fail' && p.op.error ? ` ${p.op.error}` : ''}`;
    this.counts.set(label, (this.counts.get(label) ?? 0) + 1);
    return answer;
  }

  /** After the faults: every unknown operation asked again with its key (the system is whole now). */
  async resolveUnknowns(rounds = 2): Promise<void> {
    for (let round = 0; round < rounds && this.unresolved.length > 0; round++) {
      const batch = this.unresolved.splice(0);
      for (const p of batch) {
        const before = p.op.status;
        this.counts.set(`${p.op.kind} ${before}`, (this.counts.get(`${p.op.kind} ${before}`) ?? 1) - 1);
        await this.attempt(p, 2);
      }
    }
  }

  // ------------------------------------------------------------ setup (before the faults)

  async setup(customers: number): Promise<void> {
    await this.perform(this.api, 'webhook-endpoint', {}, 'PATCH', '/config', { webhookEndpoint: this.receiverUrls[0] }, 5);
    await Promise.all(Array.from({ length: customers }, (_, i) => this.newAccount(this.api, i, true)));
    if (this.accounts.length === 0) throw new Error('setup: no customer account could be created');
    await Promise.all(this.accounts.filter((_, i) => i % 2 === 0).map((a, i) => this.newAgent(a, i)));
  }

  /** An agent for the customer of `a` (made by the platform), installed with its device code: its own credential. */
  async newAgent(a: Account, i: number): Promise<void> {
    const created = await send(this.api, 'POST', '/agents', { name: `chaos agent ${i}`, customerId: a.customerId, policy: AGENT_POLICY }, `${this.api.keyPrefix}-agent-${i}`);
    const code = (created?.body.deviceCode as { code?: string } | undefined)?.code;
    const agentId = (created?.body.agent as { id?: string } | undefined)?.id;
    if (created?.status !== 201 || !code || !agentId) throw new Error(`setup: POST /agents answered ${created?.status ?? 'nothing'}: ${JSON.stringify(created?.body ?? {})}`);
    // Redeeming takes no credentials: the code is the proof.
    const redeemed = await send({ ...this.api, authorization: '' }, 'POST', `/agents/device-codes/${code}/redeem`, undefined, undefined);
    const accessToken = redeemed?.body.accessToken;
    if (redeemed?.status !== 200 || typeof accessToken !== 'string') throw new Error(`setup: redeeming agent ${agentId}'s device code answered ${redeemed?.status ?? 'nothing'}`);
    const pace = this.api.pace ? { pace: new Pacer(this.api.pace.intervalMs) } : {};
    this.agents.push({ agentId, account: a, caller: { base: this.api.base, authorization: `Bearer ${accessToken}`, keyPrefix: this.api.keyPrefix, ...pace, samples: [] } });
  }

  async newAccount(caller: Api, i: number, full: boolean): Promise<void> {
    const customer = await this.perform(caller, 'customer', {}, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: `Chaos ${i}`, email: `chaos${i}@example.com`, currencies: ['USD'] }, 4);
    const customerId = customer?.status === 201 ? String(customer.body.id) : undefined;
    if (!customerId || !full) return;
    const list = await send(caller, 'GET', `/internal-account?customerId=${encodeURIComponent(customerId)}`, undefined, undefined);
    const account = (list?.body.data as { id: string; fundingPaymentInstructions: { accountOrWalletInfo: { reference?: string } }[] }[] | undefined)?.[0];
    const reference = account?.fundingPaymentInstructions[0]?.accountOrWalletInfo.reference;
    if (!account || !reference) return;
    const accountNumber = sandboxAccountNumber(i);
    const external = await send(caller, 'POST', '/customers/external-accounts', {
      customerId,
      currency: 'USD',
      accountInfo: { accountType: 'US_ACCOUNT', routingNumber: '021000021', accountNumber, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: `Chaos ${i}` } },
    }, `${this.api.keyPrefix}-ext-${i}`);
    if (external?.status !== 201) return;
    const clabe = await send(caller, 'POST', '/customers/external-accounts', {
      customerId,
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: sandboxClabe(i), bankName: 'BBVA', beneficiary: { ...MX_BENEFICIARY, fullName: `Chaos ${i}` } },
    }, `${this.api.keyPrefix}-clabe-${i}`);
    const card = await send(caller, 'POST', '/cards', { cardholderId: customerId, form: 'VIRTUAL', fundingSources: [account.id], platformCardId: `chaos-${i}-card` }, `${this.api.keyPrefix}-card-${i}`);
    this.accounts.push({
      customerId,
      accountId: account.id,
      reference,
      externalAccountId: String(external.body.id),
      clabeAccountId: clabe?.status === 201 ? String(clabe.body.id) : undefined,
      cardId: card?.status === 201 ? String(card.body.id) : undefined,
    });
  }

  // ------------------------------------------------------------ the mix

  /** One client calling as `caller`: operations back to back until `until` (wall-clock ms). */
  async client(caller: Api, until: number, random: () => number): Promise<void> {
    while (Date.now() < until) {
      const account = this.accounts[Math.floor(random() * this.accounts.length)]!;
      const r = random();
      if (r < 0.33) await this.fund(caller, account, 1000 + Math.floor(random() * 9000));
      else if (r < 0.48) await this.transferOut(caller, account, 1 + Math.floor(random() * 800));
      else if (r < 0.58) await this.agentStep(caller, random);
      else if (r < 0.7) await this.cardAuth(caller, account, 1 + Math.floor(random() * 300));
      else if (r < 0.8) await this.cardClear(caller);
      else if (r < 0.9) await this.quote(caller, account, 100 + Math.floor(random() * 900));
      else if (r < 0.97) await this.newAccount(caller, this.history.ops.length, false);
      else await this.perform(caller, 'webhook-endpoint', {}, 'PATCH', '/config', { webhookEndpoint: this.receiverUrls[Math.floor(random() * this.receiverUrls.length)] });
    }
  }

  fund(caller: Api, a: Account, amount: number): Promise<Answer> {
    return this.perform(caller, 'fund', { accountId: a.accountId, currency: 'USD', amount: String(amount) }, 'POST', '/sandbox/bank-transfers', (tag: string) => {
      return { reference: a.reference, amount, currency: 'USD', senderName: `chaos ${tag}` };
    });
  }

  transferOut(caller: Api, a: Account, amount: number): Promise<Answer> {
    return this.perform(caller, 'transfer-out', { accountId: a.accountId, currency: 'USD', amount: String(amount) }, 'POST', '/transfer-out', (tag: string) => {
      return { source: { accountId: a.accountId }, destination: { accountId: a.externalAccountId }, amount, description: `chaos ${tag}` };
    });
  }

  async cardAuth(caller: Api, a: Account, amount: number): Promise<void> {
    if (!a.cardId) return void (await this.fund(caller, a, 500));
    await this.perform(
      caller,
      'card-auth',
      { accountId: a.accountId, currency: 'USD', amount: String(amount) },
      'POST',
      `/sandbox/cards/${a.cardId}/simulate/authorization`,
      (tag: string) => {
        return { amount, currency: { code: 'USD' }, merchant: { descriptor: `CHAOS ${tag} 100`, mcc: '5814', country: 'US' } };
      },
      3,
      (body) => {
        if (typeof body.id === 'string' && body.declineReason === undefined) this.toClear.push({ cardTransactionId: body.id, accountId: a.accountId, amount });
      },
    );
  }

  async cardClear(caller: Api): Promise<void> {
    const next = this.toClear.shift();
    if (!next) return;
    const account = this.accounts.find((a) => a.accountId === next.accountId);
    if (!account?.cardId) return;
    await this.perform(caller, 'card-clear', { accountId: next.accountId, currency: 'USD', amount: String(next.amount), cardTransactionId: next.cardTransactionId }, 'POST', `/sandbox/cards/${account.cardId}/simulate/clearing`, {
      cardTransactionId: next.cardTransactionId,
      amount: next.amount,
    });
  }

  /** Approves a waiting agent spend (as the platform client `caller`), or has an agent spend. */
  async agentStep(caller: Api, random: () => number): Promise<void> {
    if (this.toApprove.length > 0 && random() < 0.5) return this.approve(caller);
    if (this.agents.length === 0) return;
    await this.agentTransferOut(this.agents[Math.floor(random() * this.agents.length)]!, 1 + Math.floor(random() * AGENT_MAX_SPEND));
  }

  /** A transfer out by the customer's agent, with the agent's own credential (the client's is not used). */
  agentTransferOut(seat: AgentSeat, amount: number): Promise<Answer> {
    const a = seat.account;
    let tag = '';
    return this.perform(
      seat.caller,
      'agent-transfer-out',
      { accountId: a.accountId, currency: 'USD', amount: String(amount) },
      'POST',
      '/agents/me/transfer-out',
      (t: string) => {
        tag = t;
        return { source: { accountId: a.accountId }, destination: { accountId: a.externalAccountId }, amount, description: `chaos agent ${t}` };
      },
      3,
      (body) => {
        if (body.status === 'PENDING_APPROVAL' && typeof body.id === 'string') this.toApprove.push({ seat, actionId: body.id, tag, amount });
      },
    );
  }

  /** The platform approves the oldest waiting agent spend: the transfer is made now (or the action FAILED). */
  async approve(caller: Api): Promise<void> {
    const next = this.toApprove.shift();
    if (!next) return;
    await this.perform(
      caller,
      'agent-approve',
      { tag: next.tag, actionId: next.actionId, accountId: next.seat.account.accountId, currency: 'USD', amount: String(next.amount) },
      'POST',
      `/agents/${next.seat.agentId}/actions/${next.actionId}/approve`,
      {},
    );
  }

  /** A quote from the customer's USD account to its own MXN CLABE account (a cross-currency payout), then executed. */
  async quote(caller: Api, a: Account, amount: number): Promise<void> {
    if (!a.clabeAccountId) return;
    let quoteId: string | undefined;
    await this.perform(
      caller,
      'quote',
      { accountId: a.accountId, currency: 'USD', amount: String(amount) },
      'POST',
      '/quotes',
      { source: { sourceType: 'ACCOUNT', accountId: a.accountId }, destination: { destinationType: 'ACCOUNT', accountId: a.clabeAccountId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: amount },
      3,
      (body) => (quoteId = typeof body.id === 'string' ? body.id : undefined),
    );
    if (!quoteId) return;
    await this.perform(caller, 'quote-execute', { accountId: a.accountId, currency: 'USD', amount: String(amount), quoteId }, 'POST', `/quotes/${quoteId}/execute`, {});
  }
}
