import { promises as dnsPromises } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where webhooks may be delivered. Production endpoints must be https and must reach only public
 * addresses (no server-side request forgery into the operator's network); the sandbox delivers
 * anywhere, localhost included, over http or https.
 *
 * Use in two steps: `checkWebhookUrlSyntax` when an endpoint is registered, and
 * `resolveDeliveryAddress` just before every delivery attempt. The attempt must then connect to
 * the returned address (keeping the URL's host name for the Host header and TLS SNI/certificate
 * check), so a DNS answer that changes between the check and the connection (DNS rebinding) cannot
 * redirect it.
 */

export type WebhookMode = 'sandbox' | 'production';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export type DeliveryAddress = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** The shape of `dns.promises.lookup(hostname, { all: true })`, injectable for tests. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** What an address is, by the IANA special-purpose registries; only `public` may receive webhooks. */
export type AddressCategory =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'this-network'
  | 'private'
  | 'shared'
  | 'loopback'
  | 'link-local'
  | 'protocol-assignments'
  | 'documentation'
  | 'benchmarking'
  | '6to4-relay'
  | 'multicast'
  | 'reserved'
  | 'broadcast'
  | 'unique-local'
  | 'scoped'
  | 'not-global-unicast';

type Range = readonly [network: string, prefix: number, category: AddressCategory];

// Order matters only where ranges nest: the more specific one comes first.
const IPV4_RANGES: readonly Range[] = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'], // carrier-grade NAT
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // includes cloud metadata at 169.254.169.254
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'protocol-assignments'],
  ['192.0.2.0', 24, 'documentation'], // TEST-NET-1
  ['192.88.99.0', 24, '6to4-relay'], // deprecated anycast
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'], // TEST-NET-2
  ['203.0.113.0', 24, 'documentation'], // TEST-NET-3
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

// Checked after the ranges that embed an IPv4 address (::ffff:0:0/96, 64:ff9b::/96, 2002::/16).
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fe80::', 10, 'link-local'],
  ['fc00::', 7, 'unique-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2001::', 23, 'protocol-assignments'], // Teredo, benchmarking 2001:2::/48, ORCHID, ...
];

function blockListOf(network: string, prefix: number, type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return list;
}

const IPV4_LISTS = IPV4_RANGES.map(([network, prefix, category]) => ({ list: blockListOf(network, prefix, 'ipv4'), category }));
const IPV6_LISTS = IPV6_RANGES.map(([network, prefix, category]) => ({ list: blockListOf(network, prefix, 'ipv6'), category }));
// Everything public in IPv6 today is global unicast; anything outside 2000::/3 is refused.
const GLOBAL_UNICAST = blockListOf('2000::', 3, 'ipv6');

/** The 16 bytes of a valid IPv6 address without zone (checked with isIP first). */
function ipv6Bytes(ip: string): Uint8Array {
  const bytes = new Uint8Array(16);
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // Trailing dotted IPv4 (::ffff:1.2.3.4): its four bytes end the address.
    for (const part of text.slice(lastColon + 1).split('.')) tail.push(Number(part));
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groupsOf = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = groupsOf(head);
  const right = rest === undefined ? [] : groupsOf(rest);
  const groups = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

function ipv4At(bytes: Uint8Array, offset: number): string {
  return Array.from(bytes.subarray(offset, offset + 4)).join('.');
}

function ipv4Category(ip: string): AddressCategory {
  for (const { list, category } of IPV4_LISTS) if (list.check(ip, 'ipv4')) return category;
  return 'public';
}

/**
 * Classifies an IP address (no brackets). IPv6 forms that carry an IPv4 address (IPv4-mapped
 * ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address.
 */
export function addressCategory(ip: string): AddressCategory {
  const version = isIP(ip);
  if (version === 4) return ipv4Category(ip);
  if (version !== 6) return 'invalid';
  // A zone (fe80::1%eth0) only means something on one host's link.
  if (ip.includes('%')) return 'scoped';
  const b = ipv6Bytes(ip);
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return ipv4Category(ipv4At(b, 12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return ipv4Category(ipv4At(b, 12));
  if (b[0] === 0x20 && b[1] === 0x02) return ipv4Category(ipv4At(b, 2));
  for (const { list, category } of IPV6_LISTS) if (list.check(ip, 'ipv6')) return category;
  return GLOBAL_UNICAST.check(ip, 'ipv6') ? 'public' : 'not-global-unicast';
}

/** True only for an address a production webhook may be delivered to. */
export function isPublicAddress(ip: string): boolean {
  return addressCategory(ip) === 'public';
}

/** The URL's host without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Registration-time check of a webhook URL: absolute http(s), no credentials, no fragment, no
 * whitespace or control characters (which the URL parser would silently drop). Production also
 * requires https and refuses hosts that are certainly not public (localhost names, non-public IP
 * literals); host names are judged again, after DNS, by `resolveDeliveryAddress`.
 */
export function checkWebhookUrlSyntax(url: string, mode: WebhookMode): UrlCheck {
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
  if (mode === 'production' && parsed.protocol !== 'https:') return { ok: false, reason: 'production webhook URLs must use https' };
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, reason: 'the URL must not contain credentials (user:password@)' };
  }
  if (parsed.hash !== '' || parsed.href.includes('#')) return { ok: false, reason: 'the URL must not contain a fragment (#...)' };
  const host = bareHost(parsed);
  if (host === '') return { ok: false, reason: 'the URL has no host' };
  if (mode === 'production') {
    if (isLocalhostName(host)) return { ok: false, reason: 'production webhook URLs must not point at localhost' };
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      return { ok: false, reason: `production webhook URLs must not point at a ${addressCategory(host)} address (${host})` };
    }
  }
  return { ok: true, url: parsed };
}

/**
 * Delivery-time check: resolves the URL's host (every address) and picks the one to connect to.
 * Production refuses when any resolved address is not public, so an answer mixing public and
 * private addresses is refused as a whole, and returns the first public one; the sandbox returns
 * the first address whatever it is. An IP-literal host is judged as it is, without DNS.
 */
export async function resolveDeliveryAddress(
  url: URL,
  mode: WebhookMode,
  lookup: LookupAll = dnsPromises.lookup,
): Promise<DeliveryAddress> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `unsupported scheme ${url.protocol}` };
  if (mode === 'production' && url.protocol !== 'https:') return { ok: false, reason: 'production webhook URLs must use https' };
  const host = bareHost(url);
  if (host === '') return { ok: false, reason: 'the URL has no host' };

  const literal = isIP(host);
  if (literal !== 0) {
    if (mode === 'production' && !isPublicAddress(host)) {
      return { ok: false, reason: `${host} is a ${addressCategory(host)} address` };
    }
    return { ok: true, address: host, family: literal === 4 ? 4 : 6 };
  }
  if (mode === 'production' && isLocalhostName(host)) return { ok: false, reason: `${host} is a localhost name` };

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

  if (mode === 'production') {
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined) {
      return { ok: false, reason: `${host} resolves to ${refused}, a ${addressCategory(refused)} address` };
    }
  }
  const chosen = addresses.find((address) => isIP(address) !== 0);
  if (chosen === undefined) return { ok: false, reason: `DNS lookup of ${host} returned no valid address` };
  return { ok: true, address: chosen, family: isIP(chosen) === 4 ? 4 : 6 };
}

/**
 * A `lookup` for `net.connect` / `tls.connect` / an undici `Agent`'s `connect` options that always
 * answers with the address `resolveDeliveryAddress` checked, so the connection goes exactly there.
 * It honours `{ all: true }`, which Node 20 asks for by default (happy-eyeballs
 * `autoSelectFamily`): answering such a call with a single address fails every connection with
 * "Invalid IP address: undefined".
 */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
