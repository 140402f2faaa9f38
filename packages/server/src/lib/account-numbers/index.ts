/**
 * Validation of bank account numbers and wallet addresses, for registering external accounts
 * (payout destinations). Pure functions: no database, no network, no clock.
 *
 * Every validator takes the string a person typed and returns either
 * `{ ok: true, normalized, ...details }` or `{ ok: false, reason }`. Outer whitespace is always
 * ignored; the separators a scheme is commonly written with (spaces and hyphens in bank numbers,
 * spaces in IBANs, punctuation in CPF/CNPJ) are accepted and removed; `normalized` is the
 * canonical form to store. Reasons are short, human-readable and never echo the input.
 *
 * Look validators up by scheme name in `ACCOUNT_SCHEMES`; the per-scheme functions are exported
 * too, with richer result types (bank codes, networks, address types).
 */
import { validateAbaRoutingNumber, validateUsAccountNumber } from './aba.js';
import { validateBitcoinAddress } from './bitcoin.js';
import { validateCnpj, validateCpf, validatePixKey } from './brazil.js';
import { validateCaAccountNumber, validateCaInstitutionNumber, validateCaRoutingNumber, validateCaTransitNumber } from './canada.js';
import { validateClabe } from './clabe.js';
import { validateEvmAddress } from './evm.js';
import { validateIban } from './iban.js';
import { validateIfsc, validateInAccountNumber } from './india.js';
import { validateLightningInvoice } from './lightning.js';
import { validateNuban } from './nuban.js';
import type { AccountValidator, ValidationContext, ValidationResult } from './result.js';
import { validateSolanaAddress } from './solana.js';
import { validateSparkAddress } from './spark.js';
import { validateTronAddress } from './tron.js';
import { validateUkAccountNumber, validateUkSortCode } from './uk.js';

export { MAX_INPUT_LENGTH, type AccountValidator, type Invalid, type Valid, type ValidationContext, type ValidationResult } from './result.js';
export { abaCheckDigit, abaChecksum, validateAbaRoutingNumber, validateUsAccountNumber } from './aba.js';
export { validateBitcoinAddress, type BitcoinAddressDetails, type BitcoinAddressType, type BitcoinNetwork } from './bitcoin.js';
export { cnpjCheckDigits, cpfCheckDigits, validateCnpj, validateCpf, validatePixKey, type PixKeyType } from './brazil.js';
export { validateCaAccountNumber, validateCaInstitutionNumber, validateCaRoutingNumber, validateCaTransitNumber } from './canada.js';
export { clabeBankCode, clabeCheckDigit, validateClabe, type ClabeDetails } from './clabe.js';
export { toChecksumAddress, validateEvmAddress } from './evm.js';
export { formatIban, IBAN_LENGTHS, ibanCheckDigits, ibanMod97, validateIban } from './iban.js';
export { validateIfsc, validateInAccountNumber } from './india.js';
export { validateLightningInvoice, type LightningInvoiceDetails, type LightningNetwork } from './lightning.js';
export { nubanCheckDigit, validateNuban } from './nuban.js';
export { validateSolanaAddress } from './solana.js';
export { isCompressedSecp256k1Point, validateSparkAddress, type SparkNetwork } from './spark.js';
export { TRON_VERSION_BYTE, validateTronAddress } from './tron.js';
export { formatUkSortCode, validateUkAccountNumber, validateUkSortCode } from './uk.js';

export type AccountScheme =
  | 'mx_clabe'
  | 'us_routing_number'
  | 'us_account_number'
  | 'iban'
  | 'gb_sort_code'
  | 'gb_account_number'
  | 'ca_institution_number'
  | 'ca_transit_number'
  | 'ca_routing_number'
  | 'ca_account_number'
  | 'br_cpf'
  | 'br_cnpj'
  | 'br_pix_key'
  | 'in_ifsc'
  | 'in_account_number'
  | 'ng_nuban'
  | 'solana_address'
  | 'evm_address'
  | 'ethereum_address'
  | 'base_address'
  | 'polygon_address'
  | 'tron_address'
  | 'bitcoin_address'
  | 'spark_address'
  | 'lightning_invoice';

/**
 * Every scheme's validator by name. `ng_nuban` reads the bank code from the context
 * (`{ bankCode }`) and fails without it; the others ignore the context.
 */
export const ACCOUNT_SCHEMES: Readonly<Record<AccountScheme, AccountValidator>> = Object.freeze({
  mx_clabe: validateClabe,
  us_routing_number: validateAbaRoutingNumber,
  us_account_number: validateUsAccountNumber,
  iban: validateIban,
  gb_sort_code: validateUkSortCode,
  gb_account_number: validateUkAccountNumber,
  ca_institution_number: validateCaInstitutionNumber,
  ca_transit_number: validateCaTransitNumber,
  ca_routing_number: validateCaRoutingNumber,
  ca_account_number: validateCaAccountNumber,
  br_cpf: validateCpf,
  br_cnpj: validateCnpj,
  br_pix_key: validatePixKey,
  in_ifsc: validateIfsc,
  in_account_number: validateInAccountNumber,
  ng_nuban: (input, context) => validateNuban(input, context?.bankCode),
  solana_address: validateSolanaAddress,
  evm_address: validateEvmAddress,
  ethereum_address: validateEvmAddress,
  base_address: validateEvmAddress,
  polygon_address: validateEvmAddress,
  tron_address: validateTronAddress,
  bitcoin_address: validateBitcoinAddress,
  spark_address: validateSparkAddress,
  lightning_invoice: validateLightningInvoice,
});

export const ACCOUNT_SCHEME_NAMES: readonly AccountScheme[] = Object.freeze(Object.keys(ACCOUNT_SCHEMES) as AccountScheme[]);

export function isAccountScheme(name: string): name is AccountScheme {
  return Object.hasOwn(ACCOUNT_SCHEMES, name);
}

/** Validates `input` under the named scheme; an unknown scheme name is itself a failure. */
export function validateAccount(scheme: string, input: string, context?: ValidationContext): ValidationResult {
  if (!isAccountScheme(scheme)) return { ok: false, reason: `Unknown account scheme ${JSON.stringify(scheme)}` };
  return ACCOUNT_SCHEMES[scheme](input, context);
}
