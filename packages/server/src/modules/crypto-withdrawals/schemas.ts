import { Type } from 'typebox';
import { Id, MinorUnits, RequestAmount } from '../../http/schema-kit.js';

export const EstimateCryptoWithdrawalFeeRequest = Type.Object(
  {
    internalAccountId: Id('InternalAccount'),
    currency: Type.String({ pattern: '^[A-Z]{3,5}$', description: 'The asset withdrawn: USDC, USDB or BTC' }),
    cryptoNetwork: Type.String({ pattern: '^[A-Z_]{2,20}$', description: 'SOLANA, ETHEREUM, BASE, POLYGON, PLASMA, TRON, BITCOIN, LIGHTNING or SPARK' }),
    amount: RequestAmount({ minimum: 1, description: 'Smallest unit of the asset' }),
    destinationAddress: Type.String({ minLength: 1, maxLength: 2048, description: 'An address (a Lightning invoice) of the network' }),
  },
  { additionalProperties: false },
);

export const EstimateCryptoWithdrawalFeeResponse = Type.Object({
  networkFee: MinorUnits,
  networkFeeAsset: Type.String(),
  applicationFee: MinorUnits,
  totalFee: MinorUnits,
  netAmount: MinorUnits,
});
