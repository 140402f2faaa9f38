import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import type { FixtureContext, ModuleFixtures } from '../../contract/module.js';
import { clabeCheckDigit } from '../../lib/account-numbers/index.js';

let accountNumbers = 0;
let clabeSeed = 200_000_000;

/** A US bank account not registered before (a platform registers each account once); the sandbox settles it. */
export function usBankAccount(): Record<string, unknown> {
  accountNumbers += 1;
  return {
    accountType: 'US_ACCOUNT',
    routingNumber: '021000021',
    accountNumber: `48${String(accountNumbers).padStart(6, '0')}500`, // sandbox outcome: the last three digits
    bankName: 'Fixture Bank',
    beneficiary: { beneficiaryType: 'INDIVIDUAL', fullName: 'Fiona Fixture', address: { line1: '1 Main St', postalCode: '98101', country: 'US' } },
  };
}

/** A valid CLABE whose last three digits are `suffix` (the sandbox outcome key), not used before. */
export function clabeEndingWith(suffix: string): string {
  for (;;) {
    clabeSeed += 1;
    const first17 = `032180${String(clabeSeed).padStart(9, '0')}${suffix.slice(0, 2)}`;
    if (String(clabeCheckDigit(first17)) === suffix[2]) return `${first17}${suffix[2]}`;
  }
}

export const mexicanBeneficiary = {
  beneficiaryType: 'INDIVIDUAL',
  fullName: 'María Receptora',
  birthDate: '1988-03-04',
  nationality: 'MX',
  address: { line1: 'Av. Reforma 1', city: 'CDMX', postalCode: '06600', country: 'MX' },
};

/** A Solana key for a fixture wallet, and its address. */
function solanaKey(): { secret: Uint8Array; address: string } {
  const secret = ed25519.utils.randomSecretKey();
  return { secret, address: base58.encode(ed25519.getPublicKey(secret)) };
}

/** The signature that proves each fixture wallet waiting at the verify routes, by account id. */
const signatures = new Map<string, string>();

const OWNERSHIP_ROUTES = ['/customers/external-accounts', '/platform/external-accounts'] as const;
const LIVENESS_ROUTE = 'POST /sandbox/external-accounts/:externalAccountId/liveness';

/**
 * Wallets for the ownership routes, one per route (a challenge, a signature and a liveness verdict
 * each need a wallet in its own state): a FIRST_PARTY self-custody Solana wallet, with an open
 * WALLET_SIGNATURE challenge (and its signature) for verify, an open LIVENESS one for the verdict.
 */
async function ownershipWallets({ call, ids }: FixtureContext): Promise<void> {
  const customerId = ids.get('Customer')!;
  const wallet = async (base: string) => {
    const key = solanaKey();
    const body = { ...(base.startsWith('/customers') ? { customerId } : {}), currency: 'USDC', ownershipType: 'FIRST_PARTY', accountInfo: { accountType: 'SOLANA_WALLET', address: key.address } };
    return { key, id: (((await call('POST', base, body)).body) as { id: string }).id };
  };
  for (const base of OWNERSHIP_ROUTES) {
    ids.set(`ExternalAccount at POST ${base}/:externalAccountId/challenge`, (await wallet(base)).id);
    const { key, id } = await wallet(base);
    const challenge = (await call('POST', `${base}/${id}/challenge`, { method: 'WALLET_SIGNATURE' })).body as { messageToSign: string };
    signatures.set(id, base58.encode(ed25519.sign(new TextEncoder().encode(challenge.messageToSign), key.secret)));
    ids.set(`ExternalAccount at POST ${base}/:externalAccountId/verify`, id);
  }
  const { id } = await wallet('/customers/external-accounts');
  await call('POST', `/customers/external-accounts/${id}/challenge`, { method: 'LIVENESS' });
  ids.set(`ExternalAccount at ${LIVENESS_ROUTE}`, id);
}

const verifyBody = (route: string) => (id: (idType: string, variant?: string) => string) => ({ signature: signatures.get(id('ExternalAccount', route)) ?? '1'.repeat(88) });

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /customers/external-accounts': (id) => ({ customerId: id('Customer'), currency: 'USD', accountInfo: usBankAccount() }),
    'POST /platform/external-accounts': () => ({ currency: 'USD', accountInfo: usBankAccount() }),
    'POST /customers/external-accounts/:externalAccountId/challenge': { method: 'WALLET_SIGNATURE' },
    'POST /platform/external-accounts/:externalAccountId/challenge': { method: 'WALLET_SIGNATURE' },
    'POST /customers/external-accounts/:externalAccountId/verify': verifyBody('POST /customers/external-accounts/:externalAccountId/verify'),
    'POST /platform/external-accounts/:externalAccountId/verify': verifyBody('POST /platform/external-accounts/:externalAccountId/verify'),
    [LIVENESS_ROUTE]: { result: 'PASSED' },
  },
  async create(ctx) {
    const { call, ids } = ctx;
    const customerId = ids.get('Customer')!;
    const us = await call('POST', '/customers/external-accounts', { customerId, currency: 'USD', accountInfo: usBankAccount() });
    ids.set('ExternalAccount', (us.body as { id: string }).id);
    const clabe = await call('POST', '/customers/external-accounts', {
      customerId,
      currency: 'MXN',
      accountInfo: { accountType: 'CLABE', clabeNumber: clabeEndingWith('219'), bankName: 'Fixture Banco', beneficiary: mexicanBeneficiary },
    });
    ids.set('ExternalAccount at MXN', (clabe.body as { id: string }).id);
    const platformAccount = await call('POST', '/platform/external-accounts', { currency: 'USD', accountInfo: usBankAccount() });
    ids.set('ExternalAccount at /platform/external-accounts', (platformAccount.body as { id: string }).id);
    await ownershipWallets(ctx);
  },
};
