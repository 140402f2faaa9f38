import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import { createStamp } from '../../packages/server/src/crypto/stamp.js';
import { inParallel, type Measurement, type Row } from '../lib/load.js';
import { call, type Server } from '../lib/server.js';
import { API, CONNECTIONS, progress, QUOTE_SENDING_MINOR, WALLET_QUOTES } from '../lib/settings.js';
import { clabeAccountInfo } from '../lib/setup.js';

/**
 * Quote executions from embedded wallets (each with a real stamp over its payloadToSign, made by the
 * session key of an OTP login) beside the same executions from ordinary accounts (no signature): the
 * cost of the signature check on the money path. Each quote executes once: WALLET_QUOTES of each.
 */
export async function benchWalletExecutions(label: string, server: Server, notes: string[]): Promise<Row[]> {
  const holders = 10;
  await call(server, label, { method: 'PATCH', path: '/config', body: { embeddedWalletConfig: { appName: 'Bench Wallet', walletCurrency: 'USD' } }, expect: 200 });
  const { publicKey: signer } = await call<{ publicKey: string }>(server, label, { method: 'GET', path: '/auth/bundle-signing-key', expect: 200 });
  progress(`[${label}] wallets: ${holders} customers with a USD wallet, each signed in with an emailed code`);
  const wallets = await inParallel(4, Array.from({ length: holders }, (_, i) => i), async (i) => {
    const customer = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers', body: { customerType: 'INDIVIDUAL', platformCustomerId: `bench-wallet-${i}`, region: 'US', email: `bench${i}@wallet.test`, fullName: `Wallet Bench ${i}` }, expect: 201 });
    const accounts = await call<{ data: { id: string; type: string }[] }>(server, label, { method: 'GET', path: `/internal-account?customerId=${encodeURIComponent(customer.id)}`, expect: 200 });
    const wallet = accounts.data.find((a) => a.type === 'EMBEDDED_WALLET')!.id;
    const ordinary = accounts.data.find((a) => a.type === 'INTERNAL_FIAT')!.id;
    for (const account of [wallet, ordinary]) await call(server, label, { method: 'POST', path: `/sandbox/internal-accounts/${account}/fund`, body: { amount: 1_000_000_000 }, expect: 200 });
    const clabe = await call<{ id: string }>(server, label, { method: 'POST', path: '/customers/external-accounts', body: { customerId: customer.id, currency: 'MXN', accountInfo: clabeAccountInfo(900 + i) }, expect: 201 });
    const credential = (await call<{ data: { id: string }[] }>(server, label, { method: 'GET', path: `/auth/credentials?accountId=${encodeURIComponent(wallet)}`, expect: 200 })).data[0]!.id;
    const { otpEncryptionTargetBundle } = await call<{ otpEncryptionTargetBundle: string }>(server, label, { method: 'POST', path: `/auth/credentials/${credential}/challenge`, body: {}, expect: 200 });
    const key = generateP256KeyPair();
    const body = { type: 'EMAIL_OTP', encryptedOtpBundle: await encryptOtpCodeToBundle('000000', otpEncryptionTargetBundle, key.publicKey, signer) };
    const first = await call<{ payloadToSign: string; requestId: string }>(server, label, { method: 'POST', path: `/auth/credentials/${credential}/verify`, body, expect: 202 });
    const response = await fetch(`${server.base}${API}/auth/credentials/${credential}/verify`, {
      method: 'POST',
      headers: { authorization: server.authorization, 'content-type': 'application/json', 'service-wallet-signature': createStamp(key.privateKey, first.payloadToSign), 'request-id': first.requestId },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`[${label}] wallet login answered ${response.status}: ${await response.text()}`);
    return { wallet, ordinary, clabe: clabe.id, key };
  });

  const quoteFrom = async (account: string, clabe: string) =>
    call<{ id: string; paymentInstructions?: { accountOrWalletInfo: { payloadToSign?: string } }[] }>(server, label, {
      method: 'POST',
      path: '/quotes',
      body: { source: { sourceType: 'ACCOUNT', accountId: account }, destination: { destinationType: 'ACCOUNT', accountId: clabe }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: Number(QUOTE_SENDING_MINOR) },
      expect: 201,
    });
  progress(`[${label}] wallets: ${WALLET_QUOTES} quotes from wallets (stamped) and ${WALLET_QUOTES} from ordinary accounts`);
  const signed = await inParallel(8, Array.from({ length: WALLET_QUOTES }, (_, i) => wallets[i % holders]!), async (w) => {
    const quote = await quoteFrom(w.wallet, w.clabe);
    return { path: `${API}/quotes/${quote.id}/execute`, stamp: createStamp(w.key.privateKey, quote.paymentInstructions![0]!.accountOrWalletInfo.payloadToSign!) };
  });
  const unsigned = await inParallel(8, Array.from({ length: WALLET_QUOTES }, (_, i) => wallets[i % holders]!), async (w) => ({ path: `${API}/quotes/${(await quoteFrom(w.ordinary, w.clabe)).id}/execute`, stamp: undefined }));

  const executions = (queue: { path: string; stamp: string | undefined }[]): autocannon.Options => {
    let next = 0;
    return {
      url: server.base,
      amount: queue.length,
      requests: [
        {
          method: 'POST',
          setupRequest: (request) => {
            const item = queue[next++ % queue.length]!;
            return { ...request, path: item.path, headers: { authorization: server.authorization, ...(item.stamp ? { 'service-wallet-signature': item.stamp } : {}) } };
          },
        },
      ],
    };
  };
  // Each quote executes once: no warm-up (it would spend quotes), a count instead of a duration.
  const measureOnce = async (scenario: string, options: autocannon.Options): Promise<Measurement> => {
    progress(`[${label}] ${scenario}: ${options.amount} requests with ${CONNECTIONS} connections`);
    const started = performance.now();
    let lastAnswer = started;
    const result = await autocannon({ connections: CONNECTIONS, timeout: 30, ...options }).on('response', () => {
      lastAnswer = performance.now();
    });
    const failures = result.non2xx + result.errors + result.timeouts;
    // autocannon counts whole seconds, and a run of a given count ends on its next tick: a run of a
    // few hundred requests is timed here, from its start to its last answer.
    const reqPerSec = result['2xx'] / ((lastAnswer - started) / 1000);
    progress(`[${label}] ${scenario}: ${Math.round(reqPerSec)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${failures ? `, ${failures} FAILED (${JSON.stringify(result.statusCodeStats)})` : ''}`);
    return { database: label, scenario, reqPerSec, p50: result.latency.p50, p99: result.latency.p99, failures, fractional: false };
  };
  const plain = await measureOnce(`quote execute, unsigned (${WALLET_QUOTES} quotes)`, executions(unsigned));
  const stamped = await measureOnce(`quote execute from a wallet, stamped (${WALLET_QUOTES} quotes)`, executions(signed));
  notes.push(`- Wallet executions (${label}): ${WALLET_QUOTES} pre-made quotes per scenario (USD ${QUOTE_SENDING_MINOR} cents to MXN, over ${holders} customers), each executed once; the stamped ones from the customers' embedded wallets with a real P-256 stamp by an OTP session key, compared with the same executions from their ordinary USD accounts.`);
  return [{ ...stamped, ceiling: plain }, plain];
}
