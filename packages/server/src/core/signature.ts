/** The 202 body of the signed-retry flow (the reference's SignedRequestChallenge). */
export interface SignedRequestChallenge {
  payloadToSign: string;
  requestId: string;
  expiresAt: string;
  /** Present on the credential and session endpoints. */
  type?: string;
}

/**
 * A domain answer, not an error: this action needs the end user's wallet signature before it can
 * go ahead. A service returns it (its work so far, such as the pending request, commits); the HTTP
 * layer answers 202 with the challenge, and the client repeats the call signed.
 */
export class SignatureRequired {
  constructor(readonly challenge: SignedRequestChallenge) {}
}

/** The signature headers of a signed retry, as a service sees them. */
export interface WalletSignature {
  signature?: string | undefined;
  requestId?: string | undefined;
}
