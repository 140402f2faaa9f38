import type { FieldError } from '../../core/errors.js';
import {
  validateAbaRoutingNumber,
  validateBitcoinAddress,
  validateCaAccountNumber,
  validateCaInstitutionNumber,
  validateCaTransitNumber,
  validateClabe,
  validateCnpj,
  validateCpf,
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

import type { ProofChain } from './ownership/wallet-signatures.js';

type FieldValidator = (value: string, info: Record<string, unknown>) => ValidationResult;
type Info = Record<string, unknown>;

export interface AccountTypeRule {
  /** Other names for the same type; accepted on input, answered with the canonical name. */
  aliases: string[];
  currencies: string[];
  /** Bank accounts name the person or business paid; wallets do not. */
  needsBeneficiary: boolean;
  /** What an individual beneficiary must give beyond its full name (the reference's per-currency beneficiary). */
  individualRequires?: string[];
  /**
   * Fields that identify the account, each with the validator of its real encoding. Their values,
   * in this order, make the account's fingerprint (duplicate detection).
   */
  fields: Record<string, FieldValidator>;
  /** The fields the request must carry, when not exactly `fields` (default: every one of `fields`). */
  required?: string[];
  /** The field whose last three characters pick a sandbox outcome. */
  identifierField: string | ((info: Info) => string);
  /**
   * The reference's `paymentRails` enum for the type (bank accounts only; the reference's wallet
   * types have none). Every account of the type is answered with `paymentRails`.
   */
  paymentRails?: readonly string[];
  /** The rails one registered account is paid on (default: every one of `paymentRails`). */
  railsFor?: (info: Info) => string[];
  /** Which of the type's alternative fields must be present (missing ones are INVALID_INPUT). */
  requires?: (info: Info) => FieldError[];
  /** Checks across fields, after each field's own (failures are INVALID_BANK_ACCOUNT). */
  crossCheck?: (info: Info) => FieldError[];
  /** The name fingerprints were computed with before the type was renamed, so duplicates are still found. */
  fingerprintName?: string;
  /**
   * A crypto wallet: it takes `vaspName` (held at an exchange or custodian) and a wallet
   * `beneficiary`; a self-custody one's ownership can be proven, by a message signature on
   * `chain` (when its address type can sign one) or by a liveness check.
   */
  wallet?: { chain: ProofChain };
}

/** The reference's Pix key types, and how `validatePixKey` names each. */
const PIX_KEY_TYPES = { CPF: 'cpf', CNPJ: 'cnpj', EMAIL: 'email', PHONE: 'phone', RANDOM: 'evp' } as const;
export const PIX_KEY_TYPE_NAMES = Object.keys(PIX_KEY_TYPES);

/** The reference's INR rails: UPI pays a `vpa`, NEFT and RTGS an `accountNumber` at an `ifsc`. */
export const INR_RAILS = ['UPI', 'NEFT', 'RTGS'] as const;

const present = (info: Info, field: string): boolean => typeof info[field] === 'string' && info[field] !== '';
/** A field's text ('' when absent or not text). */
export const textOf = (info: Info, field: string): string => (typeof info[field] === 'string' ? info[field] : '');

function brlChecks(info: Info): FieldError[] {
  const problems: FieldError[] = [];
  const taxId = textOf(info, 'taxId');
  const tax = taxId.length === 11 ? validateCpf(taxId) : taxId.length === 14 ? validateCnpj(taxId) : { ok: false as const, reason: 'Tax id must be an 11-digit CPF or a 14-digit CNPJ' };
  if (!tax.ok) problems.push({ field: 'accountInfo.taxId', message: tax.reason });
  const key = validatePixKey(textOf(info, 'pixKey'));
  const declared = PIX_KEY_TYPES[info.pixKeyType as keyof typeof PIX_KEY_TYPES];
  if (key.ok && declared && key.keyType !== declared) {
    const actual = Object.entries(PIX_KEY_TYPES).find(([, name]) => name === key.keyType)?.[0] ?? key.keyType;
    problems.push({ field: 'accountInfo.pixKeyType', constraint: { enum: [actual] }, message: `The Pix key is a ${actual} key, not ${String(info.pixKeyType)}` });
  }
  return problems;
}

/**
 * A NUBAN's check digit depends on its bank's code. With `bankCode` the number is checked against
 * it; without (the reference's NGN account has no bank code: `bankName` names the bank, and its CLI
 * sends none) only its form can be: ten digits.
 */
function ngnAccountNumber(value: string, info: Info): ValidationResult {
  if (typeof info.bankCode === 'string') return validateNuban(value, info.bankCode);
  const digits = value.replace(/[\s-]/g, '');
  return /^[0-9]{10}$/.test(digits) ? { ok: true, normalized: digits } : { ok: false, reason: 'A NUBAN is 10 digits' };
}

/**
 * An individual paid in EUR gives a country of residence (the reference's EurBeneficiary); when it
 * is left out, the country of the beneficiary's address is taken as it (the address is where the
 * person lives). Without either it is missing.
 */
function eurRequires(info: Info): FieldError[] {
  const beneficiary = info.beneficiary as { beneficiaryType?: string; countryOfResidence?: string; address?: { country?: string } } | undefined;
  if (beneficiary?.beneficiaryType !== 'INDIVIDUAL' || beneficiary.countryOfResidence) return [];
  const country = beneficiary.address?.country;
  if (country) {
    info.beneficiary = { ...beneficiary, countryOfResidence: country };
    return [];
  }
  return [{ field: 'accountInfo.beneficiary.countryOfResidence', message: 'An individual paid in EUR needs a countryOfResidence (or an address with a country)' }];
}

function inrRequires(info: Info): FieldError[] {
  const bank = present(info, 'accountNumber') || present(info, 'ifsc');
  if (!bank && !present(info, 'vpa')) {
    return [{ field: 'accountInfo.vpa', message: 'An INR account needs a vpa (UPI), or an accountNumber and ifsc (NEFT, RTGS)' }];
  }
  const problems: FieldError[] = [];
  if (bank) for (const field of ['accountNumber', 'ifsc']) if (!present(info, field)) problems.push({ field: `accountInfo.${field}`, message: `accountInfo.${field} is required with a bank account (NEFT, RTGS)` });
  const rail = info.rail;
  if (rail === 'UPI' && !present(info, 'vpa')) problems.push({ field: 'accountInfo.vpa', message: 'accountInfo.vpa is required for rail UPI' });
  if ((rail === 'NEFT' || rail === 'RTGS') && !bank) problems.push({ field: 'accountInfo.accountNumber', message: `accountInfo.accountNumber and accountInfo.ifsc are required for rail ${rail}` });
  // Rails asked for by name (another client's paymentRails) need what those rails pay.
  const asked = Array.isArray(info.paymentRails) ? (info.paymentRails as string[]) : [];
  const possible = [...(present(info, 'vpa') ? ['UPI'] : []), ...(bank ? ['NEFT', 'RTGS'] : [])];
  const impossible = asked.filter((name) => (INR_RAILS as readonly string[]).includes(name) && !possible.includes(name));
  if (impossible.length > 0) problems.push({ field: 'accountInfo.paymentRails', message: `${impossible.join(', ')} need${impossible.length === 1 ? 's' : ''} ${impossible.includes('UPI') ? 'a vpa' : 'an accountNumber and ifsc'}` });
  return problems;
}

function inrRails(info: Info): string[] {
  if (typeof info.rail === 'string') return [info.rail];
  return [...(present(info, 'vpa') ? ['UPI'] : []), ...(present(info, 'accountNumber') ? ['NEFT', 'RTGS'] : [])];
}

/**
 * A crypto wallet type: paid at its `address`; no bank beneficiary, but an optional wallet one (an
 * individual gives a country of residence, as the reference's WalletIndividualBeneficiary says).
 */
function wallet(currencies: string[], validate: FieldValidator, chain: ProofChain): AccountTypeRule {
  return { aliases: [], currencies, needsBeneficiary: false, individualRequires: ['countryOfResidence'], fields: { address: validate }, identifierField: 'address', wallet: { chain } };
}

/**
 * Every external account type we accept, keyed by the name we answer with: the spec's name where
 * interface.md names the type (CLABE, US_ACCOUNT, SPARK_WALLET, SOLANA_WALLET), else the
 * reference's. The other name of each is an alias.
 */
export const ACCOUNT_TYPE_RULES: Record<string, AccountTypeRule> = {
  CLABE: { aliases: ['MXN_ACCOUNT'], currencies: ['MXN'], needsBeneficiary: true, fields: { clabeNumber: validateClabe }, identifierField: 'clabeNumber', paymentRails: ['SPEI'] },
  US_ACCOUNT: {
    aliases: ['USD_ACCOUNT'],
    currencies: ['USD'],
    needsBeneficiary: true,
    fields: { routingNumber: validateAbaRoutingNumber, accountNumber: validateUsAccountNumber },
    identifierField: 'accountNumber',
    paymentRails: ['ACH', 'WIRE', 'RTP', 'FEDNOW'],
    // Every US bank account takes ACH and wires; RTP and FedNow depend on the receiving bank.
    railsFor: () => ['ACH', 'WIRE'],
  },
  EUR_ACCOUNT: {
    aliases: ['IBAN'],
    currencies: ['EUR'],
    needsBeneficiary: true,
    fields: { iban: validateIban },
    requires: eurRequires,
    identifierField: 'iban',
    paymentRails: ['SEPA', 'SEPA_INSTANT'],
    fingerprintName: 'IBAN',
  },
  GBP_ACCOUNT: {
    aliases: [],
    currencies: ['GBP'],
    needsBeneficiary: true,
    fields: { sortCode: validateUkSortCode, accountNumber: validateUkAccountNumber },
    identifierField: 'accountNumber',
    paymentRails: ['FASTER_PAYMENTS'],
  },
  CAD_ACCOUNT: {
    aliases: [],
    currencies: ['CAD'],
    needsBeneficiary: true,
    fields: { bankCode: validateCaInstitutionNumber, branchCode: validateCaTransitNumber, accountNumber: validateCaAccountNumber },
    identifierField: 'accountNumber',
    paymentRails: ['BANK_TRANSFER'],
  },
  INR_ACCOUNT: {
    aliases: [],
    currencies: ['INR'],
    needsBeneficiary: true,
    fields: { ifsc: validateIfsc, accountNumber: validateInAccountNumber, vpa: (value) => ({ ok: true, normalized: value }) },
    required: [],
    requires: inrRequires,
    identifierField: (info) => (present(info, 'accountNumber') ? 'accountNumber' : 'vpa'),
    paymentRails: INR_RAILS,
    railsFor: inrRails,
  },
  NGN_ACCOUNT: {
    aliases: [],
    currencies: ['NGN'],
    needsBeneficiary: true,
    fields: { accountNumber: ngnAccountNumber },
    required: ['accountNumber', 'bankName'],
    identifierField: 'accountNumber',
    paymentRails: ['BANK_TRANSFER'],
  },
  BRL_ACCOUNT: {
    aliases: [],
    currencies: ['BRL'],
    needsBeneficiary: true,
    fields: { pixKey: validatePixKey },
    required: ['pixKey', 'pixKeyType', 'taxId'],
    crossCheck: brlChecks,
    identifierField: 'pixKey',
    paymentRails: ['PIX'],
  },
  SPARK_WALLET: wallet(['USDB', 'BTC'], validateSparkAddress, 'spark'),
  SOLANA_WALLET: wallet(['USDC'], validateSolanaAddress, 'solana'),
  ETHEREUM_WALLET: wallet(['USDC'], validateEvmAddress, 'evm'),
  BASE_WALLET: wallet(['USDC'], validateEvmAddress, 'evm'),
  POLYGON_WALLET: wallet(['USDC'], validateEvmAddress, 'evm'),
  // Plasma is an EVM chain (stablecoin payments); the reference lists it among its wallet types.
  PLASMA_WALLET: wallet(['USDC'], validateEvmAddress, 'evm'),
  TRON_WALLET: wallet(['USDC'], validateTronAddress, 'tron'),
  // The reference has no on-chain Bitcoin external account; BITCOIN_L1 is its name for that kind of
  // account elsewhere (PaymentAccountType), so it is the name we answer with.
  BITCOIN_L1: { ...wallet(['BTC'], validateBitcoinAddress, 'bitcoin'), aliases: ['BITCOIN_WALLET'], fingerprintName: 'BITCOIN_WALLET' },
  LIGHTNING: { aliases: ['LIGHTNING_ACCOUNT'], currencies: ['BTC'], needsBeneficiary: false, fields: { invoice: validateLightningInvoice }, identifierField: 'invoice' },
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

/** The names (canonical name and aliases) that mean the given canonical type. */
export function namesOf(canonical: string): string[] {
  return [canonical, ...(ACCOUNT_TYPE_RULES[canonical]?.aliases ?? [])];
}

/** The fields a request for the type must carry (beneficiary aside). */
export function requiredFields(rule: AccountTypeRule): string[] {
  return rule.required ?? Object.keys(rule.fields);
}

/** The field whose value picks the sandbox outcome of an account. */
export function identifierFieldOf(rule: AccountTypeRule, info: Info): string {
  return typeof rule.identifierField === 'function' ? rule.identifierField(info) : rule.identifierField;
}

/** The rails an account is paid on, as the reference's `accountInfo.paymentRails`; undefined for wallets. */
export function paymentRailsOf(rule: AccountTypeRule, info: Info): string[] | undefined {
  if (!rule.paymentRails) return undefined;
  // The rails the account was registered for, when the client named them.
  if (Array.isArray(info.paymentRails)) return info.paymentRails as string[];
  return rule.railsFor ? rule.railsFor(info) : [...rule.paymentRails];
}
