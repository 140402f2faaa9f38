import { defineError } from '../../core/errors.js';

export const currencyNotOnNetwork = defineError(
  { status: 400, code: 'INVALID_CURRENCY', reason: 'CURRENCY_NOT_ON_NETWORK', description: 'The asset is not withdrawn on that network' },
  (currency: string, network: string, offered: string[]) => ({
    message: `${currency} is not withdrawn on ${network}${offered.length > 0 ? ` (it is on ${offered.join(', ')})` : ''}`,
    details: { currency, cryptoNetwork: network, networks: offered },
  }),
);

export const amountDoesNotCoverFee = defineError(
  { status: 400, code: 'AMOUNT_OUT_OF_RANGE', reason: 'AMOUNT_DOES_NOT_COVER_FEE', description: 'The amount does not exceed the withdrawal’s fees, so nothing would arrive' },
  (amount: bigint, totalFee: bigint, currency: string) => ({
    message: `A withdrawal of ${amount} ${currency} minor units does not cover its fees of ${totalFee}`,
    details: { amount, totalFee, currency },
  }),
);

export const CRYPTO_WITHDRAWAL_ERRORS = [currencyNotOnNetwork, amountDoesNotCoverFee];
