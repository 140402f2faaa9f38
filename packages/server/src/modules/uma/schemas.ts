import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { Id, RequestAmount } from '../../http/schema-kit.js';
import { SupportedCurrency } from '../receiver/schemas.js';
import { PAYER_FIELD_NAMES } from './payer-fields.js';

const UmaAddressString = Type.String({ minLength: 1, maxLength: 260, description: '$user@domain' });

export const UmaLookupParams = Type.Object({ receiverUmaAddress: Type.String({ minLength: 1, maxLength: 260, pattern: '^[^/]{1,260}$', description: '$user@domain (a malformed one is 400 INVALID_UMA_ADDRESS)' }) });

export const UmaLookupQuery = Type.Object(
  {
    senderUmaAddress: Type.Optional(UmaAddressString),
    customerId: Type.Optional(Id('Customer')),
  },
  { additionalProperties: false },
);

export const ReceiverUmaLookup = Type.Object({
  receiverUmaAddress: Type.String(),
  lookupId: Type.String({ description: 'Lookup:<uuid>; may be passed to POST /quotes as lookupId (the same receiver looked up by the same sender has the same id)' }),
  supportedCurrencies: Type.Array(
    SupportedCurrency,
  ),
  requiredPayerDataFields: Type.Array(Type.Object({ name: Type.String({ enum: [...PAYER_FIELD_NAMES] }), mandatory: Type.Boolean() })),
});

export const SandboxUmaReceiveRequest = Type.Object(
  {
    senderUmaAddress: UmaAddressString,
    receiverUmaAddress: Type.Optional(UmaAddressString),
    customerId: Type.Optional(Id('Customer')),
    receivingCurrencyCode: Type.String({ enum: [...CURRENCY_CODES] }),
    receivingCurrencyAmount: RequestAmount({ minimum: 1, description: 'Smallest unit of the receiving currency' }),
  },
  { additionalProperties: false },
);
