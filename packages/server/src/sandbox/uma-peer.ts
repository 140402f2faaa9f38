import { randomUUID } from 'node:crypto';
import { Currency, getLnurlpResponse, getPayReqResponse, KycStatus, parseLnurlpRequest, PayRequest, PubKeyResponse } from '@uma-sdk/core';
import { currencyOf } from '../lib/currencies.js';
import { generateSecp256k1 } from '../crypto/secp256k1.js';

/**
 * The sandbox's test VASP: the reference's test addresses (`$success.usd@sandbox.grid.uma.money`,
 * and `sandbox.uma.money` alike) answered in process, without a network, by a VASP that speaks the
 * same signed UMA messages a real one does (its own key, made per process). The user name picks
 * the outcome and the suffix the currency:
 *
 *   $success.<ccy>      accepts, and credits at settlement
 *   $fail.<ccy>         accepts the pay request, refuses the settlement (the sender is refunded)
 *   $slow.<ccy>         accepts; its settlement answers 202 (not yet) twice, then credits
 *   $limits.<ccy>       accepts between 10.00 and 1,000.00 (AMOUNT_OUT_OF_RANGE outside)
 *   $notaccepted.<ccy>  refuses the sender (SENDER_NOT_ACCEPTED)
 *   anything else       404 (UMA_NOT_FOUND)
 *
 * As a sender (POST /sandbox/uma/receive): `$success.<ccy>` pays at once, `$pending.<ccy>` waits
 * for the platform's approve or reject.
 */
export const SANDBOX_UMA_DOMAINS = ['sandbox.grid.uma.money', 'sandbox.uma.money'];

type Outcome = 'success' | 'fail' | 'slow' | 'limits' | 'notaccepted';
const OUTCOMES = new Set<Outcome>(['success', 'fail', 'slow', 'limits', 'notaccepted']);

function parseUser(user: string): { outcome: Outcome; currency: string } | undefined {
  const [outcome, code] = user.replace(/^\$/, '').split('.');
  const currency = code?.toUpperCase();
  if (!outcome || !currency || !OUTCOMES.has(outcome as Outcome) || !currencyOf(currency)) return undefined;
  return { outcome: outcome as Outcome, currency };
}

/** What a sandbox address does when it sends (POST /sandbox/uma/receive); undefined: not a sandbox sender. */
export function sandboxUmaSender(address: string): 'pay' | 'await-approval' | undefined {
  const match = /^\$(success|pending)\.([a-z]{3,4})@(.+)$/i.exec(address);
  if (!match || !SANDBOX_UMA_DOMAINS.includes(match[3]!.toLowerCase()) || !currencyOf(match[2]!.toUpperCase())) return undefined;
  return match[1]!.toLowerCase() === 'pending' ? 'await-approval' : 'pay';
}

const json = (status: number, body: unknown) => ({ status, text: typeof body === 'string' ? body : JSON.stringify(body) });
const error = (status: number, code: string, reason: string) => json(status, { status: 'ERROR', code, reason });

export function createSandboxUmaPeer() {
  const { privateKey, publicKey } = generateSecp256k1();
  /** Settlement attempts by reference ($slow answers 202 twice). */
  const attempts = new Map<string, number>();

  function limits(outcome: Outcome): { min: number; max: number } {
    return outcome === 'limits' ? { min: 1_000, max: 100_000 } : { min: 1, max: 1_000_000_000 };
  }

  async function lnurlp(url: URL) {
    const request = parseLnurlpRequest(url);
    const parsed = parseUser(request.receiverAddress.split('@')[0]!);
    if (!parsed) return error(404, 'UMA_NOT_FOUND', 'No such sandbox receiver');
    if (parsed.outcome === 'notaccepted') return error(400, 'SENDER_NOT_ACCEPTED', 'This sandbox receiver accepts no sender');
    const c = currencyOf(parsed.currency)!;
    const { min, max } = limits(parsed.outcome);
    const response = await getLnurlpResponse({
      request,
      privateKeyBytes: privateKey,
      requiresTravelRuleInfo: false,
      callback: `https://${url.host}/.well-known/uma/payreq/${request.receiverAddress.split('@')[0]!.replace(/^\$/, '')}`,
      encodedMetadata: JSON.stringify([['text/plain', `Pay ${request.receiverAddress}`]]),
      minSendableSats: 1,
      maxSendableSats: 1_000_000_000,
      payerDataOptions: { identifier: { mandatory: true }, name: { mandatory: false }, compliance: { mandatory: true } },
      currencyOptions: [new Currency(c.code, c.name, c.symbol, 1, min, max, c.decimals)],
      receiverKycStatus: KycStatus.Verified,
    });
    return json(200, response.toJsonString());
  }

  async function payRequest(url: URL, body: string) {
    const user = decodeURIComponent(url.pathname.split('/').pop()!);
    const parsed = parseUser(user);
    if (!parsed) return error(404, 'UMA_NOT_FOUND', 'No such sandbox receiver');
    const request = PayRequest.fromJson(body);
    const { min, max } = limits(parsed.outcome);
    if (request.receivingCurrencyCode !== parsed.currency || request.amount < min || request.amount > max) return error(400, 'AMOUNT_OUT_OF_RANGE', `Between ${min} and ${max} ${parsed.currency}`);
    const address = `$${user}@${url.host}`;
    const reference = `sandbox:${parsed.outcome}:${randomUUID()}`;
    const response = await getPayReqResponse({
      request,
      conversionRate: 1,
      receivingCurrencyCode: parsed.currency,
      receivingCurrencyDecimals: currencyOf(parsed.currency)!.decimals,
      invoiceCreator: { createUmaInvoice: () => Promise.resolve(reference) },
      metadata: JSON.stringify([['text/plain', `Pay ${address}`]]),
      receiverFeesMillisats: 0,
      receiverChannelUtxos: [],
      utxoCallback: '',
      payeeData: { identifier: address },
      receivingVaspPrivateKey: privateKey,
      payeeIdentifier: address,
    });
    return json(200, response.toJsonString());
  }

  function settle(body: string) {
    const { paymentReference } = JSON.parse(body) as { paymentReference?: string };
    const outcome = paymentReference?.split(':')[1];
    if (!paymentReference?.startsWith('sandbox:') || !outcome) return error(404, 'REFERENCE_NOT_FOUND', 'No such sandbox payment');
    if (outcome === 'fail') return error(409, 'CONFLICT', 'The sandbox receiver refuses this payment');
    const tries = (attempts.get(paymentReference) ?? 0) + 1;
    attempts.set(paymentReference, tries);
    if (outcome === 'slow' && tries <= 2) return json(202, { status: 'PENDING' });
    return json(200, { status: 'COMPLETED' });
  }

  return {
    serves: (domain: string) => SANDBOX_UMA_DOMAINS.includes(domain.toLowerCase()),
    async request(url: URL, init: { method: 'GET' | 'POST'; body?: string }): Promise<{ status: number; text: string }> {
      try {
        if (url.pathname === '/.well-known/lnurlpubkey') return json(200, new PubKeyResponse(undefined, undefined, publicKey, publicKey).toJsonString());
        if (url.pathname.startsWith('/.well-known/lnurlp/')) return await lnurlp(url);
        if (url.pathname.startsWith('/.well-known/uma/payreq/') && init.method === 'POST') return await payRequest(url, init.body ?? '');
        if (url.pathname === '/.well-known/uma/settle' && init.method === 'POST') return settle(init.body ?? '');
        return error(404, 'NOT_FOUND', 'Not an UMA endpoint');
      } catch {
        return error(400, 'INVALID_REQUEST_FORMAT', 'The sandbox VASP could not read the request');
      }
    },
  };
}
