import { invalidInput, type FieldError } from '../../core/errors.js';
import type { InternalAccountId } from '../../core/ids.js';
import type { Ledger } from '../../ledger/index.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { currencyMismatch, isCrypto, requireCurrency } from '../../lib/currencies.js';
import { amountDoesNotCoverFee, currencyNotOnNetwork } from './errors.js';
import { NETWORKS, type WithdrawalFee } from './fee-table.js';

export interface FeeEstimateInput {
  internalAccountId: InternalAccountId;
  currency: string;
  cryptoNetwork: string;
  amount: number;
  destinationAddress: string;
}

/** The reference's EstimateCryptoWithdrawalFeeResponse: netAmount + totalFee = amount, exactly. */
export interface FeeEstimate {
  networkFee: bigint;
  networkFeeAsset: string;
  applicationFee: bigint;
  totalFee: bigint;
  netAmount: bigint;
}

/** The fees of withdrawing `amount` (bigint arithmetic; a share in basis points rounds up). */
export function feesOf(fee: WithdrawalFee, amount: bigint): { applicationFee: bigint; totalFee: bigint; netAmount: bigint } {
  const share = (amount * BigInt(fee.applicationFeeBps) + 9_999n) / 10_000n;
  const applicationFee = fee.applicationFee + share;
  const totalFee = fee.networkFeeInCurrency + applicationFee;
  return { applicationFee, totalFee, netAmount: amount - totalFee };
}

export type CryptoWithdrawalService = ReturnType<typeof createCryptoWithdrawalService>;

export function createCryptoWithdrawalService(deps: { ledger: Pick<Ledger, 'internalAccount'>; fees: readonly WithdrawalFee[] }) {
  const { ledger } = deps;
  const table = new Map(deps.fees.map((f) => [`${f.currency} ${f.network}`, f]));

  return {
    async estimate(uow: UnitOfWork, input: FeeEstimateInput): Promise<FeeEstimate> {
      const network = NETWORKS[input.cryptoNetwork];
      const problems: FieldError[] = [];
      if (!network) {
        problems.push({ field: 'cryptoNetwork', constraint: { enum: Object.keys(NETWORKS) }, message: `cryptoNetwork must be one of ${Object.keys(NETWORKS).join(', ')}` });
      } else {
        const address = network.validateAddress(input.destinationAddress);
        if (!address.ok) problems.push({ field: 'destinationAddress', message: `Not a ${input.cryptoNetwork} address: ${address.reason}` });
      }
      if (problems.length > 0) throw invalidInput(problems);

      const account = await ledger.internalAccount(uow.tx, uow.platformId, input.internalAccountId);
      requireCurrency(input.currency);
      if (account.currency !== input.currency) {
        throw currencyMismatch(input.currency, account.currency, `The internal account holds ${account.currency}, not ${input.currency}`);
      }
      const fee = table.get(`${input.currency} ${input.cryptoNetwork}`);
      if (!isCrypto(input.currency) || !fee) {
        const offered = deps.fees.filter((f) => f.currency === input.currency).map((f) => f.network);
        throw currencyNotOnNetwork(input.currency, input.cryptoNetwork, offered);
      }
      const amount = BigInt(input.amount);
      const { applicationFee, totalFee, netAmount } = feesOf(fee, amount);
      if (netAmount <= 0n) throw amountDoesNotCoverFee(amount, totalFee, input.currency);
      return { networkFee: fee.networkFee, networkFeeAsset: network!.feeAsset, applicationFee, totalFee, netAmount };
    },
  };
}
