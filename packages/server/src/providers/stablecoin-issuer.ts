import { notImplemented } from '../core/errors.js';

/** The stablecoin providers the reference names (today only Brale). */
export type StablecoinProviderName = 'BRALE';
/** Which of the provider's environments an installation talks to: derived from the mode, never chosen per request. */
export type StablecoinProviderEnvironment = 'SANDBOX' | 'PRODUCTION';

/** API credentials of one provider account link, as the platform submitted them (kept sealed at rest). */
export interface StablecoinCredentials {
  apiClientId: string;
  apiClientSecret: string;
}

/** What the provider says of a set of credentials. */
export type CredentialVerdict =
  /** The credentials work; these are the provider accounts they reach. */
  | { kind: 'verified'; providerAccountIds: readonly string[] }
  /** The provider does not accept them (wrong, malformed, expired). */
  | { kind: 'invalid'; reason: string }
  /** They were valid once and the provider revoked them. */
  | { kind: 'revoked' };

/** A token the provider created, as it describes it. */
export interface ProviderToken {
  name: string;
  symbol: string;
  baseCurrency: string;
  decimals: number;
  issuanceStatus: 'PENDING_REVIEW' | 'PROVISIONING' | 'PROVISIONED' | 'REJECTED' | 'FAILED';
}

/** One issuer operation handed to the provider. Amounts are exact: `amount` in the token's smallest unit, `fiatAmount` in the base currency's. */
export interface OperationSubmission {
  operationId: string;
  operationType: 'MINT' | 'BURN';
  /** The source variant (WIRE, ACH_DEBIT, SAME_DAY_ACH_DEBIT, GRID_INTERNAL_ACCOUNT, PROVIDER_INTERNAL_BALANCE, EXTERNAL_ACCOUNT). */
  sourceType: string;
  amount: bigint;
  fiatAmount: bigint;
  baseCurrency: string;
  /** The provider's token identifier (Brale's value_type). */
  valueType: string;
  /** Where minted tokens go (a Spark address), or the fiat payout rail of a burn. */
  destination: { address?: string; rail?: string };
}

export type SubmissionResult =
  | {
      kind: 'accepted';
      providerOperationId: string;
      providerStatus: string;
      /** The provider waits for funds the issuer sends (a wire, tokens to a deposit address): these say where. */
      fundingInstructions?: Record<string, unknown>;
      /** How long the provider waits for those funds. */
      expiresInMs?: number;
      /** When to ask the provider again. */
      checkAfterMs: number;
    }
  /** The provider could not take it now (nothing was created there): 503, try again. */
  | { kind: 'unavailable' };

/** Where an operation stands at the provider. */
export interface OperationReport {
  status: 'PENDING_FUNDING' | 'PENDING_PROVIDER' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';
  providerStatus: string;
  failureReason?: string;
  /** While not final: when to ask again. */
  checkAfterMs?: number;
}

/** An operation as it was submitted, for asking about it. */
export interface SubmittedOperation {
  providerOperationId: string;
  submission: OperationSubmission;
  submittedAt: Date;
  expiresAt: Date | null;
}

/**
 * The stablecoin issuance provider (Brale in the reference): checks API credentials, describes the
 * tokens it created, and runs mint and burn operations whose progress the service asks about (a
 * durable job polls `report` until the operation is final). The sandbox's decides everything from
 * the request (sandbox/stablecoin-issuer.ts); production uses the adapter an operator configured,
 * or answers 501 NOT_IMPLEMENTED.
 */
export interface StablecoinIssuer {
  readonly name: string;
  readonly environment: StablecoinProviderEnvironment;
  /** Checks credentials being linked. */
  verifyCredentials(provider: StablecoinProviderName, credentials: StablecoinCredentials): Promise<CredentialVerdict>;
  /** Checks the credentials of a link again (the periodic check): the provider may have revoked them since. */
  recheckCredentials(provider: StablecoinProviderName, credentials: StablecoinCredentials): Promise<CredentialVerdict>;
  /** The token with this identifier on the provider account, or undefined when the provider has none. */
  token(credentials: StablecoinCredentials, providerAccountId: string, providerTokenIdentifier: string): Promise<ProviderToken | undefined>;
  submit(credentials: StablecoinCredentials, providerAccountId: string, submission: OperationSubmission): Promise<SubmissionResult>;
  report(credentials: StablecoinCredentials, providerAccountId: string, operation: SubmittedOperation, now: Date): Promise<OperationReport>;
}

function noProvider(): never {
  throw notImplemented('No stablecoin provider is configured on this installation', 'STABLECOIN_PROVIDER');
}

/** Production without a configured provider: every call answers 501, and nothing is stored. */
export const unconfiguredStablecoinIssuer: StablecoinIssuer = {
  name: 'unconfigured',
  environment: 'PRODUCTION',
  verifyCredentials: async () => noProvider(),
  recheckCredentials: async () => noProvider(),
  token: async () => noProvider(),
  submit: async () => noProvider(),
  report: async () => noProvider(),
};
