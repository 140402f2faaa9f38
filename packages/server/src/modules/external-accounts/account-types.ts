import {
  validateAbaRoutingNumber,
  validateBitcoinAddress,
  validateCaAccountNumber,
  validateCaInstitutionNumber,
  validateCaTransitNumber,
  validateClabe,
  validateEvmAddress,
  validateIban,
  validateIfsc,
  validateInAccountNumber,
  validateLightningInvoice,
  validateNuban,
  validatePixKey,
  validateSolanaAddress,
  validateSparkAddress,
  validateTronAddress,
  validateUkAccountNumber,
  validateUkSortCode,
  validateUsAccountNumber,
  type ValidationResult,
} from '../../lib/account-numbers/index.js';

type FieldValidator = (value: string, info: Record<string, unknown>) => ValidationResult;

export interface AccountTypeRule {
  /** Names the reference uses for the same type; accepted on input, answered with the spec's name. */
  aliases: string[];
  currencies: string[];
  /** Bank accounts name the person or business paid; wallets do not. */
  needsBeneficiary: boolean;
  /** Fields that identify the account, each with the validator of its real encoding. */
  fields: Record<string, FieldValidator>;
  /** The field whose last three characters pick a sandbox outcome. */
  identifierField: string;
}


/** Every external account type we accept, keyed by the spec's name. */
export const ACCOUNT_TYPE_RULES: Record<string, AccountTypeRule> = {
  CLABE: { aliases: ['MXN_ACCOUNT'], currencies: ['MXN'], needsBeneficiary: true, fields: { clabeNumber: validateClabe }, identifierField: 'clabeNumber' },
  US_ACCOUNT: {
    aliases: ['USD_ACCOUNT'],
    currencies: ['USD'],
    needsBeneficiary: true,
    fields: { routingNumber: validateAbaRoutingNumber, accountNumber: validateUsAccountNumber },
    identifierField: 'accountNumber',
  },
  IBAN: { aliases: ['EUR_ACCOUNT'], currencies: ['EUR'], needsBeneficiary: true, fields: { iban: validateIban }, identifierField: 'iban' },
  GBP_ACCOUNT: {
    aliases: [],
    currencies: ['GBP'],
    needsBeneficiary: true,
    fields: { sortCode: validateUkSortCode, accountNumber: validateUkAccountNumber },
    identifierField: 'accountNumber',
  },
  CAD_ACCOUNT: {
    aliases: [],
    currencies: ['CAD'],
    needsBeneficiary: true,
    fields: { bankCode: validateCaInstitutionNumber, branchCode: validateCaTransitNumber, accountNumber: validateCaAccountNumber },
    identifierField: 'accountNumber',
  },
  INR_ACCOUNT: {
    aliases: [],
    currencies: ['INR'],
    needsBeneficiary: true,
    fields: { ifsc: validateIfsc, accountNumber: validateInAccountNumber },
    identifierField: 'accountNumber',
  },
  NGN_ACCOUNT: {
    aliases: [],
    currencies: ['NGN'],
    needsBeneficiary: true,
    fields: { accountNumber: (value, info) => validateNuban(value, typeof info.bankCode === 'string' ? info.bankCode : undefined) },
    identifierField: 'accountNumber',
  },
  BRL_ACCOUNT: { aliases: [], currencies: ['BRL'], needsBeneficiary: true, fields: { pixKey: validatePixKey }, identifierField: 'pixKey' },
  SPARK_WALLET: { aliases: [], currencies: ['USDB', 'BTC'], needsBeneficiary: false, fields: { address: validateSparkAddress }, identifierField: 'address' },
  SOLANA_WALLET: { aliases: [], currencies: ['USDC'], needsBeneficiary: false, fields: { address: validateSolanaAddress }, identifierField: 'address' },
  ETHEREUM_WALLET: { aliases: [], currencies: ['USDC'], needsBeneficiary: false, fields: { address: validateEvmAddress }, identifierField: 'address' },
  BASE_WALLET: { aliases: [], currencies: ['USDC'], needsBeneficiary: false, fields: { address: validateEvmAddress }, identifierField: 'address' },
  POLYGON_WALLET: { aliases: [], currencies: ['USDC'], needsBeneficiary: false, fields: { address: validateEvmAddress }, identifierField: 'address' },
  TRON_WALLET: { aliases: [], currencies: ['USDC'], needsBeneficiary: false, fields: { address: validateTronAddress }, identifierField: 'address' },
  BITCOIN_WALLET: { aliases: ['BITCOIN_L1'], currencies: ['BTC'], needsBeneficiary: false, fields: { address: validateBitcoinAddress }, identifierField: 'address' },
  LIGHTNING: { aliases: [], currencies: ['BTC'], needsBeneficiary: false, fields: { invoice: validateLightningInvoice }, identifierField: 'invoice' },
};

const CANONICAL = new Map<string, string>();
for (const [name, rule] of Object.entries(ACCOUNT_TYPE_RULES)) {
  CANONICAL.set(name, name);
  for (const alias of rule.aliases) CANONICAL.set(alias, name);
}

export const ACCOUNT_TYPE_NAMES: string[] = [...CANONICAL.keys()];

export function canonicalAccountType(name: string): string | undefined {
  return CANONICAL.get(name);
}

/** The names (spec name and aliases) that mean the given canonical type. */
export function namesOf(canonical: string): string[] {
  return [canonical, ...(ACCOUNT_TYPE_RULES[canonical]?.aliases ?? [])];
}
