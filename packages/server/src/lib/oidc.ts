import { base64url, compactVerify, createRemoteJWKSet, customFetch, errors, type CompactVerifyGetKey, type FetchImplementation, type RemoteJWKSet } from 'jose';
import type { Outbound } from '../outbound/guard.js';
import { sha256Hex } from './secrets.js';

/** An OpenID provider a platform trusts, and the client ids (audiences) it accepts from it. */
export interface TrustedIssuer {
  issuer: string;
  audiences: string[];
  /** Default: the `jwks_uri` of `${issuer}/.well-known/openid-configuration`. */
  jwksUrl?: string;
}

export type OidcFailure =
  | 'MALFORMED'
  | 'ISSUER_NOT_TRUSTED'
  | 'SIGNATURE_INVALID'
  | 'AUDIENCE_MISMATCH'
  | 'EXPIRED'
  | 'NOT_FRESH'
  | 'NONCE_MISMATCH'
  | 'JWKS_UNAVAILABLE';

/** A rejected ID token. Messages are fixed short strings: never the token or any of its claims. */
export class OidcError extends Error {
  constructor(
    readonly reason: OidcFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OidcError';
  }
}

export interface OidcIdentity {
  issuer: string;
  subject: string;
  /** The configured audience the token matched (for an unsigned untrusted token: its first `aud`). */
  audience: string;
  email?: string;
  issuedAt: Date;
  expiresAt: Date;
  nonce?: string;
  /** Lowercase hex sha256 of the token, to enforce single use. */
  tokenHash: string;
}

export interface OidcVerifyOptions {
  issuers: readonly TrustedIssuer[];
  /** The (possibly sandbox-shifted) current time; every time check uses it. */
  now: Date;
  /** When set, the token's `nonce` must equal it. */
  nonce?: string;
  /** Oldest accepted `iat`, in seconds before `now`. Default 60. */
  maxAgeSeconds?: number;
  /** Tolerated clock difference for `exp`, `nbf` and an `iat` in the future. Default 5. */
  skewSeconds?: number;
  /** Sandbox shortcut: a token whose `iss` is not among `issuers` is accepted without a signature check. */
  allowUnsignedFromUntrusted?: boolean;
}

export interface OidcVerifier {
  verify(token: string, options: OidcVerifyOptions): Promise<OidcIdentity>;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA', 'Ed25519'];
const MAX_TOKEN_LENGTH = 16 * 1024;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
// Discovery documents and key sets are a few kilobytes; a provider sending more is not trusted with memory.
const MAX_DOCUMENT_BYTES = 512 * 1024;

type Claims = Record<string, unknown>;

/** `outbound` is the guard every discovery and key-set request goes through, so an issuer cannot point the service at the operator's network. */
export function createOidcVerifier(options: { outbound: Outbound; fetchTimeoutMs?: number; cacheTtlMs?: number }): OidcVerifier {
  const { outbound } = options;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? 5_000;
  const cacheTtlMs = options.cacheTtlMs ?? 10 * 60_000;
  if (!Number.isInteger(fetchTimeoutMs) || fetchTimeoutMs <= 0) throw new TypeError('fetchTimeoutMs must be a positive integer');
  nonNegative(cacheTtlMs, 'cacheTtlMs');
  const jwksSets = new Map<string, RemoteJWKSet>();
  // Cache ages use the monotonic clock: the sandbox clock may move and the wall clock may jump.
  const discovered = new Map<string, { jwksUrl: Promise<URL>; expiresAt: number }>();

  function jwksFor(url: URL): RemoteJWKSet {
    let set = jwksSets.get(url.href);
    if (!set) {
      // jose refreshes the set after cacheTtlMs, and early (at most once per 30 s) when a kid is unknown.
      set = createRemoteJWKSet(url, { timeoutDuration: fetchTimeoutMs, cacheMaxAge: cacheTtlMs, [customFetch]: guardedFetch(outbound, fetchTimeoutMs) });
      jwksSets.set(url.href, set);
    }
    return set;
  }

  async function discoverJwksUrl(issuer: string): Promise<URL> {
    const cached = discovered.get(issuer);
    if (cached && performance.now() < cached.expiresAt) return cached.jwksUrl;
    const jwksUrl = fetchDiscovery(outbound, issuer, fetchTimeoutMs);
    const entry = { jwksUrl, expiresAt: performance.now() + cacheTtlMs };
    discovered.set(issuer, entry);
    jwksUrl.catch(() => {
      if (discovered.get(issuer) === entry) discovered.delete(issuer);
    });
    return jwksUrl;
  }

  async function jwksUrlOf(trusted: TrustedIssuer): Promise<URL> {
    try {
      return trusted.jwksUrl !== undefined ? new URL(trusted.jwksUrl) : await discoverJwksUrl(trusted.issuer);
    } catch {
      throw new OidcError('JWKS_UNAVAILABLE', 'issuer keys unavailable');
    }
  }

  async function verifySignature(token: string, trusted: TrustedIssuer): Promise<Uint8Array> {
    const jwks = jwksFor(await jwksUrlOf(trusted));
    const getKey: CompactVerifyGetKey = async (header, jws) => {
      try {
        return await jwks(header, jws);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey) throw new OidcError('SIGNATURE_INVALID', 'no matching signing key');
        if (error instanceof errors.JWKSMultipleMatchingKeys) throw error;
        throw new OidcError('JWKS_UNAVAILABLE', 'issuer keys unavailable');
      }
    };
    try {
      return (await compactVerify(token, getKey, { algorithms: ALGORITHMS })).payload;
    } catch (error) {
      // A kid-less token with several candidate keys: jose leaves trying each of them to the caller.
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        for await (const key of error) {
          try {
            return (await compactVerify(token, key, { algorithms: ALGORITHMS })).payload;
          } catch (inner) {
            if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw signatureFailure(inner);
          }
        }
      }
      throw signatureFailure(error);
    }
  }

  return {
    async verify(token, verifyOptions) {
      const { now, issuers } = verifyOptions;
      if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new TypeError('now must be a valid Date');
      const maxAge = nonNegative(verifyOptions.maxAgeSeconds ?? 60, 'maxAgeSeconds');
      const skew = nonNegative(verifyOptions.skewSeconds ?? 5, 'skewSeconds');

      const unverified = parseCompact(token);
      const iss = unverified.iss;
      if (typeof iss !== 'string' || iss === '') throw new OidcError('MALFORMED', 'iss missing');

      const trusted = issuers.find((candidate) => candidate.issuer === iss);
      let claims: Claims;
      if (trusted) {
        claims = parseJsonObject(await verifySignature(token, trusted));
      } else if (verifyOptions.allowUnsignedFromUntrusted === true) {
        claims = unverified;
      } else {
        throw new OidcError('ISSUER_NOT_TRUSTED', 'issuer not trusted');
      }

      const subject = claims.sub;
      if (typeof subject !== 'string' || subject === '') throw new OidcError('MALFORMED', 'sub missing');
      const audiences = audiencesOf(claims.aud);
      const exp = numericDate(claims.exp, 'exp');
      const iat = numericDate(claims.iat, 'iat');
      const nbf = claims.nbf === undefined ? undefined : numericDate(claims.nbf, 'nbf');

      const audience = trusted ? trusted.audiences.find((configured) => audiences.includes(configured)) : audiences[0];
      if (audience === undefined) throw new OidcError('AUDIENCE_MISMATCH', 'audience not accepted');

      const nowSeconds = Math.floor(now.getTime() / 1000);
      if (exp <= nowSeconds - skew) throw new OidcError('EXPIRED', 'token expired');
      if (iat > nowSeconds + skew) throw new OidcError('NOT_FRESH', 'token issued in the future');
      if (nowSeconds - iat > maxAge) throw new OidcError('NOT_FRESH', 'token too old');
      if (nbf !== undefined && nbf > nowSeconds + skew) throw new OidcError('NOT_FRESH', 'token not yet valid');

      const nonce = typeof claims.nonce === 'string' ? claims.nonce : undefined;
      if (verifyOptions.nonce !== undefined && nonce !== verifyOptions.nonce) {
        throw new OidcError('NONCE_MISMATCH', 'nonce mismatch');
      }

      return {
        issuer: iss,
        subject,
        audience,
        ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        issuedAt: new Date(iat * 1000),
        expiresAt: new Date(exp * 1000),
        ...(nonce !== undefined ? { nonce } : {}),
        tokenHash: sha256Hex(token),
      };
    },
  };
}

async function fetchDiscovery(outbound: Outbound, issuer: string, timeoutMs: number): Promise<URL> {
  const url = new URL(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`);
  const response = await outbound.request(url, { method: 'GET', headers: { accept: 'application/json' }, timeoutMs, maxBodyBytes: MAX_DOCUMENT_BYTES });
  if (response.status !== 200) throw new Error(`discovery answered ${response.status}`);
  const document: unknown = JSON.parse(response.text);
  if (typeof document !== 'object' || document === null) throw new Error('discovery document is not an object');
  const { issuer: claimedIssuer, jwks_uri: jwksUri } = document as Record<string, unknown>;
  // OpenID Connect Discovery 1.0 §4.3: the document must name exactly the issuer it was fetched for.
  if (claimedIssuer !== issuer) throw new Error('discovery issuer mismatch');
  if (typeof jwksUri !== 'string') throw new Error('discovery has no jwks_uri');
  // Where it points is judged by the guard when the key set is fetched, like any other address.
  return new URL(jwksUri);
}

/** jose's key-set fetch, through the outbound guard; only a 200 carries a body, the only answer jose accepts. */
function guardedFetch(outbound: Outbound, timeoutMs: number): FetchImplementation {
  return async (url, init) => {
    const response = await outbound.request(url, { method: 'GET', headers: Object.fromEntries(init.headers), signal: init.signal, timeoutMs, maxBodyBytes: MAX_DOCUMENT_BYTES });
    return new Response(response.status === 200 ? response.text : null, { status: response.status, headers: response.headers });
  };
}

/** Decodes header and payload without trusting them; rejects anything that is not a plain compact JWS. */
function parseCompact(token: unknown): Claims {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
    throw new OidcError('MALFORMED', 'not a compact JWT');
  }
  const [headerPart = '', payloadPart = ''] = token.split('.');
  const header = parseJsonObject(decodeSegment(headerPart));
  // ID tokens never carry critical extensions; refusing them also rules out unencoded (b64: false) payloads.
  if (typeof header.alg !== 'string' || header.crit !== undefined) throw new OidcError('MALFORMED', 'unsupported header');
  return parseJsonObject(decodeSegment(payloadPart));
}

function decodeSegment(segment: string): Uint8Array {
  try {
    return base64url.decode(segment);
  } catch {
    throw new OidcError('MALFORMED', 'not a compact JWT');
  }
}

function parseJsonObject(bytes: Uint8Array): Claims {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new OidcError('MALFORMED', 'not a compact JWT');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new OidcError('MALFORMED', 'not a compact JWT');
  return value as Claims;
}

function audiencesOf(aud: unknown): string[] {
  const list = typeof aud === 'string' ? [aud] : aud;
  if (!Array.isArray(list) || list.length === 0 || !list.every((a): a is string => typeof a === 'string' && a !== '')) {
    throw new OidcError('MALFORMED', 'aud missing');
  }
  return list;
}

function numericDate(value: unknown, claim: 'exp' | 'iat' | 'nbf'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new OidcError('MALFORMED', `${claim} missing`);
  return value;
}

function signatureFailure(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  // Header and payload were checked before: what is left is a refused algorithm (none, HS*), a signature
  // that does not verify or does not even decode, or a key jose will not use (RSA under 2048 bits).
  return new OidcError('SIGNATURE_INVALID', 'signature invalid');
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`);
  return value;
}
