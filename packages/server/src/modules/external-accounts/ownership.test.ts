import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { ripemd160 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base58, bech32, bech32m, createBase58check } from '@scure/base';
import bitcoinMessage from 'bitcoinjs-message';
import { concat, hexToBytes, keccak256, toBytes } from 'viem';
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type ApiResponse, type TestApp, type TestPlatform } from '../../../../../test/harness.js';
import { paymentFixtures } from '../../../../../test/payments-fixtures.js';
import type { ApiError, ExternalAccount, Quote } from '../../../../../test/wire-types.js';
import { listEvents } from '../../core/outbox.js';
import { usBankAccount } from './fixtures.js';

// Issue 22: self-custody wallets prove whose they are (a signature over our message, or a liveness
// check), are not paid until they have, and the reference's new wallet and account fields.

let t: TestApp;
let p: TestPlatform;
let f: ReturnType<typeof paymentFixtures>;
beforeAll(async () => {
  t = await createTestApp();
  p = t.platform;
  f = paymentFixtures(t, p);
});
afterAll(async () => t?.close());

type Owner = 'customer' | 'platform';
interface Challenge {
  method: string;
  messageToSign?: string;
  verificationLink?: string;
  expiresAt: string;
}

const base = (owner: Owner) => (owner === 'customer' ? '/customers/external-accounts' : '/platform/external-accounts');
const btcCheck = createBase58check(sha256);
const hash160 = (data: Uint8Array) => ripemd160(sha256(data));

let customerId: string;
beforeAll(async () => {
  customerId = (await f.customerWithAccount('USD', 0, 'Wanda Wallet')).customerId;
});

async function createWallet(owner: Owner, accountInfo: Record<string, unknown>, extra: Record<string, unknown> = {}, who: TestPlatform = p, currency = 'USDC'): Promise<ApiResponse<ExternalAccount>> {
  const body = { ...(owner === 'customer' ? { customerId } : {}), currency, accountInfo, ...extra };
  return t.api<ExternalAccount>(who, 'POST', base(owner), body);
}

/** A FIRST_PARTY self-custody wallet: it starts PENDING_OWNERSHIP_VERIFICATION. */
async function selfCustody(owner: Owner, accountType: string, address: string, currency = 'USDC'): Promise<ExternalAccount> {
  const res = await createWallet(owner, { accountType, address }, { ownershipType: 'FIRST_PARTY' }, p, currency);
  expect(res.status, res.text).toBe(201);
  expect(res.body).toMatchObject({ status: 'PENDING_OWNERSHIP_VERIFICATION', ownershipType: 'FIRST_PARTY' });
  return res.body;
}

const challenge = (owner: Owner, id: string, method = 'WALLET_SIGNATURE', who: TestPlatform = p) => t.api<Challenge>(who, 'POST', `${base(owner)}/${id}/challenge`, { method });
const verify = (owner: Owner, id: string, signature: string, extra: Record<string, unknown> = {}, who: TestPlatform = p) =>
  t.api<ExternalAccount>(who, 'POST', `${base(owner)}/${id}/verify`, { signature, ...extra });
const statusOf = async (owner: Owner, id: string) => (await t.api<ExternalAccount>(p, 'GET', `${base(owner)}/${id}`)).body.status;

async function messageFor(owner: Owner, id: string): Promise<string> {
  const res = await challenge(owner, id);
  expect(res.status, res.text).toBe(201);
  expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'messageToSign', 'method']);
  return res.body.messageToSign!;
}

/** The sandbox's liveness verdict. */
function liveness(id: string, result: string, who: TestPlatform = p) {
  return t.api<ExternalAccount & ApiError>(who, 'POST', `/sandbox/external-accounts/${id}/liveness`, { result });
}

/** The statuses EXTERNAL_ACCOUNT.STATUS_UPDATED announced for an account, in order. */
async function announced(id: string, who: TestPlatform = p): Promise<string[]> {
  const events = await listEvents(t.database.db, who.id, 'EXTERNAL_ACCOUNT.STATUS_UPDATED');
  return events.filter((e) => (e.data as { id: string }).id === id).map((e) => (e.data as ExternalAccount).status);
}

function evmWallet() {
  return privateKeyToAccount(generatePrivateKey());
}

/** A Bitcoin key and its P2PKH, P2SH-P2WPKH and P2WPKH addresses (mainnet). */
function bitcoinKey() {
  const privateKey = randomBytes(32);
  const keyHash = hash160(secp256k1.getPublicKey(privateKey, true));
  return {
    privateKey,
    p2pkh: btcCheck.encode(Uint8Array.from([0x00, ...keyHash])),
    p2shP2wpkh: btcCheck.encode(Uint8Array.from([0x05, ...hash160(Uint8Array.from([0x00, 0x14, ...keyHash]))])),
    p2wpkh: bech32.encode('bc', [0, ...bech32.toWords(keyHash)]),
  };
}

describe('wallet accounts: ownershipType, vaspName and beneficiary', () => {
  it('a wallet created as before (no ownershipType) is ACTIVE at once, and paid as before', async () => {
    const { customerId: payer, accountId } = await f.customerWithAccount('USD', 100_000, 'Olga Oldclient');
    const wallet = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId: payer, currency: 'USDC', accountInfo: { accountType: 'ETHEREUM_WALLET', address: evmWallet().address } });
    expect(wallet.status, wallet.text).toBe(201);
    expect(wallet.body.status).toBe('ACTIVE');
    expect(wallet.body.ownershipType).toBeUndefined();
    const quote = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, wallet.body.id));
    expect(quote.status, quote.text).toBe(201);
  });

  it('custodial (vaspName, spelled as GET /vasps does) or THIRD_PARTY wallets need no proof; a FIRST_PARTY self-custody one does', async () => {
    const custodial = await createWallet('customer', { accountType: 'BASE_WALLET', address: evmWallet().address, vaspName: 'kraken' }, { ownershipType: 'FIRST_PARTY' });
    expect(custodial.status, custodial.text).toBe(201);
    expect(custodial.body).toMatchObject({ status: 'ACTIVE', accountInfo: { vaspName: 'Kraken' } });
    const thirdParty = await createWallet('customer', { accountType: 'BASE_WALLET', address: evmWallet().address, beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Other Co' } }, { ownershipType: 'THIRD_PARTY' });
    expect(thirdParty.body).toMatchObject({ status: 'ACTIVE', ownershipType: 'THIRD_PARTY', accountInfo: { beneficiary: { legalName: 'Other Co' } } });
    const own = await selfCustody('platform', 'POLYGON_WALLET', evmWallet().address);
    expect((await t.api<ExternalAccount>(p, 'GET', `/platform/external-accounts/${own.id}`)).body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
  });

  it('refuses an unknown VASP, a vaspName on a bank account, and an individual wallet beneficiary without a country of residence, all at once', async () => {
    const res = await createWallet('customer', { accountType: 'SOLANA_WALLET', address: base58.encode(randomBytes(32)), vaspName: 'Mt. Gox', beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ann Onchain' } });
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['accountInfo.beneficiary.countryOfResidence']);
    const unknown = await createWallet('customer', { accountType: 'SOLANA_WALLET', address: base58.encode(randomBytes(32)), vaspName: 'Mt. Gox' });
    expect(fieldsOf(unknown)).toEqual(['accountInfo.vaspName']);
    const bank = await t.api(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: { ...usBankAccount(), vaspName: 'Kraken' } });
    expect(fieldsOf(bank)).toEqual(['accountInfo.vaspName']);
    const individual = await createWallet('customer', { accountType: 'SOLANA_WALLET', address: base58.encode(randomBytes(32)), beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Ann Onchain', countryOfResidence: 'DE' } });
    expect(individual.status, individual.text).toBe(201);
    const badOwnership = await createWallet('customer', { accountType: 'SOLANA_WALLET', address: base58.encode(randomBytes(32)) }, { ownershipType: 'MINE' });
    expect(fieldsOf(badOwnership)).toEqual(['ownershipType']);
  });
});

function quoteBody(sourceAccountId: string, destinationAccountId: string) {
  return { source: { sourceType: 'ACCOUNT', accountId: sourceAccountId }, destination: { destinationType: 'ACCOUNT', accountId: destinationAccountId }, lockedCurrencySide: 'SENDING', lockedCurrencyAmount: 10_000 };
}

function fieldsOf(res: ApiResponse<unknown>): string[] {
  return ((res.body as ApiError).details?.errors ?? []).map((e) => e.field).sort();
}

describe('proving ownership with a wallet signature', () => {
  it('EVM (EIP-191 personal_sign): the message names the platform, account, address, a nonce and the expiry; the right signature makes the account ACTIVE', async () => {
    for (const [owner, accountType] of [['customer', 'ETHEREUM_WALLET'], ['platform', 'BASE_WALLET'], ['customer', 'PLASMA_WALLET']] as const) {
      const signer = evmWallet();
      const account = await selfCustody(owner, accountType, signer.address);
      const res = await challenge(owner, account.id);
      expect(res.status, res.text).toBe(201);
      const message = res.body.messageToSign!;
      for (const part of [p.id, account.id, signer.address]) expect(message).toContain(part);
      expect(message).toMatch(/Nonce: [0-9a-f]{32}/);
      expect(message).toContain(`Expires at: ${res.body.expiresAt}`);
      const done = await verify(owner, account.id, await signer.signMessage({ message }));
      expect(done.status, done.text).toBe(200);
      expect(done.body).toMatchObject({ id: account.id, status: 'ACTIVE' });
      expect(await statusOf(owner, account.id)).toBe('ACTIVE');
      expect(await announced(account.id)).toEqual(['ACTIVE']);
      // Verified: a new challenge is refused, and with none open so is a signature.
      expect(errorOf(await challenge(owner, account.id))).toBe('CONFLICT OWNERSHIP_ALREADY_VERIFIED');
      expect(errorOf(await verify(owner, account.id, await signer.signMessage({ message })))).toBe('CONFLICT NO_SIGNATURE_CHALLENGE');
    }
  });

  it('a wrong signer or a tampered message leaves the account UNVERIFIED (announced); a new challenge reopens it', async () => {
    const signer = evmWallet();
    const account = await selfCustody('customer', 'ETHEREUM_WALLET', signer.address);
    let message = await messageFor('customer', account.id);
    const wrong = await verify('customer', account.id, await evmWallet().signMessage({ message }));
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
    expect(await statusOf('customer', account.id)).toBe('UNVERIFIED');
    // The challenge is spent: even the right signature now needs a new one.
    expect(errorOf(await verify('customer', account.id, await signer.signMessage({ message })))).toBe('CONFLICT NO_SIGNATURE_CHALLENGE');

    message = await messageFor('customer', account.id);
    expect(await statusOf('customer', account.id)).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const tampered = await verify('customer', account.id, await signer.signMessage({ message: message.replace(/Nonce: [0-9a-f]/, 'Nonce: x') }));
    expect(errorOf(tampered)).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');

    message = await messageFor('customer', account.id);
    const done = await verify('customer', account.id, await signer.signMessage({ message }));
    expect(done.body.status).toBe('ACTIVE');
    expect(await announced(account.id)).toEqual(['UNVERIFIED', 'PENDING_OWNERSHIP_VERIFICATION', 'UNVERIFIED', 'PENDING_OWNERSHIP_VERIFICATION', 'ACTIVE']);
  });

  it('a new challenge abandons the open one: the old message no longer proves anything', async () => {
    const signer = evmWallet();
    const account = await selfCustody('platform', 'ETHEREUM_WALLET', signer.address);
    const first = await messageFor('platform', account.id);
    const second = await messageFor('platform', account.id);
    expect(second).not.toBe(first);
    expect(errorOf(await verify('platform', account.id, await signer.signMessage({ message: first })))).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
  });

  it('an expired challenge is refused and leaves the account UNVERIFIED', async () => {
    const signer = evmWallet();
    const account = await selfCustody('customer', 'POLYGON_WALLET', signer.address);
    const message = await messageFor('customer', account.id);
    expect((await t.api(p, 'POST', '/sandbox/clock/advance', { seconds: 16 * 60 })).status).toBe(200);
    const late = await verify('customer', account.id, await signer.signMessage({ message }));
    expect(errorOf(late)).toBe('INVALID_INPUT CHALLENGE_EXPIRED');
    expect(await statusOf('customer', account.id)).toBe('UNVERIFIED');
    expect(await announced(account.id)).toEqual(['UNVERIFIED']);
  });

  it('a signature not in the chain encoding is refused as input and spends nothing', async () => {
    const signer = evmWallet();
    const account = await selfCustody('customer', 'ETHEREUM_WALLET', signer.address);
    const message = await messageFor('customer', account.id);
    const garbage = await verify('customer', account.id, 'not-a-signature');
    expect(errorOf(garbage)).toBe('INVALID_INPUT');
    expect(fieldsOf(garbage)).toEqual(['signature']);
    expect(await statusOf('customer', account.id)).toBe('PENDING_OWNERSHIP_VERIFICATION');
    expect((await verify('customer', account.id, await signer.signMessage({ message }))).body.status).toBe('ACTIVE');
  });

  it('Bitcoin: BIP-137 for P2PKH, P2SH-P2WPKH and P2WPKH; Electrum signatures of segwit addresses with signatureScheme electrum', async () => {
    const key = bitcoinKey();
    const cases = [
      { address: key.p2pkh, sign: (m: string) => bitcoinMessage.sign(m, key.privateKey, true) },
      { address: key.p2shP2wpkh, sign: (m: string) => bitcoinMessage.sign(m, key.privateKey, true, { segwitType: 'p2sh(p2wpkh)' }) },
      { address: key.p2wpkh, sign: (m: string) => bitcoinMessage.sign(m, key.privateKey, true, { segwitType: 'p2wpkh' }) },
    ];
    for (const { address, sign: signBtc } of cases) {
      const account = await selfCustody('customer', 'BITCOIN_L1', address, 'BTC');
      const message = await messageFor('customer', account.id);
      const signature = signBtc(message).toString('base64');
      expect(bitcoinMessage.verify(message, address, signature)).toBe(true);
      const done = await verify('customer', account.id, signature);
      expect(done.status, `${address}: ${done.text}`).toBe(200);
      expect(done.body.status).toBe('ACTIVE');
    }

    // Electrum and Sparrow sign a segwit address with the P2PKH header: only as signatureScheme electrum.
    const segwit = bitcoinKey();
    const electrum = await selfCustody('platform', 'BITCOIN_L1', segwit.p2wpkh, 'BTC');
    let message = await messageFor('platform', electrum.id);
    const asBip137 = await verify('platform', electrum.id, bitcoinMessage.sign(message, segwit.privateKey, true).toString('base64'));
    expect(errorOf(asBip137)).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
    message = await messageFor('platform', electrum.id);
    const signature = bitcoinMessage.sign(message, segwit.privateKey, true).toString('base64');
    expect(bitcoinMessage.verify(message, segwit.p2wpkh, signature, undefined, true)).toBe(true);
    const done = await verify('platform', electrum.id, signature, { signatureScheme: 'electrum' });
    expect(done.body.status).toBe('ACTIVE');

    // Another key's signature does not prove the address.
    const other = await selfCustody('customer', 'BITCOIN_L1', bitcoinKey().p2wpkh, 'BTC');
    message = await messageFor('customer', other.id);
    expect(errorOf(await verify('customer', other.id, bitcoinMessage.sign(message, randomBytes(32), true, { segwitType: 'p2wpkh' }).toString('base64')))).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
  });

  it('Bitcoin taproot addresses cannot sign a BIP-137 message: WALLET_SIGNATURE is refused for them (LIVENESS works)', async () => {
    const taproot = bech32m.encode('bc', [1, ...bech32m.toWords(randomBytes(32))]);
    const account = await selfCustody('customer', 'BITCOIN_L1', taproot, 'BTC');
    const res = await challenge('customer', account.id);
    expect(errorOf(res)).toBe('INVALID_INPUT');
    expect(fieldsOf(res)).toEqual(['method']);
    expect((await challenge('customer', account.id, 'LIVENESS')).status).toBe(201);
  });

  it("Spark: a BIP-137 signature by the address's identity key", async () => {
    const privateKey = randomBytes(32);
    const identity = secp256k1.getPublicKey(privateKey, true);
    const address = bech32m.encode('spark', bech32m.toWords(Uint8Array.from([0x0a, 33, ...identity])), 1024);
    const account = await selfCustody('customer', 'SPARK_WALLET', address, 'USDB');
    let message = await messageFor('customer', account.id);
    expect(errorOf(await verify('customer', account.id, bitcoinMessage.sign(message, randomBytes(32), true).toString('base64')))).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
    message = await messageFor('customer', account.id);
    const done = await verify('customer', account.id, bitcoinMessage.sign(message, privateKey, true).toString('base64'));
    expect(done.body.status).toBe('ACTIVE');
  });

  it('Solana: a base58 Ed25519 signature over the message bytes', async () => {
    const secret = ed25519.utils.randomSecretKey();
    const account = await selfCustody('platform', 'SOLANA_WALLET', base58.encode(ed25519.getPublicKey(secret)));
    let message = await messageFor('platform', account.id);
    const wrong = base58.encode(ed25519.sign(new TextEncoder().encode(message), ed25519.utils.randomSecretKey()));
    expect(errorOf(await verify('platform', account.id, wrong))).toBe('INVALID_INPUT WALLET_SIGNATURE_REJECTED');
    message = await messageFor('platform', account.id);
    const done = await verify('platform', account.id, base58.encode(ed25519.sign(new TextEncoder().encode(message), secret)));
    expect(done.body.status).toBe('ACTIVE');
  });

  it('Tron: a TIP-191 signature (signMessageV2)', async () => {
    const privateKey = generatePrivateKey();
    const address = btcCheck.encode(Uint8Array.from([0x41, ...hexToBytes(privateKeyToAccount(privateKey).address)]));
    const account = await selfCustody('customer', 'TRON_WALLET', address);
    const message = await messageFor('customer', account.id);
    const body = toBytes(message);
    const digest = keccak256(concat([toBytes(`\x19TRON Signed Message:\n${body.length}`), body]));
    const signature = await sign({ hash: digest, privateKey, to: 'hex' });
    const done = await verify('customer', account.id, signature);
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe('ACTIVE');
  });
});

describe('who may challenge what', () => {
  it('refuses (409) a bank account, a custodial wallet, a wallet not declared FIRST_PARTY; 400 for an unknown method', async () => {
    const bank = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: usBankAccount() });
    expect(errorOf(await challenge('customer', bank.body.id))).toBe('CONFLICT OWNERSHIP_VERIFICATION_NOT_APPLICABLE');
    const custodial = await createWallet('customer', { accountType: 'ETHEREUM_WALLET', address: evmWallet().address, vaspName: 'Coinbase' }, { ownershipType: 'FIRST_PARTY' });
    expect(errorOf(await challenge('customer', custodial.body.id))).toBe('CONFLICT OWNERSHIP_VERIFICATION_NOT_APPLICABLE');
    const undeclared = await createWallet('customer', { accountType: 'ETHEREUM_WALLET', address: evmWallet().address });
    expect(errorOf(await challenge('customer', undeclared.body.id))).toBe('CONFLICT OWNERSHIP_VERIFICATION_NOT_APPLICABLE');
    const account = await selfCustody('customer', 'ETHEREUM_WALLET', evmWallet().address);
    const bad = await challenge('customer', account.id, 'CARRIER_PIGEON');
    expect(errorOf(bad)).toBe('INVALID_INPUT');
    expect(fieldsOf(bad)).toEqual(['method']);
    expect(errorOf(await verify('customer', bank.body.id, '0x00'))).toBe('CONFLICT NO_SIGNATURE_CHALLENGE');
  });

  it("each prefix sees only its own owner's accounts, and another platform none (404)", async () => {
    const customers = await selfCustody('customer', 'ETHEREUM_WALLET', evmWallet().address);
    const platforms = await selfCustody('platform', 'ETHEREUM_WALLET', evmWallet().address);
    expect(errorOf(await challenge('platform', customers.id))).toBe('REFERENCE_NOT_FOUND EXTERNAL_ACCOUNT_NOT_FOUND');
    expect(errorOf(await challenge('customer', platforms.id))).toBe('REFERENCE_NOT_FOUND EXTERNAL_ACCOUNT_NOT_FOUND');
    expect(errorOf(await verify('platform', customers.id, '0x00'))).toBe('REFERENCE_NOT_FOUND EXTERNAL_ACCOUNT_NOT_FOUND');
    const other = await t.newPlatform('Other Platform');
    for (const [owner, id] of [['customer', customers.id], ['platform', platforms.id]] as const) {
      expect((await challenge(owner, id, 'WALLET_SIGNATURE', other)).status).toBe(404);
      expect((await verify(owner, id, '0x00', {}, other)).status).toBe(404);
      expect((await liveness(id, 'PASSED', other)).status).toBe(404);
    }
    expect(await announced(customers.id, other)).toEqual([]);
  });
});

describe('proving ownership with a liveness check (sandbox)', () => {
  it('the challenge gives a hosted link; the sandbox verdict makes the account ACTIVE or UNVERIFIED, announced', async () => {
    const passed = await selfCustody('customer', 'SOLANA_WALLET', base58.encode(randomBytes(32)));
    const res = await challenge('customer', passed.id, 'LIVENESS');
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['expiresAt', 'method', 'verificationLink']);
    expect(res.body.verificationLink).toMatch(/^http:\/\/moneta\.test\/hosted\/wallet-ownership\/[A-Za-z0-9_-]{43}$/);
    // A liveness challenge is not answered with a signature.
    expect(errorOf(await verify('customer', passed.id, 'x'))).toBe('CONFLICT NO_SIGNATURE_CHALLENGE');
    const decided = await liveness(passed.id, 'PASSED');
    expect(decided.status).toBe(200);
    expect(decided.body.status).toBe('ACTIVE');
    const again = await liveness(passed.id, 'PASSED');
    expect(again.status).toBe(409);
    expect(again.body.details?.reason).toBe('NO_LIVENESS_CHALLENGE');

    const failed = await selfCustody('platform', 'TRON_WALLET', btcCheck.encode(Uint8Array.from([0x41, ...randomBytes(20)])));
    await challenge('platform', failed.id, 'LIVENESS');
    const verdict = await liveness(failed.id, 'FAILED');
    expect(verdict.body.status).toBe('UNVERIFIED');
    expect(await announced(passed.id)).toEqual(['ACTIVE']);
    expect(await announced(failed.id)).toEqual(['UNVERIFIED']);
  });

  it('the hosted link lets the person pick the outcome, once', async () => {
    const account = await selfCustody('customer', 'BASE_WALLET', evmWallet().address);
    const link = new URL((await challenge('customer', account.id, 'LIVENESS')).body.verificationLink!);
    const page = await t.app.inject({ method: 'GET', url: link.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Pass');
    const post = await t.app.inject({ method: 'POST', url: link.pathname, payload: 'result=PASSED', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(post.statusCode, post.body).toBe(200);
    expect(await statusOf('customer', account.id)).toBe('ACTIVE');
    expect((await t.app.inject({ method: 'GET', url: link.pathname })).statusCode).toBe(410);
  });
});

describe('paying a wallet whose ownership is not proven', () => {
  it('is refused with EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED until it is proven', async () => {
    const { customerId: payer, accountId } = await f.customerWithAccount('USD', 100_000, 'Paula Payer');
    const signer = evmWallet();
    const created = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', {
      customerId: payer,
      currency: 'USDC',
      ownershipType: 'FIRST_PARTY',
      accountInfo: { accountType: 'ETHEREUM_WALLET', address: signer.address, beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Paula Payer', countryOfResidence: 'US' } },
    });
    expect(created.body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const refused = await t.api<ApiError>(p, 'POST', '/quotes', quoteBody(accountId, created.body.id));
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toBe('EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(refused.body.details).toMatchObject({ externalAccountId: created.body.id, status: 'PENDING_OWNERSHIP_VERIFICATION' });

    const message = await messageFor('customer', created.body.id);
    expect((await verify('customer', created.body.id, await signer.signMessage({ message }))).body.status).toBe('ACTIVE');
    const quote = await t.api<Quote>(p, 'POST', '/quotes', quoteBody(accountId, created.body.id));
    expect(quote.status, quote.text).toBe(201);
  });
});

describe('transferring to a wallet whose ownership is not proven', () => {
  it('is refused with EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED until it is proven', async () => {
    const { customerId: owner, accountId } = await f.customerWithAccount('USDC', 5_000_000, 'Tess Transfer');
    const signer = evmWallet();
    const wallet = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId: owner, currency: 'USDC', ownershipType: 'FIRST_PARTY', accountInfo: { accountType: 'BASE_WALLET', address: signer.address } });
    expect(wallet.body.status).toBe('PENDING_OWNERSHIP_VERIFICATION');
    const body = { source: { accountId }, destination: { accountId: wallet.body.id }, amount: 1_000_000 };
    expect(errorOf(await t.api(p, 'POST', '/transfer-out', body))).toBe('EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED');
    expect(await f.balance(accountId)).toBe(5_000_000);
    const message = await messageFor('customer', wallet.body.id);
    expect((await verify('customer', wallet.body.id, await signer.signMessage({ message }))).body.status).toBe('ACTIVE');
    const sent = await t.api(p, 'POST', '/transfer-out', body);
    expect(sent.status, sent.text).toBeLessThan(300);
  });
});

describe('GET /vasps', () => {
  it('pages through the directory by cursor, without totalCount', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const res = await t.api<{ data: { vaspName: string; url?: string }[]; hasMore: boolean; nextCursor?: string; totalCount?: number }>(p, 'GET', `/vasps?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.totalCount).toBeUndefined();
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      names.push(...res.body.data.map((v) => v.vaspName));
      if (!res.body.hasMore) {
        expect(res.body.nextCursor).toBeUndefined();
        break;
      }
      cursor = res.body.nextCursor;
    }
    expect(names).toContain('Kraken');
    expect(new Set(names).size).toBe(names.length);
    const all = await t.api<{ data: { vaspName: string }[]; hasMore: boolean }>(p, 'GET', '/vasps?limit=100');
    expect(all.body.data.map((v) => v.vaspName)).toEqual(names);
    expect(all.body.hasMore).toBe(false);
    expect((await t.api<{ data: unknown[] }>(p, 'GET', '/vasps')).body.data).toHaveLength(Math.min(20, names.length));
    expect(errorOf(await t.api(p, 'GET', '/vasps?cursor=%%%'))).toBe('INVALID_INPUT');
    expect(errorOf(await t.api(p, 'GET', '/vasps?limit=101'))).toBe('INVALID_INPUT');
  });
});

describe("other clients' account fields", () => {
  const eur = (info: Record<string, unknown>) => ({
    customerId,
    currency: 'EUR',
    accountInfo: { accountType: 'EUR_ACCOUNT', beneficiary: { beneficiaryType: 'BUSINESS', legalName: 'Acme GmbH' }, ...info },
  });

  it('swiftBic is swiftCode by another name (both with different values are refused); countries are checked and not kept', async () => {
    const res = await t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', eur({ iban: 'DE02120300000000202051', swiftBic: 'BYLADEM1001', countries: ['DE', 'AT'] }));
    expect(res.status, res.text).toBe(201);
    expect(res.body.accountInfo).toMatchObject({ swiftCode: 'BYLADEM1001' });
    expect(res.body.accountInfo.swiftBic).toBeUndefined();
    expect(res.body.accountInfo.countries).toBeUndefined();
    const same = await t.api(p, 'POST', '/customers/external-accounts', eur({ iban: 'DE02100500000054540402', swiftCode: 'BELADEBEXXX', swiftBic: 'BELADEBEXXX' }));
    expect(same.status).toBe(201);
    const both = await t.api(p, 'POST', '/customers/external-accounts', eur({ iban: 'DE02500105170137075030', swiftCode: 'INGDDEFFXXX', swiftBic: 'BELADEBEXXX' }));
    expect(errorOf(both)).toBe('INVALID_INPUT');
    expect(fieldsOf(both)).toEqual(['accountInfo.swiftBic']);
    const countries = await t.api(p, 'POST', '/customers/external-accounts', eur({ iban: 'DE02500105170137075030', countries: ['Germany'] }));
    expect(fieldsOf(countries)).toEqual(['accountInfo.countries.0']);
  });

  it('an NGN account without a bank code is checked for its form; with one, for its check digit', async () => {
    const person = { beneficiaryType: 'INDIVIDUAL', fullName: 'Ade Bello', address: { line1: '1 Marina', postalCode: '101001', country: 'NG' } };
    const ngn = (info: Record<string, unknown>) => t.api<ExternalAccount>(p, 'POST', '/customers/external-accounts', { customerId, currency: 'NGN', accountInfo: { accountType: 'NGN_ACCOUNT', bankName: 'GTBank', beneficiary: person, ...info } });
    const without = await ngn({ accountNumber: '0123456789' });
    expect(without.status, without.text).toBe(201);
    expect(without.body.accountInfo).toMatchObject({ accountNumber: '0123456789', paymentRails: ['BANK_TRANSFER'] });
    expect(errorOf(await ngn({ accountNumber: '01234' }))).toBe('INVALID_BANK_ACCOUNT');
    expect(errorOf(await ngn({ accountNumber: '0123456780', bankCode: '058' }))).toBe('INVALID_BANK_ACCOUNT');
  });
});
