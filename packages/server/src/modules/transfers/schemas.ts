import { Type } from 'typebox';
import { AccountIdSchema, RequestAmount } from '../../http/schema-kit.js';

const AccountReference = Type.Object({ accountId: AccountIdSchema }, { additionalProperties: false });

/** `amount` is only typed here: a non-positive amount is INVALID_AMOUNT and a limit breach AMOUNT_OUT_OF_RANGE. */
export const TransferOutRequest = Type.Object(
  {
    source: AccountReference,
    destination: Type.Object({ accountId: AccountIdSchema, paymentRail: Type.Optional(Type.String({ maxLength: 40 })) }, { additionalProperties: false }),
    amount: Type.Optional(
      RequestAmount({ description: 'Smallest unit of the accounts’ currency. Optional (in both versions of the reference): without it, the source’s whole available balance is sent.' }),
    ),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    remittanceInformation: Type.Optional(Type.String({ maxLength: 80 })),
    purposeOfPayment: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const TransferInRequest = Type.Object(
  {
    source: AccountReference,
    destination: AccountReference,
    amount: Type.Optional(
      RequestAmount({
        description: "Smallest unit of the accounts’ currency. Optional (as in the reference) when the source is the platform's internal account: then its whole available balance moves.",
      }),
    ),
    description: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
