import type { SignatureVerifier } from '../providers/signature-verifier.js';

/** The reference's stand-in signatures, which the sandbox takes in place of a wallet's stamp or passkey assertion. */
export const SANDBOX_SIGNATURES: ReadonlySet<string> = new Set(['sandbox-valid-signature', 'sandbox-valid-passkey-signature']);

/** Sandbox: the stand-in signatures verify without a key; any other signature is left to the keys. */
export const sandboxSignatureVerifier: SignatureVerifier = {
  acceptsWithoutKey: (signature) => SANDBOX_SIGNATURES.has(signature),
};
