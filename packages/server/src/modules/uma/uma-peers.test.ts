import { createServer, type Server } from 'node:http';
import { Currency, getLnurlpResponse, getPayReqResponse, getSignedLnurlpRequestUrl, KycStatus, LnurlpResponse, parseLnurlpRequest, PayRequest, PubKeyResponse, signPayload } from '@uma-sdk/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectErrorShape, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import { generateSecp256k1 } from '../../crypto/secp256k1.js';

/**
 * Counterparties that misbehave. A tiny VASP on loopback plays the other side with its own keys,
 * answering as told: unreachable, a signature by another key, a replayed nonce, a stale
 * timestamp, keys that cannot be read, another UMA version, garbage, a pay request answered for
 * another amount. Each is refused with the spec's code, and nothing moves. The other way round,
 * a sending VASP that signs badly, replays or is late is refused by our public endpoints.
 */

type Mode =
  | 'good'
  | 'foreign-signature'
  | 'replay'
  | 'stale'
  | 'keys-down'
  | 'keys-garbage'
  | 'version-2'
  | 'answers-412'
  | 'garbage'
  | 'payreq-500'
  | 'payreq-wrong-amount'
  | 'payreq-foreign-signature';

const keyPair = generateSecp256k1;

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;
let peer: Server;
let peerDomain: string;
let mode: Mode = 'good';
let lastLnurlp: string | undefined;
const peerKeys = keyPair();
const otherKeys = keyPair();

async function answer(url: URL, body: string): Promise<{ status: number; body: string }> {
  if (url.pathname === '/.well-known/lnurlpubkey') {
    if (mode === 'keys-down') return { status: 500, body: 'down' };
    if (mode === 'keys-garbage') return { status: 200, body: JSON.stringify({ signingPubKey: 'abcd', encryptionPubKey: 'abcd' }) };
    return { status: 200, body: new PubKeyResponse(undefined, undefined, peerKeys.publicKey, peerKeys.publicKey).toJsonString() };
  }
  if (url.pathname.startsWith('/.well-known/lnurlp/')) {
    if (mode === 'answers-412') return { status: 412, body: JSON.stringify({ status: 'ERROR', reason: 'version', supportedMajorVersions: [2] }) };
    if (mode === 'garbage') return { status: 200, body: '<html>not uma</html>' };
    if (mode === 'replay' && lastLnurlp) return { status: 200, body: lastLnurlp };
    const request = parseLnurlpRequest(url);
    const response = await getLnurlpResponse({
      request,
      privateKeyBytes: mode === 'foreign-signature' ? otherKeys.privateKey : peerKeys.privateKey,
      requiresTravelRuleInfo: false,
      callback: `http://${peerDomain}/.well-known/uma/payreq/bob`,
      encodedMetadata: JSON.stringify([['text/plain', 'Pay bob']]),
      minSendableSats: 1,
      maxSendableSats: 1_000_000,
      payerDataOptions: { identifier: { mandatory: true }, compliance: { mandatory: true } },
      currencyOptions: [new Currency('USD', 'US Dollar', '$', 1, 1, 1_000_000, 2)],
      receiverKycStatus: KycStatus.Verified,
    });
    const json = JSON.parse(response.toJsonString()) as { umaVersion: string; compliance: { signatureTimestamp: number; signatureNonce: string; signature: string } };
    if (mode === 'version-2') json.umaVersion = '2.0';
    if (mode === 'stale') {
      // Properly signed, an hour ago.
      json.compliance.signatureTimestamp -= 3600;
      json.compliance.signature = await signPayload(`${request.receiverAddress}|${json.compliance.signatureNonce}|${json.compliance.signatureTimestamp}`, peerKeys.privateKey);
    }
    lastLnurlp = JSON.stringify(json);
    return { status: 200, body: lastLnurlp };
  }
  if (url.pathname.startsWith('/.well-known/uma/payreq/')) {
    if (mode === 'payreq-500') return { status: 500, body: 'boom' };
    const request = PayRequest.fromJson(body);
    const response = await getPayReqResponse({
      request,
      conversionRate: 1,
      receivingCurrencyCode: 'USD',
      receivingCurrencyDecimals: 2,
      invoiceCreator: { createUmaInvoice: () => Promise.resolve('peer-reference-1') },
      metadata: '[]',
      receiverFeesMillisats: 0,
      receiverChannelUtxos: [],
      utxoCallback: '',
      payeeData: { identifier: `$bob@${peerDomain}` },
      receivingVaspPrivateKey: mode === 'payreq-foreign-signature' ? otherKeys.privateKey : peerKeys.privateKey,
      payeeIdentifier: `$bob@${peerDomain}`,
    });
    const json = JSON.parse(response.toJsonString()) as { converted: { amount: number } };
    if (mode === 'payreq-wrong-amount') json.converted.amount += 1;
    return { status: 200, body: JSON.stringify(json) };
  }
  return { status: 404, body: '{}' };
}

beforeAll(async () => {
  peer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      answer(new URL(`http://${req.headers.host}${req.url}`), Buffer.concat(chunks).toString())
        .then(({ status, body }) => res.writeHead(status, { 'content-type': 'application/json' }).end(body))
        // What failed goes back in the body: the server's 424 names it, and so a failed expectation does.
        .catch((error: unknown) => res.writeHead(500).end(JSON.stringify({ status: 'ERROR', reason: `peer failed: ${error instanceof Error ? error.message : String(error)}` })));
    });
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  peerDomain = `127.0.0.1:${(peer.address() as { port: number }).port}`;
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
  expect((await t.api(p, 'PATCH', '/config', { umaDomain: 'moneta.test' })).status).toBe(200);
});

afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => peer?.close(resolve));
});

async function sender(name: string, fund = 0) {
  return f.customerWithAccount('USD', fund, name);
}

const lookup = (address: string, customerId: string) => t.api(p, 'GET', `/receiver/uma/${encodeURIComponent(address)}?customerId=${customerId}`);

async function refusedWith(status: number, code: string, customerId: string, address = `$bob@${peerDomain}`): Promise<Record<string, unknown>> {
  const res = await lookup(address, customerId);
  expect(res.status, res.text).toBe(status);
  const error = expectErrorShape(res);
  expect(error.code).toBe(code);
  return error.details ?? {};
}

describe('a misbehaving receiving VASP', () => {
  it('a well-behaved peer is looked up (the baseline the other cases break)', async () => {
    mode = 'good';
    const { customerId } = await sender('Basil Baseline');
    const res = await lookup(`$bob@${peerDomain}`, customerId);
    expect(res.status, res.text).toBe(200);
  });

  it('a response signed by a key the peer does not publish is 400 CERT_CHAIN_INVALID', async () => {
    mode = 'foreign-signature';
    await refusedWith(400, 'CERT_CHAIN_INVALID', (await sender('Cert Chain')).customerId);
  });

  it('a response replayed with a nonce already seen is 400 INVALID_NONCE', async () => {
    const { customerId } = await sender('Rene Replay');
    mode = 'good';
    expect((await lookup(`$bob@${peerDomain}`, customerId)).status).toBe(200);
    mode = 'replay';
    await refusedWith(400, 'INVALID_NONCE', customerId);
  });

  it('a response properly signed an hour ago is 400 INVALID_TIMESTAMP', async () => {
    mode = 'stale';
    await refusedWith(400, 'INVALID_TIMESTAMP', (await sender('Stella Stale')).customerId);
  });

  it('keys that cannot be fetched are 424 COUNTERPARTY_PUBKEY_FETCH_ERROR; keys that cannot be read 400 INVALID_PUBKEY_FORMAT', async () => {
    const { customerId } = await sender('Kees Keys');
    mode = 'keys-down';
    await refusedWith(424, 'COUNTERPARTY_PUBKEY_FETCH_ERROR', customerId);
    mode = 'keys-garbage';
    await refusedWith(400, 'INVALID_PUBKEY_FORMAT', customerId);
  });

  it('another major version is 424 NO_COMPATIBLE_UMA_VERSION; a peer answering 412 is 412 UNSUPPORTED_UMA_VERSION; garbage is 400 PARSE_LNURLP_RESPONSE_ERROR', async () => {
    const { customerId } = await sender('Vera Version');
    mode = 'version-2';
    await refusedWith(424, 'NO_COMPATIBLE_UMA_VERSION', customerId);
    mode = 'answers-412';
    expect(await refusedWith(412, 'UNSUPPORTED_UMA_VERSION', customerId)).toMatchObject({ supportedMajorVersions: [2] });
    mode = 'garbage';
    await refusedWith(400, 'PARSE_LNURLP_RESPONSE_ERROR', customerId);
  });

  it('a VASP nobody answers at is 424 LNURLP_REQUEST_FAILED; the sender’s own address is 400 SELF_PAYMENT', async () => {
    const { customerId } = await sender('Una Unreachable');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await refusedWith(424, 'LNURLP_REQUEST_FAILED', customerId, `$bob@127.0.0.1:${port}`);
    const me = await t.api<{ umaAddress: string }>(p, 'GET', `/customers/${customerId}`);
    await refusedWith(400, 'SELF_PAYMENT', customerId, me.body.umaAddress);
  });

  it('a pay request the peer fails, answers for another amount or signs with another key creates no quote and moves nothing', async () => {
    const { accountId } = await sender('Petra Payreq', 10_000);
    const quote = () =>
      t.api(p, 'POST', '/quotes', {
        source: { sourceType: 'ACCOUNT', accountId },
        destination: { destinationType: 'UMA_ADDRESS', umaAddress: `$bob@${peerDomain}` },
        lockedCurrencySide: 'RECEIVING',
        lockedCurrencyAmount: 1_000,
        immediatelyExecute: true,
      });
    for (const [m, status, code] of [
      ['payreq-500', 424, 'PAYREQ_REQUEST_FAILED'],
      ['payreq-wrong-amount', 400, 'INVALID_PAYREQ_RESPONSE'],
      ['payreq-foreign-signature', 400, 'CERT_CHAIN_INVALID'],
    ] as const) {
      mode = m;
      const res = await quote();
      expect(res.status, `${m}: ${res.text}`).toBe(status);
      expect(expectErrorShape(res).code).toBe(code);
    }
    expect(await f.balance(accountId)).toBe(10_000);
    mode = 'good';
    const paid = await quote();
    expect(paid.status, paid.text).toBe(201);
  });
});

describe('our public endpoints refuse a misbehaving sending VASP', () => {
  let bobAddress: string;

  beforeAll(async () => {
    const bob = await t.api<{ umaAddress: string }>(p, 'POST', '/customers', { customerType: 'INDIVIDUAL', fullName: 'Bob Here', currencies: ['USD'], umaAddress: '$bob@moneta.test' });
    expect(bob.status, bob.text).toBe(201);
    bobAddress = bob.body.umaAddress;
  });

  /** A lookup request as the loopback VASP sends it (its domain, its key or another), to our host moneta.test. */
  async function ask(signingKey: Buffer, tamper?: (url: URL) => void) {
    const url = await getSignedLnurlpRequestUrl({ isSubjectToTravelRule: true, receiverAddress: bobAddress, senderVaspDomain: peerDomain, signingPrivateKey: signingKey });
    tamper?.(url);
    return t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { host: 'moneta.test' } });
  }

  it('a signed request is answered with a signed LNURL-p response naming bob', async () => {
    mode = 'good';
    const res = await ask(peerKeys.privateKey);
    expect(res.statusCode, res.body).toBe(200);
    const response = LnurlpResponse.fromJson(res.body);
    expect(response.compliance?.receiverIdentifier).toBe(bobAddress);
    expect(response.currencies?.map((c) => c.code)).toEqual(['USD']);
    const keys = await t.app.inject({ method: 'GET', url: '/.well-known/lnurlpubkey', headers: { host: 'moneta.test' } });
    expect(keys.statusCode).toBe(200);
    expect(PubKeyResponse.fromJson(keys.body).getSigningPubKey()).toHaveLength(65);
  });

  it('a request signed by another key is refused SENDER_NOT_ACCEPTED, a replayed one INVALID_NONCE, a stale one INVALID_TIMESTAMP', async () => {
    mode = 'good';
    const foreign = await ask(otherKeys.privateKey);
    expect(foreign.statusCode).toBe(400);
    expect(JSON.parse(foreign.body)).toMatchObject({ status: 'ERROR', code: 'SENDER_NOT_ACCEPTED' });

    const url = await getSignedLnurlpRequestUrl({ isSubjectToTravelRule: true, receiverAddress: bobAddress, senderVaspDomain: peerDomain, signingPrivateKey: peerKeys.privateKey });
    const first = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { host: 'moneta.test' } });
    expect(first.statusCode).toBe(200);
    const again = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: { host: 'moneta.test' } });
    expect(again.statusCode).toBe(400);
    expect(JSON.parse(again.body)).toMatchObject({ code: 'INVALID_NONCE' });

    const stale = await ask(peerKeys.privateKey, (u) => u.searchParams.set('timestamp', String(Math.floor(Date.now() / 1000) - 3600)));
    expect(stale.statusCode).toBe(400);
    expect(JSON.parse(stale.body)).toMatchObject({ code: 'INVALID_TIMESTAMP' });
  });

  it('an unknown user is 404, another UMA version 412', async () => {
    const unknown = await getSignedLnurlpRequestUrl({ isSubjectToTravelRule: true, receiverAddress: '$nobody@moneta.test', senderVaspDomain: peerDomain, signingPrivateKey: peerKeys.privateKey });
    const missing = await t.app.inject({ method: 'GET', url: `${unknown.pathname}${unknown.search}`, headers: { host: 'moneta.test' } });
    expect(missing.statusCode, missing.body).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ status: 'ERROR', code: 'UMA_NOT_FOUND' });
    const versioned = await ask(peerKeys.privateKey, (u) => u.searchParams.set('umaVersion', '2.0'));
    expect(versioned.statusCode).toBe(412);
    expect(JSON.parse(versioned.body)).toMatchObject({ code: 'UNSUPPORTED_UMA_VERSION', supportedMajorVersions: [1] });
  });
});
