import { Currency as UmaCurrency, getLnurlpResponse, getPayReqResponse, isVersionSupported, KycStatus, parseLnurlpRequest, PayRequest, verifyPayReqSignature, verifyUmaLnurlpQuerySignature, UnsupportedVersionError } from '@uma-sdk/core';
import { newId, type CustomerId, type InternalAccountId, type PlatformId } from '../../core/ids.js';
import { DomainError } from '../../core/errors.js';
import { runUnitOfWork, type UnitOfWork } from '../../core/unit-of-work.js';
import type { Db } from '../../db/schema.js';
import type { Clock } from '../../lib/clock.js';
import { currencyOf, type Currency } from '../../lib/currencies.js';
import type { Ledger } from '../../ledger/index.js';
import { customerAccounts } from '../../ledger/queries.js';
import type { CustomerService } from '../customers/service.js';
import type { PlatformService } from '../platforms/service.js';
import { baseUrl, parseUmaAddress } from './address.js';
import type { UmaKeys } from './keys.js';
import { checkedNonces, type Peers } from './peer.js';
import { settlementPayload, type SettlementMessage } from './sender.js';
import type { UmaIncoming } from './incoming.js';
import type { UmaPaymentId } from './ids.js';
import { verifySignature } from './signature.js';

/** What a public UMA endpoint answers: a status and a JSON body (UMA's `{status: "ERROR", reason}` on refusal). */
export interface PeerReply {
  status: number;
  body: unknown;
}

const refuse = (status: number, code: string, reason: string, extra: Record<string, unknown> = {}): PeerReply => ({ status, body: { status: 'ERROR', code, reason, ...extra } });

/** The default amounts a receiver accepts when the platform configured none for the currency (minor units). */
const DEFAULT_MIN = 1n;
const DEFAULT_MAX = 100_000_000_00n;

export interface ReceiverDeps {
  db: Db;
  clock: Clock;
  keys: UmaKeys;
  peers: Peers;
  ledger: Ledger;
  customers: Pick<CustomerService, 'findActive'>;
  platforms: Pick<PlatformService, 'platformsByUmaDomain' | 'currencyLimits'>;
  incoming: UmaIncoming;
}

/** A counterparty's message failed our checks: the DomainError's code goes back to it. */
function asReply(error: unknown): PeerReply {
  if (error instanceof DomainError) return refuse(error.status, error.code, error.message);
  throw error;
}

export type UmaReceiver = ReturnType<typeof createUmaReceiver>;

/**
 * The receiving side of UMA, as other VASPs reach it (no API credentials; the host names the
 * platform by its umaDomain): the public keys, the signed LNURL-p answer, the pay request (a
 * payment reference for exactly the amount asked) and the settlement that credits the customer.
 */
export function createUmaReceiver(deps: ReceiverDeps) {
  const { db } = deps;

  async function platformFor(host: string): Promise<PlatformId | undefined> {
    const signing = deps.keys.platformSigningAs(host);
    if (signing) return signing;
    const ids = await deps.platforms.platformsByUmaDomain(db, host.toLowerCase());
    return ids.length === 1 ? ids[0] : undefined;
  }

  async function customerAt(platformId: PlatformId, address: string) {
    return deps.customers.findActive(db, platformId, { umaAddress: address });
  }

  async function accountsOf(platformId: PlatformId, customerId: CustomerId): Promise<{ id: InternalAccountId; currency: Currency }[]> {
    return (await customerAccounts(db, platformId, customerId)).flatMap((a) => {
      const currency = currencyOf(a.currency);
      return currency ? [{ id: a.id, currency }] : [];
    });
  }

  async function limits(platformId: PlatformId, currency: string): Promise<{ min: bigint; max: bigint }> {
    const configured = await deps.platforms.currencyLimits(db, platformId, currency);
    return configured ? { min: BigInt(configured.minAmount), max: BigInt(configured.maxAmount) } : { min: DEFAULT_MIN, max: DEFAULT_MAX };
  }

  /** One option per account the customer holds, priced 1:1 (no Lightning: amounts are the currency's own minor units). */
  async function currencyOptionsOf(platformId: PlatformId, customerId: CustomerId): Promise<UmaCurrency[]> {
    const options: UmaCurrency[] = [];
    for (const { currency: c } of await accountsOf(platformId, customerId)) {
      const { min, max } = await limits(platformId, c.code);
      options.push(new UmaCurrency(c.code, c.name, c.symbol, 1, Number(min), Number(max), c.decimals));
    }
    return options;
  }

  function metadata(address: string): string {
    return JSON.stringify([['text/plain', `Pay ${address}`], ['text/identifier', address]]);
  }

  return {
    async publicKeys(host: string): Promise<PeerReply> {
      const platformId = await platformFor(host);
      if (!platformId) return refuse(404, 'UMA_NOT_FOUND', 'This host is no UMA domain here');
      return { status: 200, body: JSON.parse(await deps.keys.published(platformId, new Date())) as unknown };
    },

    /** GET /.well-known/lnurlp/$user: the sender's signed query checked, answered signed. */
    async lnurlp(host: string, pathAndQuery: string): Promise<PeerReply> {
      const platformId = await platformFor(host);
      if (!platformId) return refuse(404, 'UMA_NOT_FOUND', 'This host is no UMA domain here');
      let query;
      try {
        query = parseLnurlpRequest(new URL(`${baseUrl(host)}${pathAndQuery}`));
      } catch (error) {
        if (error instanceof UnsupportedVersionError) return refuse(412, 'UNSUPPORTED_UMA_VERSION', 'This UMA version is not supported', { supportedMajorVersions: [1] });
        return refuse(400, 'INVALID_REQUEST_FORMAT', 'Not an UMA LNURL-p request');
      }
      if (!query.umaVersion || !query.vaspDomain || !query.signature || !query.nonce || !query.timestamp) return refuse(400, 'MISSING_REQUIRED_UMA_PARAMETERS', 'Not an UMA request');
      if (!isVersionSupported(query.umaVersion)) return refuse(412, 'UNSUPPORTED_UMA_VERSION', `UMA ${query.umaVersion} is not supported`, { supportedMajorVersions: [1] });
      const customer = await customerAt(platformId, query.receiverAddress);
      try {
        const keys = await deps.peers.keys(query.vaspDomain);
        await deps.peers.freshAndNew(db, platformId, query.vaspDomain, 'lookup request', query.nonce, query.timestamp.getTime() / 1000);
        if (!(await verifyUmaLnurlpQuerySignature(query, keys, checkedNonces).catch(() => false))) return refuse(400, 'SENDER_NOT_ACCEPTED', 'The request is not signed by the keys the sending VASP publishes');
      } catch (error) {
        return asReply(error);
      }
      if (!customer) return refuse(404, 'UMA_NOT_FOUND', 'No receiver has this address');
      const { user } = parseUmaAddress(query.receiverAddress);
      const now = await deps.clock.now(platformId);
      const own = await deps.keys.keyPair(db, platformId, now);
      const currencyOptions = await currencyOptionsOf(platformId, customer.id);
      const response = await getLnurlpResponse({
        request: query,
        privateKeyBytes: own.privateKey,
        requiresTravelRuleInfo: false,
        callback: `${baseUrl(host)}/.well-known/uma/payreq/${encodeURIComponent(user)}`,
        encodedMetadata: metadata(query.receiverAddress),
        minSendableSats: 1,
        maxSendableSats: Number(DEFAULT_MAX),
        payerDataOptions: { identifier: { mandatory: true }, name: { mandatory: false }, compliance: { mandatory: true } },
        currencyOptions,
        receiverKycStatus: customer.kyc_status === 'APPROVED' ? KycStatus.Verified : KycStatus.Pending,
      });
      return { status: 200, body: JSON.parse(response.toJsonString()) as unknown };
    },

    /** POST /.well-known/uma/payreq/:user: a payment reference for exactly the amount asked, signed. */
    async payRequest(host: string, user: string, body: string): Promise<PeerReply> {
      const platformId = await platformFor(host);
      if (!platformId) return refuse(404, 'UMA_NOT_FOUND', 'This host is no UMA domain here');
      let request: PayRequest;
      try {
        request = PayRequest.fromJson(body);
      } catch {
        return refuse(400, 'INVALID_REQUEST_FORMAT', 'Not an UMA pay request');
      }
      const payer = request.payerData?.identifier;
      const compliance = request.payerData?.compliance as { signatureNonce?: string; signatureTimestamp?: number } | undefined;
      if (!payer || !compliance?.signatureNonce || compliance.signatureTimestamp === undefined || !request.receivingCurrencyCode) return refuse(400, 'MISSING_REQUIRED_UMA_PARAMETERS', 'The pay request lacks the payer, its signature or the currency');
      const address = `$${user}@${host.toLowerCase()}`;
      const customer = await customerAt(platformId, address);
      if (!customer) return refuse(404, 'UMA_NOT_FOUND', 'No receiver has this address');
      let senderDomain: string;
      try {
        senderDomain = parseUmaAddress(payer).domain;
        const keys = await deps.peers.keys(senderDomain);
        await deps.peers.freshAndNew(db, platformId, senderDomain, 'pay request', compliance.signatureNonce, compliance.signatureTimestamp);
        if (!(await verifyPayReqSignature(request, keys, checkedNonces).catch(() => false))) return refuse(400, 'SENDER_NOT_ACCEPTED', 'The pay request is not signed by the keys the sending VASP publishes');
      } catch (error) {
        return asReply(error);
      }
      const currency = request.receivingCurrencyCode;
      const account = (await accountsOf(platformId, customer.id)).find((a) => a.currency.code === currency);
      if (!account) return refuse(400, 'INVALID_CURRENCY', `The receiver does not accept ${currency}`);
      const amount = BigInt(Math.trunc(request.amount));
      const { min, max } = await limits(platformId, currency);
      if (request.sendingAmountCurrencyCode !== currency || amount < min || amount > max) return refuse(400, 'AMOUNT_OUT_OF_RANGE', `The receiver accepts between ${min} and ${max} ${currency} minor units, in ${currency}`);
      const now = await deps.clock.now(platformId);
      const own = await deps.keys.keyPair(db, platformId, now);
      const paymentId = newId('UmaPayment');
      await deps.incoming.record(db, { id: paymentId, platformId, customerId: customer.id, accountId: account.id, senderAddress: payer, senderDomain, amount, currency, at: now });
      const response = await getPayReqResponse({
        request,
        conversionRate: 1,
        receivingCurrencyCode: currency,
        receivingCurrencyDecimals: account.currency.decimals,
        invoiceCreator: { createUmaInvoice: () => Promise.resolve(paymentId) },
        metadata: metadata(address),
        receiverFeesMillisats: 0,
        receiverChannelUtxos: [],
        utxoCallback: '',
        payeeData: { identifier: address },
        receivingVaspPrivateKey: own.privateKey,
        payeeIdentifier: address,
      });
      return { status: 200, body: JSON.parse(response.toJsonString()) as unknown };
    },

    settle: (host: string, body: unknown) => settleIncoming(deps, platformFor, host, body),
  };
}

/**
 * POST /.well-known/uma/settle: the sending VASP says the money for one of our payment references
 * is sent. Idempotent by the reference: a second settlement answers as the first did.
 */
async function settleIncoming(deps: ReceiverDeps, platformFor: (host: string) => Promise<PlatformId | undefined>, host: string, body: unknown): Promise<PeerReply> {
  const platformId = await platformFor(host);
  if (!platformId) return refuse(404, 'UMA_NOT_FOUND', 'This host is no UMA domain here');
  const m = body as Partial<SettlementMessage> & { signature?: unknown };
  if (typeof m.paymentReference !== 'string' || typeof m.amount !== 'string' || typeof m.currency !== 'string' || typeof m.senderDomain !== 'string' || typeof m.nonce !== 'string' || typeof m.timestamp !== 'number' || typeof m.signature !== 'string') {
    return refuse(400, 'INVALID_REQUEST_FORMAT', 'Not a settlement message');
  }
  const message = m as SettlementMessage & { signature: string };
  try {
    const keys = await deps.peers.keys(message.senderDomain);
    await deps.peers.freshAndNew(deps.db, platformId, message.senderDomain, 'settlement', message.nonce, message.timestamp);
    if (!verifySignature(settlementPayload(message), message.signature, keys.getSigningPubKey())) return refuse(400, 'SENDER_NOT_ACCEPTED', 'The settlement is not signed by the keys the sending VASP publishes');
  } catch (error) {
    return asReply(error);
  }
  const now = await deps.clock.now(platformId);
  return runUnitOfWork(deps.db, { platformId, now, actor: { type: 'HOSTED_PAGE' } }, (uow: UnitOfWork) => deps.incoming.settle(uow, message.paymentReference as UmaPaymentId, message));
}
