import { Type } from 'typebox';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import { ListQuery, listOf } from '../../http/schema-kit.js';
import { CurrencySchema } from '../accounts/schemas.js';

const CountryCode = Type.String({ format: 'country-code', description: 'ISO 3166-1 alpha-2 code' });
const CurrencyCode = Type.String({ enum: [...CURRENCY_CODES], description: 'ISO 4217 code (or the crypto asset’s)' });

export const DiscoveryQuery = Type.Object({ country: Type.Optional(CountryCode), currency: Type.Optional(CurrencyCode) }, { additionalProperties: false });

export const Discovery = Type.Object({
  bankName: Type.String({ description: 'Pass as accountInfo.bankName when creating an external account' }),
  displayName: Type.String(),
  country: Type.String(),
  currency: Type.String(),
});

export const DiscoveryListResponse = Type.Object({ data: Type.Array(Discovery) });

export const UmaProviderQuery = Type.Object(
  {
    ...ListQuery.properties,
    countryCode: Type.Optional(CountryCode),
    currencyCode: Type.Optional(CurrencyCode),
    hasBlockedProviders: Type.Optional(Type.Boolean({ description: 'false: only providers on the allowlist; by default all of them' })),
  },
  { additionalProperties: false },
);

export const UmaProvider = Type.Object({
  name: Type.String(),
  supportedRegions: Type.Array(Type.String()),
  domain: Type.String(),
  logoUrl: Type.Optional(Type.String({ format: 'uri' })),
  supportedCurrencies: Type.Array(CurrencySchema),
  lei: Type.Optional(Type.String()),
  allowListStatus: Type.Boolean({ description: 'Whether platforms of this instance may pay the provider’s addresses' }),
});

export const UmaProviderListResponse = listOf(UmaProvider);
