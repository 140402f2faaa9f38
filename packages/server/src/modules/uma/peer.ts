import { PubKeyResponse } from '@uma-sdk/core';
import type { PlatformId } from '../../core/ids.js';
import type { Db, Executor } from '../../db/schema.js';
import type { Outbound, OutboundResponse } from '../../outbound/guard.js';
import { baseUrl } from './address.js';
import { invalidNonce, invalidPubkeyFormat, invalidTimestamp, pubkeyFetchError } from './errors.js';

/** How long a counterparty's request or answer may have been signed before (or after) now. */
export const SIGNATURE_WINDOW_SECONDS = 300;
const PEER_TIMEOUT_MS = 5_000;
const MAX_REMEMBERED = 100_000;

/**
 * Another VASP answered in process: a domain the composition serves without a network (the
 * sandbox's test VASP). It answers the same HTTP requests a real peer would, signed the same way.
 */
export interface LocalPeer {
  serves(domain: string): boolean;
  request(url: URL, init: { method: 'GET' | 'POST'; body?: string }): Promise<{ status: number; text: string }>;
}

export type PeerAnswer = Pick<OutboundResponse, 'status' | 'text'>;

export type Peers = ReturnType<typeof createPeers>;

/**
 * Talking to other VASPs: every call goes out through the outbound guard (production refuses
 * private addresses unless MONETA_OUTBOUND_ALLOW admits them), or to a local peer. A network
 * failure throws the guard's OutboundError; the caller decides which code that is.
 */
export function createPeers({ outbound, localPeer }: { db: Db; outbound: Outbound; localPeer?: LocalPeer | undefined }) {
  async function call(url: URL, init: { method: 'GET' | 'POST'; body?: string }): Promise<PeerAnswer> {
    if (localPeer?.serves(url.host)) return localPeer.request(url, init);
    return outbound.request(url, {
      method: init.method,
      timeoutMs: PEER_TIMEOUT_MS,
      maxBodyBytes: 256 * 1024,
      headers: { accept: 'application/json', ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
  }

  /** Nonces of answers to our own lookups, seen within the signature window (they expire with it). */
  const seenAnswers = new Map<string, number>();

  return {
    call,

    /**
     * Like freshAndNew, kept by this process only: for the answers to the lookups it sends itself
     * (a GET changes nothing stored). An answer replayed to another process of ours would pass
     * this check, but its signature still names the receiver and its time is still checked.
     */
    freshAndNewAnswer(domain: string, what: string, nonce: string, timestampSeconds: number): void {
      const nowSeconds = Date.now() / 1000;
      if (!Number.isFinite(timestampSeconds) || Math.abs(nowSeconds - timestampSeconds) > SIGNATURE_WINDOW_SECONDS) throw invalidTimestamp(what, timestampSeconds);
      if (seenAnswers.size > MAX_REMEMBERED) for (const [key, at] of seenAnswers) if (at < nowSeconds - 2 * SIGNATURE_WINDOW_SECONDS) seenAnswers.delete(key);
      const key = `${domain}|${nonce}`;
      if (seenAnswers.has(key)) throw invalidNonce(what);
      seenAnswers.set(key, timestampSeconds);
    },

    /** The counterparty's published keys (424 COUNTERPARTY_PUBKEY_FETCH_ERROR, 400 INVALID_PUBKEY_FORMAT). */
    async keys(domain: string): Promise<PubKeyResponse> {
      let answer: PeerAnswer;
      try {
        answer = await call(new URL(`${baseUrl(domain)}/.well-known/lnurlpubkey`), { method: 'GET' });
      } catch (error) {
        throw pubkeyFetchError(domain, error instanceof Error ? error.message : 'unreachable');
      }
      if (answer.status !== 200) throw pubkeyFetchError(domain, `answered ${answer.status}`);
      let keys: PubKeyResponse;
      try {
        keys = PubKeyResponse.fromJson(answer.text);
      } catch {
        throw pubkeyFetchError(domain, 'not a public key response');
      }
      try {
        const key = keys.getSigningPubKey();
        if (key.length !== 65 || key[0] !== 4) throw new Error('not an uncompressed secp256k1 key');
      } catch {
        throw invalidPubkeyFormat();
      }
      return keys;
    },

    /**
     * A counterparty's signed message is fresh and its nonce new for this platform (400
     * INVALID_TIMESTAMP, 400 INVALID_NONCE). Protocol timestamps are wall-clock seconds, not the
     * platform's (possibly advanced) clock. The nonce is recorded through the caller's executor:
     * inside a unit of work it is kept only if the work commits (a message refused later may be sent again).
     */
    async freshAndNew(executor: Executor, platformId: PlatformId, domain: string, what: string, nonce: string, timestampSeconds: number): Promise<void> {
      const nowSeconds = Date.now() / 1000;
      if (!Number.isFinite(timestampSeconds) || Math.abs(nowSeconds - timestampSeconds) > SIGNATURE_WINDOW_SECONDS) throw invalidTimestamp(what, timestampSeconds);
      const inserted = await executor
        .insertInto('uma_nonces')
        .values({ platform_id: platformId, vasp_domain: domain, nonce: nonce.slice(0, 200), signed_at: new Date(timestampSeconds * 1000) })
        .onConflict((oc) => oc.columns(['platform_id', 'vasp_domain', 'nonce']).doNothing())
        .returning('nonce')
        .executeTakeFirst();
      if (!inserted) throw invalidNonce(what);
    },
  };
}

/** The SDK's verifiers take a nonce check; ours ran before (freshAndNew), so theirs accepts. */
export const checkedNonces = { checkAndSaveNonce: () => Promise.resolve(true) };
