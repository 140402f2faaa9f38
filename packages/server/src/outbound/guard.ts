import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector, request, type Dispatcher } from 'undici';
import { createAllowList, type AllowList } from './allow-list.js';
import { bareHost, checkWebhookUrlSyntax, lookupAnswering, publicOnly, resolveAdmittedAddresses, resolveDeliveryAddress, type AddressJudge, type LookupAll, type OutboundMode, type UrlCheck } from './urls.js';

/**
 * The one way out: every HTTP request the service makes (webhook deliveries, OpenID discovery and
 * key sets, the SMS gateway) goes through `createOutbound(...).request`.
 *
 * In production the check happens when the socket is opened, on the address it is opened to: the
 * host is resolved, every address of the answer is judged (public, or inside the operator's
 * MONETA_OUTBOUND_ALLOW ranges), and the socket connects only to the addresses judged. So neither
 * a DNS answer that changes after a check (rebinding) nor a URL learnt later (a discovery
 * document's `jwks_uri`) can reach the operator's network. Plain http is spoken only to allowed
 * ranges. Redirects are never followed. The sandbox connects anywhere.
 *
 * Every request ends within its `timeoutMs`, body included: a plain timer aborts it. (Node 20's
 * `AbortSignal.any([AbortSignal.timeout(...)])` stops firing once the garbage collector has run,
 * which let a hanging endpoint hold a request for as long as it liked.)
 */

export type OutboundFailure = 'REFUSED' | 'TIMEOUT' | 'ABORTED' | 'UNREACHABLE';

/** A request that got no answer. `REFUSED` messages may name the address refused: for the operator's logs, not for API clients. */
export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly failure: OutboundFailure,
    message: string,
    /** The system error code when the network failed (ECONNREFUSED, ENOTFOUND, ...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface OutboundPolicy {
  mode: OutboundMode;
  /** CIDR ranges production may connect to although they are not public (MONETA_OUTBOUND_ALLOW). */
  allow?: readonly string[];
  /** Resolves host names; tests inject one to map made-up names to loopback. */
  lookup?: LookupAll;
}

export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** The whole request, connection to last byte of the body, must end within this. */
  timeoutMs: number;
  /** Aborts the request at once (a stopping worker). */
  signal?: AbortSignal;
  /** The answer's body is read up to this many bytes and the rest dropped. Default 1 MiB. */
  maxBodyBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  /** The body as UTF-8, cut at `maxBodyBytes`. */
  text: string;
}

export interface Outbound {
  request(url: string | URL, init: OutboundRequest): Promise<OutboundResponse>;
  /**
   * Whether a URL a platform supplies (a webhook endpoint, an OIDC issuer) follows the rules of this
   * mode; with `resolve`, in production, also that its name resolves to a public address now.
   */
  checkUrl(url: string, options?: { resolve?: boolean }): Promise<UrlCheck>;
  /** Closes pooled connections (shutdown, tests). */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const CONNECT_TIMEOUT_MS = 10_000;

export function createOutbound(policy: OutboundPolicy): Outbound {
  const allow = createAllowList(policy.allow);
  const agent = new Agent({ connect: guardedConnector(policy, allow) });

  return {
    async checkUrl(url, options = {}) {
      const syntax = checkWebhookUrlSyntax(url, policy.mode);
      if (!syntax.ok || !options.resolve || policy.mode !== 'production') return syntax;
      const resolved = await resolveDeliveryAddress(syntax.url, policy.mode, policy.lookup);
      return resolved.ok ? syntax : resolved;
    },
    async request(url, init) {
      const target = httpUrl(url);
      const deadline = startDeadline(init.timeoutMs, init.signal);
      try {
        const answer = await request(target, {
          method: init.method,
          ...(init.headers ? { headers: init.headers } : {}),
          ...(init.body !== undefined ? { body: init.body } : {}),
          dispatcher: agent,
          signal: deadline.signal,
          headersTimeout: init.timeoutMs,
          bodyTimeout: init.timeoutMs,
        });
        const text = await readCapped(answer.body, init.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        return { status: answer.statusCode, headers: headersOf(answer.headers), text };
      } catch (error) {
        throw failureOf(error, deadline, init);
      } finally {
        deadline.end();
      }
    },
    close: () => agent.close(),
  };
}

/** The URL when it is http(s); anything else is refused before any connection. */
function httpUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundError('REFUSED', 'not an absolute URL');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new OutboundError('REFUSED', `unsupported scheme ${parsed.protocol}`);
  return parsed;
}

/** Production: public addresses over https, allowed ranges over http(s). Sandbox: anything. */
function judgeFor(policy: OutboundPolicy, allow: AllowList, protocol: string): AddressJudge {
  if (policy.mode === 'sandbox') return () => undefined;
  return (address) => {
    if (allow.includes(address)) return undefined;
    if (protocol !== 'https:') return 'not in MONETA_OUTBOUND_ALLOW, and production speaks plain http only there';
    return publicOnly(address);
  };
}

/**
 * Opens sockets only to admitted addresses: IP literals are judged here (net.connect never asks
 * `lookup` about them), names by the lookup handed to net/tls.connect, which answers with the
 * addresses it admitted and nothing else. TLS keeps the URL's host name for SNI and the certificate check.
 */
function guardedConnector(policy: OutboundPolicy, allow: AllowList): buildConnector.connector {
  const connectors = new Map<string, { judge: AddressJudge; connect: buildConnector.connector }>();
  for (const protocol of ['http:', 'https:']) {
    const judge = judgeFor(policy, allow, protocol);
    connectors.set(protocol, { judge, connect: buildConnector({ timeout: CONNECT_TIMEOUT_MS, lookup: admittedLookup(judge, policy.lookup) }) });
  }
  return (options, callback) => {
    const chosen = connectors.get(options.protocol);
    if (!chosen) return callback(new OutboundError('REFUSED', `unsupported scheme ${options.protocol}`), null);
    const host = bareHost(options.hostname);
    const refusal = isIP(host) !== 0 ? chosen.judge(host) : undefined;
    if (refusal !== undefined) return callback(new OutboundError('REFUSED', `${host} is ${refusal}`), null);
    chosen.connect(options, callback);
  };
}

function admittedLookup(judge: AddressJudge, lookup: LookupAll | undefined): LookupFunction {
  return (hostname, options, callback) => {
    void resolveAdmittedAddresses(hostname, judge, lookup).then((resolved) => {
      if (!resolved.ok) callback(new OutboundError('REFUSED', resolved.reason), '', 0);
      else lookupAnswering(resolved.addresses)(hostname, options, callback);
    });
  };
}

interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
  end(): void;
}

/** An AbortController aborted by a plain timer or by the caller's signal; `end` clears both. */
function startDeadline(timeoutMs: number, callerSignal: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const abortWithCaller = () => controller.abort();
  if (callerSignal?.aborted) abortWithCaller();
  else callerSignal?.addEventListener('abort', abortWithCaller, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    end() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', abortWithCaller);
    },
  };
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    chunks.push(bytes.subarray(0, maxBytes - size));
    size += bytes.length;
    // Leaving the loop destroys the stream, and with it the connection: the rest is never read.
    if (size >= maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(raw: Dispatcher.ResponseData['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined) headers.append(name, item);
  }
  return headers;
}

function failureOf(error: unknown, deadline: Deadline, init: OutboundRequest): OutboundError {
  const refused = findRefusal(error);
  if (refused) return refused;
  const code = (error as { code?: unknown } | null)?.code;
  if (deadline.timedOut() || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new OutboundError('TIMEOUT', `timed out after ${init.timeoutMs} ms`);
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new OutboundError('TIMEOUT', `could not connect within ${CONNECT_TIMEOUT_MS} ms`);
  if (init.signal?.aborted) return new OutboundError('ABORTED', 'aborted');
  const message = error instanceof Error ? error.message : 'request failed';
  return new OutboundError('UNREACHABLE', message, typeof code === 'string' ? code : undefined);
}

/** The guard's own refusal, however deep the HTTP client wrapped it. */
function findRefusal(error: unknown): OutboundError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof OutboundError) return current;
  }
  return undefined;
}
