import type { OidcTrust } from '../providers/oidc-trust.js';

/**
 * Sandbox: a token from an issuer the platform has not configured is taken with a dummy signature
 * (the reference's sandbox rule), so a developer can try OAUTH without an identity provider. A
 * configured issuer's tokens are still checked against its keys.
 */
export const sandboxOidcTrust: OidcTrust = { acceptsUnsignedFromUntrusted: true };
