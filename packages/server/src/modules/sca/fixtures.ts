import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { FixtureContext, ModuleFixtures } from '../../contract/module.js';
import { clabeEndingWith, mexicanBeneficiary } from '../external-accounts/fixtures.js';

/** A WebAuthn authenticator in software (none attestation, ES256) that answers in the browser's JSON form. */
export class SoftPasskey {
  readonly credentialId = randomBytes(16).toString('base64url');
  private readonly key: KeyObject;
  private readonly jwk: { x: string; y: string };
  private counter = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.key = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.jwk = { x: jwk.x!, y: jwk.y! };
  }

  private authData(flags: number, attested?: Buffer): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([createHash('sha256').update(this.rpId).digest(), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create(options).toJSON(). */
  create(options: { challenge: string }): Record<string, unknown> {
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(this.jwk.x, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(this.jwk.y, 'base64url'))],
    ]);
    const id = Buffer.from(this.credentialId, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, id, Buffer.from(isoCBOR.encode(cose))]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(this.authData(0x45, attested))]]) as never);
    const clientData = { type: 'webauthn.create', challenge: options.challenge, origin: this.origin, crossOrigin: false };
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: Buffer.from(JSON.stringify(clientData)).toString('base64url'), attestationObject: Buffer.from(attestationObject).toString('base64url'), transports: ['internal'] },
      clientExtensionResults: {},
    };
  }

  /** navigator.credentials.get(options).toJSON(): signs the options' challenge (already base64url). */
  get(options: { challenge: string }, origin = this.origin): Record<string, unknown> {
    this.counter++;
    const authenticatorData = this.authData(0x05);
    const clientDataJson = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJson).digest()]), this.key);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: { clientDataJSON: clientDataJson.toString('base64url'), authenticatorData: authenticatorData.toString('base64url'), signature: signature.toString('base64url') },
      clientExtensionResults: {},
    };
  }
}

export const SCA = 'sca';

type Body<T> = { body: T };

async function scaCustomer(ctx: FixtureContext, name: string): Promise<string> {
  const res = await ctx.call('POST', '/customers', {
    customerType: 'INDIVIDUAL',
    fullName: `${ctx.label} ${name}`,
    region: 'DE',
    currencies: ['USD'],
    email: `${ctx.label}-${name}@example.com`,
    phoneNumber: '+4915112345678',
  });
  return (res.body as { id: string }).id;
}

async function clabe(ctx: FixtureContext, customerId: string): Promise<string> {
  const res = await ctx.call('POST', '/customers/external-accounts', {
    customerId,
    currency: 'MXN',
    accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('219'), bankName: 'BBVA', beneficiary: mexicanBeneficiary },
  });
  return (res.body as { id: string }).id;
}

async function trustedAccount(ctx: FixtureContext, customerId: string): Promise<string> {
  const id = await clabe(ctx, customerId);
  await ctx.call('POST', `/customers/external-accounts/${id}/trust`);
  await ctx.call('POST', `/customers/external-accounts/${id}/trust/confirm`, { code: '123456' });
  return id;
}

/**
 * One SCA customer with what each route needs (sandbox: every code is 123456): a passkey, a TOTP
 * enrolment waiting for its confirmation, a live session and a login waiting for its code, two
 * resets (one past liveness), beneficiaries waiting to be trusted and untrusted, and a held quote.
 */
async function create(ctx: FixtureContext): Promise<void> {
  const { call, ids } = ctx;
  const customerId = await scaCustomer(ctx, 'sca');
  ids.set(`Customer at ${SCA}`, customerId);
  const q = `?customerId=${encodeURIComponent(customerId)}`;
  const passkeyStart = (await call('POST', `/sca/factors${q}`, { type: 'PASSKEY' })) as Body<{ options: { challenge: string }; relyingPartyId: string; allowedOrigins: string[] }>;
  const passkey = new SoftPasskey(passkeyStart.body.relyingPartyId, passkeyStart.body.allowedOrigins[0]!);
  await call('POST', `/sca/factors/confirm${q}`, { type: 'PASSKEY', origin: passkey.origin, credential: passkey.create(passkeyStart.body.options) });
  ids.set('credentialId', passkey.credentialId);
  const totp = (await call('POST', `/sca/factors${q}`, { type: 'TOTP' })) as Body<{ secret: string }>;
  ids.set('TotpSecret', totp.body.secret);
  const session = (await call('POST', `/sca/login/start${q}`, { factor: 'SMS_OTP' })) as Body<{ challengeId: string }>;
  await call('POST', `/sca/login/complete${q}`, { factor: 'SMS_OTP', endUserIpAddress: '203.0.113.42', challengeId: session.body.challengeId, code: '123456' });
  const login = (await call('POST', `/sca/login/start${q}`, { factor: 'SMS_OTP' })) as Body<{ challengeId: string }>;
  ids.set('LoginChallenge', login.body.challengeId);

  const reset = (await call('POST', `/sca/factors/reset${q}`, { factor: 'SMS_OTP' })) as Body<{ resetId: string }>;
  ids.set('TwoFactorReset', reset.body.resetId);
  const passed = (await call('POST', `/sca/factors/reset${q}`, { factor: 'SMS_OTP' })) as Body<{ resetId: string }>;
  await call('POST', `/sandbox/sca/factors/reset/${passed.body.resetId}/liveness`, { result: 'PASSED' });
  ids.set('TwoFactorReset at POST /sca/factors/reset/:resetId/complete', passed.body.resetId);

  const toTrust = await clabe(ctx, customerId);
  await call('POST', `/customers/external-accounts/${toTrust}/trust`);
  for (const route of ['trust', 'trust/confirm']) ids.set(`ExternalAccount at POST /customers/external-accounts/:externalAccountId/${route}`, toTrust);
  const trusted = await trustedAccount(ctx, customerId);
  await call('POST', `/customers/external-accounts/${trusted}/untrust`);
  for (const route of ['untrust', 'untrust/confirm']) ids.set(`ExternalAccount at POST /customers/external-accounts/:externalAccountId/${route}`, trusted);

  const accounts = (await call('GET', `/internal-account?customerId=${encodeURIComponent(customerId)}`)) as Body<{ data: { id: string; type: string; balance: { currency: { code: string } } }[] }>;
  const usd = accounts.body.data.find((a) => a.type === 'INTERNAL_FIAT' && a.balance.currency.code === 'USD')!.id;
  await call('POST', `/sandbox/internal-accounts/${usd}/fund`, { amount: 100_000 });
  const quote = (await call('POST', '/quotes', {
    source: { sourceType: 'ACCOUNT', accountId: usd },
    destination: { destinationType: 'ACCOUNT', accountId: toTrust },
    lockedCurrencySide: 'SENDING',
    lockedCurrencyAmount: 1000,
    immediatelyExecute: true,
  })) as Body<{ id: string }>;
  for (const route of ['POST /quotes/:quoteId/authorize', 'POST /quotes/:quoteId/authorize/resend']) {
    ids.set(`Quote at ${route}`, quote.body.id);
    // Whose money the route moves: the sweeps that change a customer's standing change this one's.
    ids.set(`Customer at ${route}`, customerId);
  }
}

const customer = (variant: string) => (id: (idType: string, variant?: string) => string) => ({ customerId: id('Customer', variant) });

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /sca/factors': { type: 'TOTP' },
    'POST /sca/factors/confirm': (id) => ({ type: 'TOTP', secret: id('TotpSecret'), code: '123456' }),
    'POST /sca/login/start': { factor: 'SMS_OTP' },
    'POST /sca/login/complete': (id) => ({ factor: 'SMS_OTP', endUserIpAddress: '203.0.113.42', challengeId: id('LoginChallenge'), code: '123456' }),
    'POST /sca/record-event': { eventType: 'FAILED_LOGIN_ATTEMPT' },
    'POST /sca/factors/reset': { factor: 'SMS_OTP' },
    'POST /sca/factors/reset/:resetId/complete': { mobile: { countryCode: '+49', number: '15112345679' } },
    'POST /sandbox/sca/factors/reset/:resetId/liveness': { result: 'PASSED' },
    'POST /customers/external-accounts/:externalAccountId/trust/confirm': { code: '123456' },
    'POST /customers/external-accounts/:externalAccountId/untrust/confirm': { code: '123456' },
    'POST /quotes/:quoteId/authorize': { code: '123456', endUserIpAddress: '203.0.113.42' },
  },
  queries: {
    'GET /sca/factors': customer(SCA),
    'POST /sca/factors': customer(SCA),
    'POST /sca/factors/confirm': customer(SCA),
    'DELETE /sca/factors/:credentialId': customer(SCA),
    'POST /sca/login/start': customer(SCA),
    'POST /sca/login/complete': customer(SCA),
    'POST /sca/record-event': customer(SCA),
    'POST /sca/factors/reset': customer(SCA),
    'GET /sca/factors/reset/:resetId': customer(SCA),
    'POST /sca/factors/reset/:resetId/complete': customer(SCA),
  },
  create,
};
