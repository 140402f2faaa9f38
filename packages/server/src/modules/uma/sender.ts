import { getPayRequest, getSignedLnurlpRequestUrl, isVersionSupported, KycStatus, LnurlpResponse, PayReqResponse, signPayload, verifyPayReqResponseSignature, verifyUmaLnurlpResponseSignature, generateNonce } from '@uma-sdk/core';
import { type CustomerId, type PlatformId, type QuoteId } from '../../core/ids.js';
import type { Scope, UnitOfWork } from '../../core/unit-of-work.js';
import type { Db, Executor } from '../../db/schema.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { RateSource } from '../../fx/rate-source.js';
import type { Ledger } from '../../ledger/index.js';
import { firstAccountCurrency } from '../../ledger/queries.js';
import { currencyOf as findCurrency, type Currency } from '../../lib/currencies.js';
import { customerNotFound } from '../customers/errors.js';
import { holderName, type CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import { baseUrl, parseUmaAddress, type UmaAddress } from './address.js';
import { payerFieldName } from './payer-fields.js';
import {
  amountOutOfRange,
  certChainInvalid,
  invalidPayreqResponse,
  lnurlpRequestFailed,
  lookupNotFound,
  noCompatibleUmaVersion,
  parseLnurlpResponseError,
  parsePayreqResponseError,
  payreqRequestFailed,
  senderNotAccepted,
  umaCurrencyNotAccepted,
  umaNotFound,
  umaSelfPayment,
  unsupportedUmaVersion,
} from './errors.js';
import type { LookupId } from './ids.js';
import type { UmaKeys } from './keys.js';
import { checkedNonces, type PeerAnswer, type Peers } from './peer.js';

const DEFAULT_SENDER_CURRENCY = 'USD';

/** What a receiver's VASP answered to a lookup, checked. */
export interface UmaLookupRecord {
  callback: string;
  umaMajorVersion: number;
  currencies: { code: string; decimals: number; min: string; max: string }[];
  payerData: { name: string; mandatory: boolean }[];
  encryptionPubKey: string;
}

export interface UmaLookupView {
  receiverUmaAddress: string;
  lookupId: LookupId;
  supportedCurrencies: { currency: Currency; estimatedExchangeRate: number; min: bigint; max: bigint }[];
  requiredPayerDataFields: { name: string; mandatory: boolean }[];
}

export interface SenderDeps {
  db: Db;
  keys: UmaKeys;
  peers: Peers;
  ledger: Ledger;
  rates: RateSource;
  customers: Pick<CustomerService, 'findActive'>;
  platforms: Pick<PlatformService, 'umaDomain'>;
}

export interface Sender {
  customerId: CustomerId;
  umaAddress: string;
  name: string;
  currency: string;
}


/** A peer's error answer: the UMA `{status: "ERROR", reason}`, with our `code` when the peer is one of us. */
function peerError(answer: PeerAnswer): { code?: string; reason: string; supportedMajorVersions?: unknown } {
  try {
    const body = JSON.parse(answer.text) as { code?: unknown; reason?: unknown; message?: unknown; supportedMajorVersions?: unknown };
    return {
      ...(typeof body.code === 'string' ? { code: body.code } : {}),
      reason: typeof body.reason === 'string' ? body.reason.slice(0, 300) : typeof body.message === 'string' ? body.message.slice(0, 300) : `answered ${answer.status}`,
      ...(body.supportedMajorVersions !== undefined ? { supportedMajorVersions: body.supportedMajorVersions } : {}),
    };
  } catch {
    return { reason: `answered ${answer.status}` };
  }
}

/**
 * Lookups are not stored (a GET changes nothing), so the id names what was looked up: the same
 * receiver looked up by the same sender always has the same id, and a quote recognises it.
 */
function lookupIdOf(platformId: PlatformId, customerId: CustomerId, receiverAddress: string): LookupId {
  const hex = sha256Hex(`uma|${platformId}|${customerId}|${receiverAddress.toLowerCase()}`);
  return `Lookup:${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}` as LookupId;
}

/** The platform's UMA domain, remembered as the one it signs as (the peer will ask for its keys). */
async function ownDomain(deps: Pick<SenderDeps, 'platforms' | 'keys'>, executor: Executor, platformId: PlatformId): Promise<string> {
  const domain = await deps.platforms.umaDomain(executor, platformId);
  deps.keys.signsAs(domain, platformId);
  return domain;
}

/** The answer of a peer that refused: 404 is no such receiver, 412 another UMA version, SENDER_NOT_ACCEPTED its rules. */
function refusal(answer: PeerAnswer, receiver: UmaAddress, failed: (domain: string, why: string) => Error): Error {
  const error = peerError(answer);
  if (answer.status === 404) return umaNotFound(receiver.address);
  if (answer.status === 412) return unsupportedUmaVersion(error.supportedMajorVersions ?? null);
  if (error.code === 'SENDER_NOT_ACCEPTED') return senderNotAccepted(error.reason);
  return failed(receiver.domain, `${answer.status}${error.code ? ` ${error.code}` : ''}: ${error.reason}`);
}

export type UmaSender = ReturnType<typeof createUmaSender>;

/**
 * The sending side of UMA: looking a receiver up at its VASP (the signed LNURL-p exchange), asking
 * it to be paid (the signed pay request, answered with its payment reference), and settling
 * (see settlement.ts).
 */
export function createUmaSender(deps: SenderDeps) {
  const { db, peers } = deps;

  async function sender(executor: Executor, platformId: PlatformId, by: { customerId?: CustomerId | undefined; senderUmaAddress?: string | undefined }): Promise<Sender> {
    const customer = await deps.customers.findActive(executor, platformId, by.customerId !== undefined ? { id: by.customerId } : { umaAddress: by.senderUmaAddress! });
    if (!customer) throw customerNotFound();
    const currency = (await firstAccountCurrency(executor, platformId, customer.id)) ?? DEFAULT_SENDER_CURRENCY;
    return { customerId: customer.id, umaAddress: customer.uma_address, name: holderName(customer), currency };
  }

  /** The signed LNURL-p exchange with the receiver's VASP, checked; nothing is stored. */
  async function fetchReceiver(executor: Executor, platformId: PlatformId, receiver: UmaAddress, at: Date): Promise<UmaLookupRecord & { receiverKyc?: string }> {
    const own = await deps.keys.keyPair(executor, platformId, at);
    const senderVaspDomain = await ownDomain(deps, executor, platformId);
    const url = await getSignedLnurlpRequestUrl({ isSubjectToTravelRule: true, receiverAddress: receiver.address, senderVaspDomain, signingPrivateKey: own.privateKey });
    let answer: PeerAnswer;
    try {
      answer = await peers.call(url, { method: 'GET' });
    } catch (error) {
      throw lnurlpRequestFailed(receiver.domain, error instanceof Error ? error.message : 'unreachable');
    }
    if (answer.status !== 200) throw refusal(answer, receiver, lnurlpRequestFailed);
    let response: LnurlpResponse;
    try {
      response = LnurlpResponse.fromJson(answer.text);
    } catch {
      throw parseLnurlpResponseError('not an LNURL-p response');
    }
    if (!response.umaVersion || !response.compliance) throw parseLnurlpResponseError('not an UMA response (no umaVersion or compliance)');
    if (!isVersionSupported(response.umaVersion)) throw noCompatibleUmaVersion(response.umaVersion);
    if (response.compliance.receiverIdentifier !== receiver.address) throw parseLnurlpResponseError('the response names another receiver');
    const keys = await peers.keys(receiver.domain);
    peers.freshAndNewAnswer(receiver.domain, 'lookup response', response.compliance.signatureNonce, Number(response.compliance.signatureTimestamp));
    if (!(await verifyUmaLnurlpResponseSignature(response, keys, checkedNonces).catch(() => false))) throw certChainInvalid('lookup response');
    return {
      callback: response.callback,
      umaMajorVersion: Number(response.umaVersion.split('.')[0]),
      currencies: (response.currencies ?? []).map((c) => ({ code: c.code, decimals: c.decimals, min: String(c.minSendable), max: String(c.maxSendable) })),
      payerData: Object.entries(response.payerData ?? {}).flatMap(([key, option]) => {
        const name = payerFieldName(key);
        return name ? [{ name, mandatory: option.mandatory }] : [];
      }),
      encryptionPubKey: Buffer.from(keys.getEncryptionPubKey()).toString('hex'),
      receiverKyc: response.compliance.kycStatus,
    };
  }

  async function estimate(from: string, to: string, at: Date): Promise<number> {
    if (from === to) return 1;
    return Number((await deps.rates.rate(from, to, at)).rate.toFixed());
  }

  async function lookup(scope: Scope, address: string, by: { customerId?: CustomerId | undefined; senderUmaAddress?: string | undefined }): Promise<UmaLookupView> {
    // The sender first: another platform's customer is 404 whatever the address.
    const from = await sender(db, scope.platformId, by);
    const receiver = parseUmaAddress(address);
    if (from.umaAddress.toLowerCase() === address.toLowerCase()) throw umaSelfPayment(address);
    const record = await fetchReceiver(db, scope.platformId, receiver, scope.now);
    const supportedCurrencies: UmaLookupView['supportedCurrencies'] = [];
    for (const c of record.currencies) {
      const currency = findCurrency(c.code);
      if (!currency) continue; // a currency we do not hold cannot be paid in
      supportedCurrencies.push({ currency, estimatedExchangeRate: await estimate(from.currency, c.code, scope.now), min: BigInt(c.min), max: BigInt(c.max) });
    }
    return { receiverUmaAddress: receiver.address, lookupId: lookupIdOf(scope.platformId, from.customerId, receiver.address), supportedCurrencies, requiredPayerDataFields: record.payerData };
  }

  /**
   * The receiver as its VASP describes it now: a quote asks again rather than trusting an earlier
   * answer. A lookupId given must be the one a lookup of this receiver by this sender answered.
   */
  async function lookupFor(uow: UnitOfWork, receiver: UmaAddress, from: Sender, lookupId: string | undefined): Promise<UmaLookupRecord> {
    if (lookupId !== undefined && lookupId !== lookupIdOf(uow.platformId, from.customerId, receiver.address)) throw lookupNotFound(lookupId);
    const { receiverKyc: _kyc, ...record } = await fetchReceiver(uow.tx, uow.platformId, receiver, uow.now);
    return record;
  }

  return {
    sender,
    lookup,

    /** Before pricing: who sends, and what the receiver accepts in the currency it will get. */
    async resolve(uow: UnitOfWork, input: { customerId: CustomerId; umaAddress: string; currency?: string | undefined; lookupId?: string | undefined }) {
      const receiver = parseUmaAddress(input.umaAddress);
      const from = await sender(uow.tx, uow.platformId, { customerId: input.customerId });
      if (from.umaAddress.toLowerCase() === receiver.address.toLowerCase()) throw umaSelfPayment(receiver.address);
      const lookup = await lookupFor(uow, receiver, from, input.lookupId);
      const accepted = lookup.currencies.filter((c) => findCurrency(c.code));
      const chosen = input.currency !== undefined ? accepted.find((c) => c.code === input.currency) : accepted[0];
      if (!chosen) throw umaCurrencyNotAccepted(input.currency ?? '(none)', accepted.map((c) => c.code));
      return {
        currency: chosen.code,
        /** After pricing: the pay request for the amount the receiver gets, recorded for the settlement. */
        prepare: async (quoteId: QuoteId, amount: bigint): Promise<void> => {
          const min = BigInt(chosen.min);
          const max = BigInt(chosen.max);
          if (amount < min || amount > max) throw amountOutOfRange(amount, min, max, chosen.code);
          const reference = await payRequest(deps, uow, receiver, from, lookup, chosen.code, amount);
          await uow.tx
            .insertInto('uma_outgoing')
            .values({ quote_id: quoteId, platform_id: uow.platformId, receiver_address: receiver.address, receiver_domain: receiver.domain, payment_reference: reference, amount_minor: amount, currency: chosen.code, status: 'AWAITING_SETTLEMENT', created_at: uow.now, updated_at: uow.now })
            .execute();
        },
      };
    },

    settle: (uow: UnitOfWork, quoteId: QuoteId) => settleOutgoing(deps, uow, quoteId),
  };
}

/**
 * quote.settle for a UMA payment: tells the receiver's VASP the money is sent (a signed message
 * naming its payment reference). 'complete' when it credited (or had credited) its customer,
 * 'fail' when it refused; a network failure or a 5xx throws, and the job retries.
 */
/** The signed pay request; the receiver answers with its payment reference for exactly this amount. */
async function payRequest(deps: SenderDeps, uow: UnitOfWork, receiver: UmaAddress, from: Sender, lookup: UmaLookupRecord, currency: string, amount: bigint): Promise<string> {
  const own = await deps.keys.keyPair(uow.tx, uow.platformId, uow.now);
  await ownDomain(deps, uow.tx, uow.platformId);
  const request = await getPayRequest({
    receiverEncryptionPubKey: Buffer.from(lookup.encryptionPubKey, 'hex'),
    sendingVaspPrivateKey: own.privateKey,
    receivingCurrencyCode: currency,
    amount: Number(amount),
    isAmountInReceivingCurrency: true,
    payerIdentifier: from.umaAddress,
    payerKycStatus: KycStatus.Verified,
    umaMajorVersion: lookup.umaMajorVersion,
    payerData: { identifier: from.umaAddress, name: from.name },
  });
  let answer: PeerAnswer;
  try {
    answer = await deps.peers.call(new URL(lookup.callback), { method: 'POST', body: request.toJsonString() });
  } catch (error) {
    throw payreqRequestFailed(receiver.domain, error instanceof Error ? error.message : 'unreachable');
  }
  if (answer.status !== 200) throw refusal(answer, receiver, payreqRequestFailed);
  let response: PayReqResponse;
  try {
    response = PayReqResponse.fromJson(answer.text);
  } catch {
    throw parsePayreqResponseError('not a pay request response');
  }
  const compliance = response.payeeData?.compliance as { signatureNonce?: string; signatureTimestamp?: number } | undefined;
  if (!compliance?.signatureNonce || compliance.signatureTimestamp === undefined) throw parsePayreqResponseError('no signed compliance data');
  const keys = await deps.peers.keys(receiver.domain);
  await deps.peers.freshAndNew(uow.tx, uow.platformId, receiver.domain, 'pay request response', compliance.signatureNonce, compliance.signatureTimestamp);
  if (!(await verifyPayReqResponseSignature(response, from.umaAddress, receiver.address, keys, checkedNonces).catch(() => false))) throw certChainInvalid('pay request response');
  const converted = response.converted;
  if (!converted || converted.currencyCode !== currency || converted.amount === undefined || BigInt(Math.trunc(converted.amount)) !== amount) {
    throw invalidPayreqResponse(`asked ${amount} ${currency}, answered ${response.converted?.amount ?? '-'} ${response.converted?.currencyCode ?? '-'}`);
  }
  if (typeof response.pr !== 'string' || response.pr.length === 0 || response.pr.length > 200) throw parsePayreqResponseError('no payment reference');
  return response.pr;
}

/**
 * quote.settle for a UMA payment: tells the receiver's VASP the money is sent (a signed message
 * naming its payment reference). 'complete' when it credited (or had credited) its customer,
 * 'fail' when it refused; a network failure or a 5xx throws, and the job retries.
 */
async function settleOutgoing(deps: SenderDeps, uow: UnitOfWork, quoteId: QuoteId): Promise<'complete' | 'fail'> {
  const row = await uow.tx.selectFrom('uma_outgoing').selectAll().where('platform_id', '=', uow.platformId).where('quote_id', '=', quoteId).forUpdate().executeTakeFirstOrThrow();
  if (row.status === 'SETTLED') return 'complete';
  if (row.status === 'REFUSED') return 'fail';
  const own = await deps.keys.keyPair(uow.tx, uow.platformId, uow.now);
  const message = { paymentReference: row.payment_reference, amount: row.amount_minor.toString(), currency: row.currency, senderDomain: await ownDomain(deps, uow.tx, uow.platformId), nonce: String(generateNonce()), timestamp: Math.floor(Date.now() / 1000) };
  const signature = await signPayload(settlementPayload(message), own.privateKey);
  const answer = await deps.peers.call(new URL(`${baseUrl(row.receiver_domain)}/.well-known/uma/settle`), { method: 'POST', body: JSON.stringify({ ...message, signature }) });
  if (answer.status >= 500 || answer.status === 202 || answer.status === 429) throw new Error(`the receiving VASP ${row.receiver_domain} answered the settlement ${answer.status}; retrying`);
  const status = answer.status === 200 ? 'SETTLED' : 'REFUSED';
  await uow.tx.updateTable('uma_outgoing').set({ status, updated_at: uow.now }).where('platform_id', '=', uow.platformId).where('quote_id', '=', quoteId).execute();
  return status === 'SETTLED' ? 'complete' : 'fail';
}

export interface SettlementMessage {
  paymentReference: string;
  amount: string;
  currency: string;
  senderDomain: string;
  nonce: string;
  timestamp: number;
}

/** What a settlement's signature covers, in this order (secp256k1 over its SHA-256, as UMA signs). */
export function settlementPayload(m: SettlementMessage): string {
  return [m.paymentReference, m.amount, m.currency, m.senderDomain, m.nonce, String(m.timestamp)].join('|');
}
