import { BlockList, isIP } from 'node:net';

/**
 * What an IP address is, by the IANA special-purpose registries. In production the service
 * connects only to `public` addresses (and to those the operator trusts, see allow-list.ts): no
 * server-side request forgery into the operator's network.
 */

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

/** True only for an address production may connect to without the operator vouching for it. */
export function isPublicAddress(ip: string): boolean {
  return addressCategory(ip) === 'public';
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), else the address as given. */
export function unmappedAddress(ip: string): string {
  if (isIP(ip) !== 6 || ip.includes('%')) return ip;
  const b = ipv6Bytes(ip);
  const mapped = b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped ? ipv4At(b, 12) : ip;
}
