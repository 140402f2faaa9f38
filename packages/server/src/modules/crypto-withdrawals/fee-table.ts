import { readFileSync } from 'node:fs';
import {
  validateBitcoinAddress,
  validateEvmAddress,
  validateLightningInvoice,
  validateSolanaAddress,
  validateSparkAddress,
  validateTronAddress,
  type ValidationResult,
} from '../../lib/account-numbers/index.js';
import { isCrypto } from '../../lib/currencies.js';

/**
 * The networks a crypto withdrawal leaves on: the reference's CryptoNetwork values and LIGHTNING
 * (which its estimate request names), each with the address form it pays and the asset its fees
 * are paid in (networkFee is in that asset's smallest unit: lamports, wei, sun, satoshis).
 */
export const NETWORKS: Record<string, { feeAsset: string; validateAddress: (address: string) => ValidationResult }> = {
  SOLANA: { feeAsset: 'SOL', validateAddress: validateSolanaAddress },
  ETHEREUM: { feeAsset: 'ETH', validateAddress: validateEvmAddress },
  BASE: { feeAsset: 'ETH', validateAddress: validateEvmAddress },
  POLYGON: { feeAsset: 'POL', validateAddress: validateEvmAddress },
  PLASMA: { feeAsset: 'XPL', validateAddress: validateEvmAddress },
  TRON: { feeAsset: 'TRX', validateAddress: validateTronAddress },
  BITCOIN: { feeAsset: 'BTC', validateAddress: validateBitcoinAddress },
  LIGHTNING: { feeAsset: 'BTC', validateAddress: validateLightningInvoice },
  SPARK: { feeAsset: 'BTC', validateAddress: validateSparkAddress },
};

/** What a withdrawal of one asset on one network costs. Amounts are integers in smallest units. */
export interface WithdrawalFee {
  network: string;
  currency: string;
  /** The raw on-chain cost, in the network's fee asset (informational: it is not in `currency`). */
  networkFee: bigint;
  /** What the withdrawal is charged for that cost, in `currency`: the operator's price of it. */
  networkFeeInCurrency: bigint;
  /** The platform's fixed fee per withdrawal, in `currency`. */
  applicationFee: bigint;
  /** And its share of the amount, in basis points, rounded up to the smallest unit. */
  applicationFeeBps: number;
}

const fee = (network: string, currency: string, networkFee: bigint, networkFeeInCurrency: bigint): WithdrawalFee => ({
  network,
  currency,
  networkFee,
  networkFeeInCurrency,
  applicationFee: 0n,
  applicationFeeBps: 0,
});

/**
 * The default table: typical network costs, priced in the withdrawn asset, no application fee.
 * USDC moves on the EVM chains, Solana and Tron; USDB on Spark; BTC on Bitcoin, Lightning and Spark.
 */
export const DEFAULT_WITHDRAWAL_FEES: readonly WithdrawalFee[] = [
  fee('SOLANA', 'USDC', 5_000n, 1_000n), // 5,000 lamports; 0.001 USDC
  fee('ETHEREUM', 'USDC', 1_300_000_000_000_000n, 3_000_000n), // 0.0013 ETH; 3 USDC
  fee('BASE', 'USDC', 1_000_000_000_000n, 10_000n), // 0.000001 ETH; 0.01 USDC
  fee('POLYGON', 'USDC', 2_000_000_000_000_000n, 1_000n), // 0.002 POL; 0.001 USDC
  fee('PLASMA', 'USDC', 0n, 0n),
  fee('TRON', 'USDC', 13_000_000n, 3_250_000n), // 13 TRX; 3.25 USDC
  fee('SPARK', 'USDB', 0n, 0n),
  fee('SPARK', 'BTC', 0n, 0n),
  fee('LIGHTNING', 'BTC', 10n, 10n),
  fee('BITCOIN', 'BTC', 2_000n, 2_000n),
];

const WHOLE = /^(0|[1-9][0-9]{0,18})$/;
const INT64_MAX = 2n ** 63n - 1n;

function amountOf(field: string, value: unknown, problems: string[]): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || !WHOLE.test(text) || BigInt(text) > INT64_MAX) {
    problems.push(`${field} must be a whole number of smallest units up to 2^63 - 1 (a string for one above 2^53)`);
    return 0n;
  }
  return BigInt(text);
}

/** One entry of MONETA_CRYPTO_WITHDRAWAL_FEES_FILE, checked. */
function checkEntry(entry: unknown, index: number): WithdrawalFee {
  const at = `MONETA_CRYPTO_WITHDRAWAL_FEES_FILE[${index}]`;
  if (typeof entry !== 'object' || entry === null) throw new Error(`${at} must be an object`);
  const e = entry as Record<string, unknown>;
  const problems: string[] = [];
  const network = typeof e.network === 'string' ? NETWORKS[e.network] : undefined;
  if (!network) problems.push(`network must be one of ${Object.keys(NETWORKS).join(', ')}`);
  if (typeof e.currency !== 'string' || !isCrypto(e.currency)) problems.push('currency must be a crypto currency this service holds (USDC, USDB, BTC)');
  const networkFee = amountOf('networkFee', e.networkFee ?? 0, problems);
  const sameAsset = network !== undefined && network.feeAsset === e.currency;
  // Where the fee is paid in the withdrawn asset itself, its price is the fee.
  const networkFeeInCurrency = amountOf('networkFeeInCurrency', e.networkFeeInCurrency ?? (sameAsset ? String(networkFee) : undefined), problems);
  if (sameAsset && networkFeeInCurrency !== networkFee) problems.push(`networkFeeInCurrency must equal networkFee: the network's fee is paid in ${String(e.currency)}`);
  const applicationFee = amountOf('applicationFee', e.applicationFee ?? 0, problems);
  const bps = e.applicationFeeBps ?? 0;
  if (typeof bps !== 'number' || !Number.isInteger(bps) || bps < 0 || bps >= 10_000) problems.push('applicationFeeBps must be a whole number of basis points below 10000');
  const unknown = Object.keys(e).filter((k) => !['network', 'currency', 'networkFee', 'networkFeeInCurrency', 'applicationFee', 'applicationFeeBps'].includes(k));
  if (unknown.length > 0) problems.push(`unknown field(s) ${unknown.join(', ')}`);
  if (problems.length > 0) throw new Error(`${at}: ${problems.join('; ')}`);
  return { network: e.network as string, currency: e.currency as string, networkFee, networkFeeInCurrency, applicationFee, applicationFeeBps: bps as number };
}

declare module '../../contract/module.js' {
  interface ModuleSettings {
    cryptoWithdrawals: { fees: readonly WithdrawalFee[] };
  }
}

/** MONETA_CRYPTO_WITHDRAWAL_FEES_FILE: a JSON list that replaces the default table, checked at start. */
export function readWithdrawalFeeSettings(environment: Readonly<Record<string, string | undefined>>): { fees: readonly WithdrawalFee[] } {
  const path = environment.MONETA_CRYPTO_WITHDRAWAL_FEES_FILE;
  if (!path) return { fees: DEFAULT_WITHDRAWAL_FEES };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`MONETA_CRYPTO_WITHDRAWAL_FEES_FILE ${path} could not be read as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error('MONETA_CRYPTO_WITHDRAWAL_FEES_FILE must hold a JSON array');
  const fees = parsed.map(checkEntry);
  const seen = new Set<string>();
  for (const f of fees) {
    const key = `${f.currency} on ${f.network}`;
    if (seen.has(key)) throw new Error(`MONETA_CRYPTO_WITHDRAWAL_FEES_FILE lists ${key} twice`);
    seen.add(key);
  }
  return { fees };
}
