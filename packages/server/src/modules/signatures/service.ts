import type { Gates } from '../../core/gates.js';
import { createHash } from 'node:crypto';
import { newId } from '../../core/ids.js';
import { SignatureRequired, type WalletSignature } from '../../core/signature.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { canonicalJson } from '../../lib/json.js';
import type { SignatureVerifier } from '../../providers/signature-verifier.js';
import { challengeExpired, challengeUnknown, challengeUsed, requestIdMissing, signatureBodyMismatch, signatureInvalid, signatureMalformed, signatureMissing } from './errors.js';

/** How long a challenge can be answered. */
export const SIGNED_REQUEST_TTL_MS = 5 * 60_000;

/** An action that needs the end user's signature: what it is, what it acts on, and the request as sent. */
export interface SignedAction {
  /** CARD_UPDATE, ... */
  action: string;
  subjectId: string;
  /** The internal accounts whose credentials may sign (a card's funding sources, a wallet). */
  accountIds: readonly string[];
  body: unknown;
  /** Which of the accounts' sessions may sign (refresh: that session; revoking a credential: another one's). */
  signers?: SignerRule;
  /** The payload to sign when it is not the default canonical JSON (the OTP login's verification token). */
  payload?: (requestId: string, expiresAt: Date) => Promise<string>;
  /** The key that must sign the retry, instead of a session (the OTP login's client key). */
  signerPublicKey?: string;
}

export interface SignerRule {
  sessionId?: string;
  exceptCredentialId?: string;
}

/** What the `signature.verify` gate is shown: a signature over a payload, and whose keys may have made it. */
export interface SignatureCheck {
  payloadToSign: string;
  signature: string;
  accountIds: readonly string[];
  signers?: SignerRule | undefined;
  signerPublicKey?: string | undefined;
}

export type SignatureVerdict = 'VALID' | 'INVALID' | 'MALFORMED';

declare module '../../core/gates.js' {
  interface GateCatalogue {
    /**
     * Checks a signature with the keys a module holds for the accounts (the wallet module: the live
     * sessions' keys). A signature verifies when some gate finds it VALID, and is MALFORMED when
     * every gate finds it so. Without any gate only what the SignatureVerifier accepts without a key
     * verifies (the sandbox's stand-ins; nothing in production).
     */
    'signature.verify': { subject: SignatureCheck; verdict: SignatureVerdict };
  }
}

/** The verdict on a signature: the verifier's when it accepts it without a key, else every `signature.verify` gate's, combined. */
async function verifySignature(deps: SignedRequestDeps, uow: UnitOfWork, check: SignatureCheck): Promise<SignatureVerdict> {
  const { verifier, gates } = deps;
  if (verifier.acceptsWithoutKey(check.signature)) return 'VALID';
  const verdicts: SignatureVerdict[] = [];
  for (const gate of gates.of('signature.verify')) {
    const verdict = await gate(uow, check);
    if (verdict === 'VALID') return 'VALID';
    verdicts.push(verdict);
  }
  return verdicts.length > 0 && verdicts.every((verdict) => verdict === 'MALFORMED') ? 'MALFORMED' : 'INVALID';
}

function bodyHash(action: SignedAction): string {
  return createHash('sha256').update(canonicalJson({ action: action.action, subjectId: action.subjectId, body: action.body ?? null })).digest('hex');
}

export type SignedRequestService = ReturnType<typeof createSignedRequestService>;

export interface SignedRequestDeps {
  /** Signatures that verify without a key (providers.signatures: the sandbox's stand-ins, none in production). */
  verifier: SignatureVerifier;
  /** The `signature.verify` checks other modules provide (the wallet module's session stamps). */
  gates: Pick<Gates, 'of'>;
}

/**
 * The 202 signed-retry flow: the first call gets a challenge (payloadToSign, requestId, expiresAt)
 * and changes nothing; the retry repeats the request with Service-Wallet-Signature and Request-Id,
 * and goes ahead only when the signature verifies over that exact payload, once, before it expires.
 */
export function createSignedRequestService(deps: SignedRequestDeps) {
  return {
    /** What an issued challenge was for (action and subject), to route a multi-leg flow's signed retry. */
    async pendingRequest(uow: UnitOfWork, requestId: string): Promise<{ action: string; subjectId: string } | undefined> {
      const row = await uow.tx.selectFrom('signed_requests').select(['action', 'subject_id']).where('platform_id', '=', uow.platformId).where('id', '=', requestId).executeTakeFirst();
      return row ? { action: row.action, subjectId: row.subject_id } : undefined;
    },

    /**
     * Checks a signature over a payload the client already holds (a wallet quote's payloadToSign):
     * no Request-Id, the payload itself names what it approves. Throws the 401 that applies.
     */
    async verifyPayload(uow: UnitOfWork, input: { payloadToSign: string; signature: string | undefined; accountIds: readonly string[] }): Promise<void> {
      if (!input.signature) throw signatureMissing();
      const verdict = await verifySignature(deps, uow, { payloadToSign: input.payloadToSign, signature: input.signature, accountIds: input.accountIds });
      if (verdict === 'MALFORMED') throw signatureMalformed();
      if (verdict !== 'VALID') throw signatureInvalid();
    },

    /**
     * Returns the challenge to answer (as a SignatureRequired) when the call is unsigned, nothing
     * when the signed retry is good (the challenge is then spent), and throws a 401 otherwise.
     */
    async authorize(uow: UnitOfWork, action: SignedAction, signed: WalletSignature, approved?: (request: { signerPublicKey: string | null }) => void): Promise<SignatureRequired | undefined> {
      const { signature, requestId } = signed;
      if (!signature && !requestId) {
        const id = newId('Request');
        const expiresAt = new Date(uow.now.getTime() + SIGNED_REQUEST_TTL_MS);
        const payloadToSign = action.payload
          ? await action.payload(id, expiresAt)
          : canonicalJson({ action: action.action, subjectId: action.subjectId, body: action.body ?? null, requestId: id, expiresAt: expiresAt.toISOString() });
        await uow.tx
          .insertInto('signed_requests')
          .values({
            id,
            platform_id: uow.platformId,
            action: action.action,
            subject_id: action.subjectId,
            body_hash: bodyHash(action),
            payload_to_sign: payloadToSign,
            signer_public_key: action.signerPublicKey ?? null,
            expires_at: expiresAt,
            created_at: uow.now,
          })
          .execute();
        return new SignatureRequired({ payloadToSign, requestId: id, expiresAt: expiresAt.toISOString() });
      }
      if (!signature) throw signatureMissing();
      if (!requestId) throw requestIdMissing();

      const pending = await uow.tx
        .selectFrom('signed_requests')
        .selectAll()
        .where('platform_id', '=', uow.platformId)
        .where('id', '=', requestId)
        .where('action', '=', action.action)
        .where('subject_id', '=', action.subjectId)
        .forNoKeyUpdate()
        .executeTakeFirst();
      if (!pending) throw challengeUnknown();
      if (pending.used_at) throw challengeUsed();
      if (pending.expires_at.getTime() <= uow.now.getTime()) throw challengeExpired();
      if (pending.body_hash !== bodyHash(action)) throw signatureBodyMismatch();

      const verdict = await verifySignature(deps, uow, {
        payloadToSign: pending.payload_to_sign,
        signature,
        accountIds: action.accountIds,
        signers: action.signers,
        signerPublicKey: pending.signer_public_key ?? undefined,
      });
      if (verdict === 'MALFORMED') throw signatureMalformed();
      if (verdict !== 'VALID') throw signatureInvalid();
      await uow.tx.updateTable('signed_requests').set({ used_at: uow.now }).where('id', '=', pending.id).execute();
      approved?.({ signerPublicKey: pending.signer_public_key });
      return undefined;
    },
  };
}
