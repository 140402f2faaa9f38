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

/**
 * The signature headers of a request. An empty header counts as absent: a client that sends
 * `Request-Id:` with nothing has not named a pending request, and every service decides between
 * the challenge and the signed retry on presence alone.
 */
export function walletSignatureOf(headers: Readonly<Record<string, string | string[] | undefined>>): WalletSignature {
  const present = (value: string | string[] | undefined): string | undefined => {
    const text = Array.isArray(value) ? value.join(', ') : value;
    return text === undefined || text.trim() === '' ? undefined : text;
  };
  return { signature: present(headers['service-wallet-signature']), requestId: present(headers['request-id']) };
}
