import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';

export const SandboxBankTransferRequest = Type.Object(
  {
    reference: Type.String({ minLength: 1, maxLength: 64, description: 'The funding reference quoted in the transfer memo' }),
    amount: Type.Integer({ minimum: 1, maximum: 100_000_000_000 }),
    currency: Type.Optional(Type.String({ enum: [...CURRENCY_CODES] })),
    senderName: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
  },
  { additionalProperties: false },
);
