import { promises as dnsPromises } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { addressCategory, isPublicAddress } from './addresses.js';

/**
 * The URLs the service fetches. A URL a platform submits (a webhook endpoint, an identity provider)
 * is checked when it is registered with `checkWebhookUrlSyntax`; every connection is checked again,
 * after DNS, by the outbound guard (guard.ts), which uses `resolveAdmittedAddresses` and connects
 * only to the addresses it admitted, so a DNS answer that changes in between (DNS rebinding) cannot
 * redirect it.
 */

export type OutboundMode = 'sandbox' | 'production';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export type DeliveryAddress = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** The shape of `dns.promises.lookup(hostname, { all: true })`, injectable for tests. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/**
 * Why an address may not be connected to, as a phrase ("a loopback address"), or undefined when it
 * may. Every address of a DNS answer is judged.
 */
export type AddressJudge = (address: string) => string | undefined;

/** Production's rule for URLs no operator vouched for: public addresses only. */
export const publicOnly: AddressJudge = (address) => (isPublicAddress(address) ? undefined : `a ${addressCategory(address)} address`);

const anyAddress: AddressJudge = () => undefined;

/** A host name or IP literal without the brackets of an IPv6 literal. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Registration-time check of a URL a platform gives the service to call: absolute http(s), no
 * credentials, no fragment, no whitespace or control characters (which the URL parser would
 * silently drop). Production also requires https and refuses hosts that are certainly not public
 * (localhost names, non-public IP literals); host names are judged again, after DNS, at every
 * connection.
 */
export function checkWebhookUrlSyntax(url: string, mode: OutboundMode): UrlCheck {
  if (typeof url !== 'string' || url.length === 0) return { ok: false, reason: 'the URL is empty' };
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u0020\u007f]/.test(url)) return { ok: false, reason: 'the URL contains whitespace or control characters' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return { ok: false, reason: `the scheme must be https${mode === 'sandbox' ? ' or http' : ''}` };
  }
  if (mode === 'production' && parsed.protocol !== 'https:') return { ok: false, reason: 'production URLs must use https' };
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'the URL must not contain credentials (user:password@)' };
  }
  if (parsed.hash !== '' || parsed.href.includes('#')) return { ok: false, reason: 'the URL must not contain a fragment (#...)' };
  const host = bareHost(parsed.hostname);
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  if (mode === 'production') {
    if (isLocalhostName(host)) return { ok: false, reason: 'production URLs must not point at localhost' };
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      return { ok: false, reason: `production URLs must not point at a ${addressCategory(host)} address (${host})` };
    }
  }
  return { ok: true, url: parsed };
}

type Address = { address: string; family: 4 | 6 };

export type AdmittedAddresses = { ok: true; addresses: Address[] } | { ok: false; reason: string };

function withFamily(address: string): Address {
  return { address, family: isIP(address) === 4 ? 4 : 6 };
}

/**
 * Resolves a host (every address) and judges each: refused when `judge` refuses any of them, so an
 * answer mixing admitted and refused addresses is refused as a whole; otherwise the addresses in
 * the resolver's order. An IP literal is judged as it is, without DNS.
 */
export async function resolveAdmittedAddresses(host: string, judge: AddressJudge, lookup: LookupAll = dnsPromises.lookup): Promise<AdmittedAddresses> {
  if (isIP(host) !== 0) {
    const refusal = judge(host);
    return refusal === undefined ? { ok: true, addresses: [withFamily(host)] } : { ok: false, reason: `${host} is ${refusal}` };
  }
  let answers: ReadonlyArray<{ address: string; family: number }>;
  try {
    answers = await lookup(host, { all: true });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    return { ok: false, reason: `DNS lookup of ${host} failed${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  const addresses = (Array.isArray(answers) ? (answers as { address?: unknown }[]) : [])
    .map((answer) => answer?.address)
    .filter((address): address is string => typeof address === 'string');
  if (addresses.length === 0) return { ok: false, reason: `DNS lookup of ${host} returned no address` };

  for (const address of addresses) {
    const refusal = judge(address);
    if (refusal !== undefined) return { ok: false, reason: `${host} resolves to ${address}, ${refusal}` };
  }
  const valid = addresses.filter((address) => isIP(address) !== 0);
  if (valid.length === 0) return { ok: false, reason: `DNS lookup of ${host} returned no valid address` };
  return { ok: true, addresses: valid.map(withFamily) };
}

/**
 * Registration-time DNS check of a webhook URL: production refuses http, localhost names and any
 * host resolving to a non-public address; the sandbox takes the first address whatever it is.
 */
export async function resolveDeliveryAddress(url: URL, mode: OutboundMode, lookup: LookupAll = dnsPromises.lookup): Promise<DeliveryAddress> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `unsupported scheme ${url.protocol}` };
  if (mode === 'production' && url.protocol !== 'https:') return { ok: false, reason: 'production URLs must use https' };
  const host = bareHost(url.hostname);
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  if (mode === 'production' && isIP(host) === 0 && isLocalhostName(host)) return { ok: false, reason: `${host} is a localhost name` };
  const resolved = await resolveAdmittedAddresses(host, mode === 'production' ? publicOnly : anyAddress, lookup);
  return resolved.ok ? { ok: true, ...resolved.addresses[0]! } : resolved;
}

/**
 * A `lookup` for `net.connect` / `tls.connect` that always answers with addresses already checked,
 * so the connection goes exactly there. It honours `{ all: true }`, which Node 20 asks for by
 * default (happy-eyeballs `autoSelectFamily`, which then tries each address): answering such a call
 * with a single address fails every connection with "Invalid IP address: undefined".
 */
export function lookupAnswering(addresses: readonly Address[]): LookupFunction {
  const [first] = addresses;
  if (first === undefined) throw new TypeError('lookupAnswering needs at least one address');
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, addresses.map(({ address, family }) => ({ address, family })));
    else callback(null, first.address, first.family);
  };
}

/** `lookupAnswering` with one address. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return lookupAnswering([{ address, family }]);
}
