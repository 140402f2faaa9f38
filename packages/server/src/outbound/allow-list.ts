import { BlockList, isIP } from 'node:net';
import { unmappedAddress } from './addresses.js';

/**
 * The networks an operator trusts (MONETA_OUTBOUND_ALLOW): its own SMS gateway or identity
 * provider may live on a private address. In production the service connects to an address inside
 * one of these ranges although it is not public, and may speak plain http to it.
 */
export interface AllowList {
  readonly cidrs: readonly string[];
  includes(address: string): boolean;
}

/**
 * `10.0.0.0/8`, `fd00::/8`, or a single address (`10.1.2.3` is /32, `::1` is /128), returned as
 * `network/prefix`; undefined when the text is none of these.
 */
export function parseCidr(text: string): string | undefined {
  const [network = '', prefixText, extra] = text.trim().split('/');
  const version = isIP(network);
  if (extra !== undefined || version === 0 || network.includes('%')) return undefined;
  const maxPrefix = version === 4 ? 32 : 128;
  if (prefixText === undefined) return `${network}/${maxPrefix}`;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) return undefined;
  return `${network}/${Number(prefixText)}`;
}

/** A comma-separated list of ranges, each normalized by parseCidr; throws naming the first entry that is not one. */
export function parseAllowList(text: string): string[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  return entries.map((entry) => {
    const cidr = parseCidr(entry);
    if (cidr === undefined) throw new TypeError(`"${entry}" is not an IP address or CIDR range (such as 10.0.0.0/8 or fd00::/8)`);
    return cidr;
  });
}

export function createAllowList(cidrs: readonly string[] = []): AllowList {
  const ranges = new BlockList();
  for (const cidr of parseAllowList(cidrs.join(','))) {
    const [network = '', prefix = ''] = cidr.split('/');
    ranges.addSubnet(network, Number(prefix), isIP(network) === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    cidrs,
    includes(address) {
      // An IPv4 range also covers the same address written as IPv4-mapped IPv6.
      const ip = unmappedAddress(address);
      const version = isIP(ip);
      return version !== 0 && ranges.check(ip, version === 4 ? 'ipv4' : 'ipv6');
    },
  };
}
