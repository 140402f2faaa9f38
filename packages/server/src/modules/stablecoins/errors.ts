import { defineError } from '../../core/errors.js';

export const providerAccountNotFound = defineError(
  { status: 404, code: 'STABLECOIN_PROVIDER_ACCOUNT_NOT_FOUND', description: 'No stablecoin provider account link of this platform has the id (or, when none was named, the platform has linked none)' },
  (named: boolean) => ({
    // The same answer for another platform's link as for an id that names nothing: no id is echoed.
    message: named ? 'Stablecoin provider account link not found' : 'This platform has no stablecoin provider account link; link one with POST /stablecoin-provider-accounts',
  }),
);

export const providerAccountInvalid = defineError(
  { status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_INVALID', description: 'The provider does not accept the credentials, or the link is INVALID' },
  (message: string, stablecoinProviderAccountId?: string) => ({ message, ...(stablecoinProviderAccountId ? { details: { stablecoinProviderAccountId } } : {}) }),
);

export const providerAccountRevoked = defineError(
  { status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_REVOKED', description: 'The provider revoked the link’s credentials; link the account again with new ones' },
  (stablecoinProviderAccountId: string) => ({
    message: 'The provider revoked this link’s credentials; link the account again with new API credentials',
    details: { stablecoinProviderAccountId },
  }),
);

export const providerAccountSelectionRequired = defineError(
  { status: 400, code: 'STABLECOIN_PROVIDER_ACCOUNT_SELECTION_REQUIRED', description: 'Several links (or provider accounts) qualify; name one' },
  (message: string, choices: readonly string[]) => ({ message, details: { choices } }),
);

export const providerAccountAlreadyLinked = defineError(
  { status: 409, code: 'CONFLICT', reason: 'PROVIDER_ACCOUNT_ALREADY_LINKED', description: 'The provider account is already linked and ACTIVE' },
  (stablecoinProviderAccountId: string) => ({ message: 'This provider account is already linked', details: { stablecoinProviderAccountId } }),
);

export const stablecoinNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'STABLECOIN_NOT_FOUND', description: 'No stablecoin of this platform has the id' },
  () => ({ message: 'Stablecoin not found' }),
);

export const stablecoinOperationNotFound = defineError(
  { status: 404, code: 'REFERENCE_NOT_FOUND', reason: 'STABLECOIN_OPERATION_NOT_FOUND', description: 'No stablecoin operation of this platform has the id' },
  () => ({ message: 'Stablecoin operation not found' }),
);

export const stablecoinAlreadyRegistered = defineError(
  { status: 409, code: 'CONFLICT', reason: 'STABLECOIN_ALREADY_REGISTERED', description: 'The token is already registered through this link' },
  (stablecoinId: string) => ({ message: 'This token is already registered', details: { stablecoinId } }),
);

export const stablecoinNotProvisioned = defineError(
  { status: 409, code: 'CONFLICT', reason: 'STABLECOIN_NOT_PROVISIONED', description: 'The provider has not provisioned the stablecoin, so it cannot be minted or burned' },
  (issuanceStatus: string) => ({ message: `The stablecoin cannot be minted or burned while its issuance is ${issuanceStatus}`, details: { issuanceStatus } }),
);

export const providerUnavailable = defineError(
  { status: 503, code: 'SERVICE_UNAVAILABLE', reason: 'STABLECOIN_PROVIDER_UNAVAILABLE', description: 'The stablecoin provider could not take the operation now; nothing was created. Send it again' },
  () => ({ message: 'The stablecoin provider is unavailable; nothing was created. Send the request again later', headers: { 'Retry-After': '5' } }),
);

export const PROVIDER_ACCOUNT_ERRORS = [providerAccountNotFound, providerAccountInvalid, providerAccountRevoked, providerAccountSelectionRequired];

export const STABLECOIN_ERRORS = [
  ...PROVIDER_ACCOUNT_ERRORS,
  providerAccountAlreadyLinked,
  stablecoinNotFound,
  stablecoinOperationNotFound,
  stablecoinAlreadyRegistered,
  stablecoinNotProvisioned,
  providerUnavailable,
];
