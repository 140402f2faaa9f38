/**
 * Which OIDC tokens a wallet login takes besides those signed by an issuer the platform configured
 * (`embeddedWalletConfig.oidcIssuers`), whose tokens are always checked against its keys.
 */
export interface OidcTrust {
  /** Whether a JWT-shaped token from an issuer the platform has not configured is taken without a signature check. */
  readonly acceptsUnsignedFromUntrusted: boolean;
}

/** Production: only configured issuers, only signed tokens. */
export const configuredIssuersOnly: OidcTrust = { acceptsUnsignedFromUntrusted: false };
