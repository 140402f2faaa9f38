import { encryptOtpCodeToBundle, generateP256KeyPair } from '@turnkey/crypto';
import type { ModuleFixtures } from '../../contract/module.js';
import { otpLogin, signedRetry } from './client-flows.js';

/** A client key (any valid P-256 point; this is the curve's generator): fixture bodies only need a well-formed one. */
export const CLIENT_KEY = '046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5';

/** A JWT-shaped token with a dummy signature, of an issuer no platform configured (the sandbox takes those). */
export function sandboxOidcToken(subject: string, issuedAt: number, claims: Record<string, unknown> = {}): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: 'https://accounts.sandbox.test', aud: 'fixture-client', sub: subject, iat: issuedAt, exp: issuedAt + 3600, ...claims })}.c2lnbmF0dXJl`;
}

export const fixtures: ModuleFixtures = {
  bodies: {
    // An OIDC token of an issuer the platform has not configured: the sandbox checks its claims only.
    'POST /auth/credentials': (id) => ({ type: 'OAUTH', accountId: id('InternalAccount', 'wallet'), oidcToken: id('OidcToken') }),
    'POST /auth/credentials/:id/challenge': {},
    // The code for the SMS credential's live challenge, encrypted by the fixtures (a string, not an id).
    'POST /auth/credentials/:id/verify': (id) => ({ type: 'SMS_OTP', encryptedOtpBundle: id('EncryptedOtpBundle') }),
    'POST /auth/sessions/:id/refresh': { clientPublicKey: CLIENT_KEY },
    'PATCH /internal-accounts/:id': { privateEnabled: true },
    'POST /internal-accounts/:id/export': { clientPublicKey: CLIENT_KEY },
    'POST /auth/delegated-keys': (id) => ({ cardId: id('Card', 'wallet'), internalAccountId: id('InternalAccount', 'wallet'), nickname: 'Fixture key' }),
  },
  queries: {
    'GET /auth/delegated-keys': (id) => ({ accountId: id('InternalAccount', 'wallet') }),
    'GET /auth/credentials': (id) => ({ accountId: id('InternalAccount', 'wallet') }),
    'GET /auth/sessions': (id) => ({ accountId: id('InternalAccount', 'wallet') }),
  },
  async create({ call, ids, label }) {
    await call('PATCH', '/config', { embeddedWalletConfig: { appName: 'Fixture Wallet' } });
    const customer = (await call('POST', '/customers', { customerType: 'INDIVIDUAL', platformCustomerId: `${label}-wallet-holder`, region: 'US', email: `${label}@wallet.test`, phoneNumber: '+15555550100', fullName: 'Wallet Holder' }))
      .body as { id: string };
    const accounts = (await call('GET', `/internal-account?customerId=${encodeURIComponent(customer.id)}&type=EMBEDDED_WALLET`)).body as { data: { id: string }[] };
    const walletId = accounts.data[0]!.id;
    ids.set('InternalAccount at wallet', walletId);
    ids.set('InternalAccount at PATCH /internal-accounts/:id', walletId);
    ids.set('InternalAccount at POST /internal-accounts/:id/export', walletId);
    ids.set('InternalAccount at POST /sandbox/wallets/:id/demo-link', walletId);
    const credentials = (await call('GET', `/auth/credentials?accountId=${encodeURIComponent(walletId)}`)).body as { data: { id: string }[] };
    const emailCredential = credentials.data[0]!.id;
    ids.set('AuthMethod', emailCredential);
    const session = await otpLogin(call, emailCredential);
    ids.set('Session', session.sessionId);

    // A second credential (signed by the session): one that may be revoked, with a live code to verify.
    const body = { type: 'SMS_OTP', accountId: walletId };
    const sms = (await signedRetry(call, session, 'POST', '/auth/credentials', body, await call('POST', '/auth/credentials', body))).body as { id: string; otpEncryptionTargetBundle: string };
    ids.set('AuthMethod at DELETE /auth/credentials/:id', sms.id);
    ids.set('AuthMethod at POST /auth/credentials/:id/verify', sms.id);
    const { publicKey: signer } = (await call('GET', '/auth/bundle-signing-key')).body as { publicKey: string };
    ids.set('EncryptedOtpBundle', await encryptOtpCodeToBundle('000000', sms.otpEncryptionTargetBundle, generateP256KeyPair().publicKey, signer));
    // Two cards on the wallet: one with an ACTIVE delegated key (three signed legs), one without.
    const keyed = (await call('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [walletId], platformCardId: `${label}-wallet-card` })).body as { id: string };
    const other = (await call('POST', '/cards', { cardholderId: customer.id, form: 'VIRTUAL', fundingSources: [walletId], platformCardId: `${label}-wallet-card-2` })).body as { id: string };
    ids.set('Card at wallet', other.id);
    const keyBody = { cardId: keyed.id, internalAccountId: walletId, nickname: 'Fixture key' };
    const granted = await signedRetry(call, session, 'POST', '/auth/delegated-keys', keyBody, await call('POST', '/auth/delegated-keys', keyBody));
    const active = await signedRetry(call, session, 'POST', '/auth/delegated-keys', keyBody, granted);
    ids.set('DelegatedKey', (active.body as { id: string }).id);

    // Past the challenge re-issue interval, so the challenge route answers at once.
    await call('POST', '/sandbox/clock/advance', { seconds: 31 });
    const { now } = (await call('GET', '/sandbox/clock')).body as { now: string };
    ids.set('OidcToken', sandboxOidcToken(label, Math.floor(Date.parse(now) / 1000)));
  },
};
