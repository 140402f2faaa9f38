import { Type } from 'typebox';
import { Id, listOf, Timestamp } from '../../http/schema-kit.js';

/** The reference's Stablecoin* schemas (openapi-head.yaml), as requests are validated and answers shaped. */

const Enum = <T extends string>(values: readonly T[], description?: string) => Type.Unsafe<T>(Type.String({ enum: [...values], ...(description ? { description } : {}) }));

export const PROVIDERS = ['BRALE'] as const;
export const PROVIDER_ACCOUNT_STATUSES = ['ACTIVE', 'INVALID', 'REVOKED'] as const;
export const ISSUANCE_STATUSES = ['PENDING_REVIEW', 'PROVISIONING', 'PROVISIONED', 'REJECTED', 'FAILED'] as const;
export const GRID_OPERATIONS_STATUSES = ['NOT_ENABLED', 'PENDING_APPROVAL', 'ENABLING', 'ENABLED', 'DISABLED'] as const;
export const OPERATION_TYPES = ['MINT', 'BURN'] as const;
export const OPERATION_STATUSES = ['CREATED', 'PENDING_FUNDING', 'PENDING_PROVIDER', 'PROCESSING', 'COMPLETED', 'FAILED', 'EXPIRED'] as const;
export const MINT_FUNDING_TYPES = ['WIRE', 'ACH_DEBIT', 'SAME_DAY_ACH_DEBIT', 'GRID_INTERNAL_ACCOUNT', 'PROVIDER_INTERNAL_BALANCE'] as const;
export const BURN_SOURCE_TYPES = ['EXTERNAL_ACCOUNT', 'GRID_INTERNAL_ACCOUNT', 'PROVIDER_INTERNAL_BALANCE'] as const;
export const PAYOUT_RAILS = ['WIRE', 'ACH_CREDIT', 'SAME_DAY_ACH_CREDIT', 'RTP_CREDIT'] as const;

const Provider = Enum(PROVIDERS, 'Stablecoin provider backing the link, stablecoin or operation');
const Environment = Enum(['SANDBOX', 'PRODUCTION'] as const, 'Provider environment, derived from the mode of this installation');
const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
/** A whole number of the token's smallest unit, as a string (it may exceed what a JSON number holds exactly). */
const TokenAmount = Type.String({ pattern: '^[0-9]{1,30}$', description: "Amount in the stablecoin's smallest unit; must convert exactly to a whole fiat cent" });

// Provider account links

export const ProviderAccountLinkRequest = Type.Object(
  {
    provider: Provider,
    apiClientId: Text(255, 'Provider API client id'),
    apiClientSecret: Text(1024, 'Provider API client secret: verified, stored sealed, never returned'),
    providerAccountId: Type.Optional(Text(255, 'Provider account id; optional when the credentials reach exactly one account')),
  },
  { additionalProperties: false },
);

export const ProviderAccount = Type.Object({
  id: Type.String(),
  provider: Provider,
  providerAccountId: Type.String(),
  providerEnvironment: Environment,
  status: Enum(PROVIDER_ACCOUNT_STATUSES),
  lastVerifiedAt: Type.Optional(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ProviderAccountListQuery = Type.Object(
  {
    provider: Type.Optional(Provider),
    status: Type.Optional(Enum(PROVIDER_ACCOUNT_STATUSES)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);
export const ProviderAccountListResponse = listOf(ProviderAccount);
export const ProviderAccountParams = Type.Object({ stablecoinProviderAccountId: Id('StablecoinProviderAccount') });

// Stablecoins

export const StablecoinRegisterRequest = Type.Object(
  {
    providerTokenIdentifier: Text(64, "Provider identifier of the token (Brale's value_type)"),
    networkTokenIdentifier: Type.String({ minLength: 5, maxLength: 200, pattern: '^[a-z]+1[02-9ac-hj-np-z]+$', description: 'Token identifier on the network (a bech32m Spark token identifier, btkn1…)' }),
    network: Enum(['SPARK'] as const),
    stablecoinProviderAccountId: Type.Optional(Id('StablecoinProviderAccount')),
  },
  { additionalProperties: false },
);

export const Stablecoin = Type.Object({
  id: Type.String(),
  name: Type.String(),
  symbol: Type.String(),
  baseCurrency: Type.String(),
  network: Enum(['SPARK'] as const),
  decimals: Type.Integer(),
  issuanceStatus: Enum(ISSUANCE_STATUSES),
  gridOperationsStatus: Enum(GRID_OPERATIONS_STATUSES),
  networkTokenIdentifier: Type.String(),
  currency: Type.Optional(Type.String()),
  provider: Provider,
  stablecoinProviderAccountId: Type.String(),
  providerEnvironment: Environment,
  providerTokenIdentifier: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const StablecoinListQuery = Type.Object(
  {
    issuanceStatus: Type.Optional(Enum(ISSUANCE_STATUSES)),
    gridOperationsStatus: Type.Optional(Enum(GRID_OPERATIONS_STATUSES)),
    provider: Type.Optional(Provider),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);
export const StablecoinListResponse = listOf(Stablecoin);
export const StablecoinParams = Type.Object({ stablecoinId: Id('Stablecoin') });

// Operations

/** One flat object for every variant: the service names each field a variant is missing, all at once. */
export const MintFundingSource = Type.Object(
  {
    type: Enum(MINT_FUNDING_TYPES),
    externalAccountId: Type.Optional(Id('ExternalAccount')),
    accountId: Type.Optional(Id('InternalAccount')),
    sourceTokenIdentifier: Type.Optional(Text(64)),
    cryptoNetwork: Type.Optional(Text(64)),
  },
  { additionalProperties: false },
);

export const MintRequest = Type.Object(
  {
    amount: TokenAmount,
    fundingSource: MintFundingSource,
    destination: Type.Object(
      { accountId: Type.String({ pattern: '^(InternalAccount|ExternalAccount):[0-9a-f-]{36}$', description: 'ExternalAccount:<uuid> (a Spark wallet) or InternalAccount:<uuid>' }) },
      { additionalProperties: false },
    ),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const BurnSource = Type.Object(
  {
    type: Enum(BURN_SOURCE_TYPES),
    accountId: Type.Optional(Id('InternalAccount')),
  },
  { additionalProperties: false },
);

export const BurnRequest = Type.Object(
  {
    amount: TokenAmount,
    source: BurnSource,
    destination: Type.Object(
      { type: Enum(['EXTERNAL_ACCOUNT'] as const), externalAccountId: Id('ExternalAccount'), rail: Enum(PAYOUT_RAILS) },
      { additionalProperties: false },
    ),
    description: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

const OperationSource = Type.Object({
  type: Enum([...MINT_FUNDING_TYPES, 'EXTERNAL_ACCOUNT'] as const),
  externalAccountId: Type.Optional(Type.String()),
  accountId: Type.Optional(Type.String()),
  sourceTokenIdentifier: Type.Optional(Type.String()),
  cryptoNetwork: Type.Optional(Type.String()),
});

const Open = (description: string) => Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true, description }));

export const StablecoinOperation = Type.Object({
  id: Type.String(),
  stablecoinId: Type.String(),
  operationType: Enum(OPERATION_TYPES),
  status: Enum(OPERATION_STATUSES),
  amount: Type.String(),
  provider: Provider,
  providerEnvironment: Environment,
  stablecoinProviderAccountId: Type.String(),
  source: Type.Optional(OperationSource),
  fundingInstructions: Type.Optional(Open('Where to send the funds the provider waits for (a wire, tokens to a deposit address)')),
  destination: Type.Optional(Type.Object({ accountId: Type.String(), rail: Type.Optional(Enum(PAYOUT_RAILS)) })),
  estimatedDelivery: Type.Optional(Open('Rail timing estimate of a fiat redemption')),
  expiresAt: Type.Optional(Timestamp),
  providerStatus: Type.Optional(Type.String()),
  failureReason: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const OperationListQuery = Type.Object(
  {
    operationType: Type.Optional(Enum(OPERATION_TYPES)),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);
export const OperationListResponse = listOf(StablecoinOperation);
export const OperationParams = Type.Object({ stablecoinOperationId: Id('StablecoinOperation') });
