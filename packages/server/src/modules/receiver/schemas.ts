import { Type } from 'typebox';
import { Id, MinorUnits } from '../../http/schema-kit.js';
import { CurrencySchema } from '../accounts/schemas.js';

export const ReceiverAccountParams = Type.Object({ accountId: Id('ExternalAccount') });

export const ReceiverLookupQuery = Type.Object(
  {
    customerId: Type.Optional(Id('Customer')),
    senderUmaAddress: Type.Optional(Type.String({ maxLength: 260 })),
  },
  { additionalProperties: false },
);

/** A currency a receiver accepts, with the sender's estimated rate and the receiver's limits (both lookups). */
export const SupportedCurrency = Type.Object({
  currency: CurrencySchema,
  estimatedExchangeRate: Type.Number({ description: 'Receiving units per one unit of the sender’s currency; not locked (a quote locks it)' }),
  min: MinorUnits,
  max: MinorUnits,
});

export const ReceiverExternalAccountLookup = Type.Object({
  accountId: Type.String(),
  lookupId: Type.String({ description: 'Lookup:<uuid>; may be passed to POST /quotes as lookupId' }),
  supportedCurrencies: Type.Array(
    SupportedCurrency,
  ),
  requiredPayerDataFields: Type.Array(Type.Object({ name: Type.String(), mandatory: Type.Boolean() })),
});
