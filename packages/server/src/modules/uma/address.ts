import { invalidUmaAddress } from './errors.js';

export interface UmaAddress {
  address: string;
  user: string;
  domain: string;
}

const ADDRESS = /^\$([a-zA-Z0-9._+-]{1,64})@([a-zA-Z0-9.-]{1,190}(?::[0-9]{1,5})?)$/;

/** `$user@domain` (a port allowed for a local instance), or 400 INVALID_UMA_ADDRESS. */
export function parseUmaAddress(address: string): UmaAddress {
  const match = ADDRESS.exec(address);
  if (!match) throw invalidUmaAddress(address);
  return { address, user: match[1]!, domain: match[2]!.toLowerCase() };
}

/** UMA speaks http to local domains (localhost, 127.0.0.1, .local, .internal) and https to the rest, as the SDK does. */
export function isLocalDomain(domain: string): boolean {
  const host = domain.split(':')[0]!;
  const tld = host.split('.').pop();
  return host === 'localhost' || host === '127.0.0.1' || tld === 'local' || tld === 'internal';
}

export function baseUrl(domain: string): string {
  return `${isLocalDomain(domain) ? 'http' : 'https'}://${domain}`;
}
