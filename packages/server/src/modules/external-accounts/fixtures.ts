import type { ModuleFixtures } from '../../contract/module.js';
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

export const fixtures: ModuleFixtures = {
  bodies: {
    'POST /customers/external-accounts': (id) => ({ customerId: id('Customer'), currency: 'USD', accountInfo: usBankAccount() }),
    'POST /platform/external-accounts': () => ({ currency: 'USD', accountInfo: usBankAccount() }),
  },
  async create({ call, ids }) {
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
  },
};
