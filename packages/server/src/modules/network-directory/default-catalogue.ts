/**
 * The directory a fresh instance answers with: receiving institutions for each corridor Moneta pays
 * out on (the external account types of modules/external-accounts: USD, MXN, EUR, GBP, CAD, INR, NGN,
 * BRL). UMA providers have no default list here: production starts with none, and the sandbox with its
 * own counterparty (index.ts). An operator replaces either list with a JSON file of the same shape
 * (MONETA_DISCOVERIES_FILE, MONETA_UMA_PROVIDERS_FILE).
 *
 * `bankName` is what a client passes as `accountInfo.bankName` when it registers an external account.
 */
export interface DiscoveryEntry {
  bankName: string;
  displayName: string;
  country: string;
  currency: string;
}

export interface UmaProviderEntry {
  name: string;
  domain: string;
  supportedRegions: string[];
  /** Currency codes, rendered as the reference's Currency objects. */
  supportedCurrencies: string[];
  logoUrl?: string;
  lei?: string;
  /** Whether platforms on this instance may pay this provider's addresses (the allowlist); true when left out. */
  allowListed?: boolean;
}

const bank = (country: string, currency: string) => (bankName: string, displayName: string = bankName): DiscoveryEntry => ({ bankName, displayName, country, currency });

const us = bank('US', 'USD');
const mx = bank('MX', 'MXN');
const gb = bank('GB', 'GBP');
const ca = bank('CA', 'CAD');
const inr = bank('IN', 'INR');
const ng = bank('NG', 'NGN');
const br = bank('BR', 'BRL');

export const DEFAULT_DISCOVERIES: readonly DiscoveryEntry[] = [
  us('JPMorgan Chase', 'JPMorgan Chase Bank, N.A.'),
  us('Bank of America', 'Bank of America, N.A.'),
  us('Wells Fargo', 'Wells Fargo Bank, N.A.'),
  us('Citibank', 'Citibank, N.A.'),
  us('U.S. Bank', 'U.S. Bank National Association'),
  mx('BBVA México'),
  mx('Banorte', 'Banco Mercantil del Norte (Banorte)'),
  mx('Santander México'),
  mx('Banamex', 'Banco Nacional de México (Banamex)'),
  mx('HSBC México'),
  bank('DE', 'EUR')('Deutsche Bank'),
  bank('DE', 'EUR')('Commerzbank'),
  bank('FR', 'EUR')('BNP Paribas'),
  bank('FR', 'EUR')('Société Générale'),
  bank('ES', 'EUR')('Banco Santander'),
  bank('ES', 'EUR')('BBVA', 'Banco Bilbao Vizcaya Argentaria'),
  bank('IT', 'EUR')('Intesa Sanpaolo'),
  bank('IT', 'EUR')('UniCredit'),
  bank('NL', 'EUR')('ING Bank'),
  bank('NL', 'EUR')('ABN AMRO'),
  bank('IE', 'EUR')('Bank of Ireland'),
  bank('IE', 'EUR')('AIB', 'Allied Irish Banks'),
  bank('PT', 'EUR')('Caixa Geral de Depósitos'),
  gb('Barclays'),
  gb('HSBC UK'),
  gb('Lloyds Bank'),
  gb('NatWest'),
  gb('Monzo'),
  ca('RBC', 'Royal Bank of Canada'),
  ca('TD Canada Trust'),
  ca('Scotiabank', 'The Bank of Nova Scotia'),
  ca('BMO', 'Bank of Montreal'),
  ca('CIBC', 'Canadian Imperial Bank of Commerce'),
  inr('State Bank of India'),
  inr('HDFC Bank'),
  inr('ICICI Bank'),
  inr('Axis Bank'),
  inr('Kotak Mahindra Bank'),
  ng('Access Bank'),
  ng('GTBank', 'Guaranty Trust Bank'),
  ng('Zenith Bank'),
  ng('First Bank of Nigeria'),
  ng('UBA', 'United Bank for Africa'),
  br('Banco do Brasil'),
  br('Itaú Unibanco'),
  br('Bradesco', 'Banco Bradesco'),
  br('Caixa Econômica Federal'),
  br('Nubank', 'Nu Pagamentos (Nubank)'),
];
