import type { FixtureContext, ModuleFixtures } from '../../contract/module.js';
import { clabeEndingWith, mexicanBeneficiary } from '../external-accounts/fixtures.js';
import { SoftPasskey } from '../wallets/soft-passkey.js';

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
