/**
 * Signatures that verify without any key: the stand-ins a test environment hands out instead of a
 * real wallet's stamp. The signatures module asks it before the `signature.verify` gates (which
 * check real signatures with the keys the wallet module holds); production accepts none.
 */
export interface SignatureVerifier {
  /** Whether this signature verifies whatever it signs and whoever asks. */
  acceptsWithoutKey(signature: string): boolean;
}

/** Production: every signature must verify with a key. */
export const keyOnlySignatureVerifier: SignatureVerifier = {
  acceptsWithoutKey: () => false,
};
