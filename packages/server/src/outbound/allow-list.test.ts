import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { createAllowList, parseAllowList, parseCidr } from './allow-list.js';

describe('parseCidr', () => {
  it('reads IPv4 and IPv6 ranges, and single addresses as the narrowest range', () => {
    expect(parseCidr('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(parseCidr(' 192.168.1.7 ')).toBe('192.168.1.7/32');
    expect(parseCidr('fd00::/8')).toBe('fd00::/8');
    expect(parseCidr('::1')).toBe('::1/128');
    expect(parseCidr('127.0.0.1/032')).toBe('127.0.0.1/32');
  });

  it.each(['', 'localhost', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0/8', 'fe80::1%eth0/64', '10.0.0.0/8 x'])(
    '%j is not a range',
    (text) => {
      expect(parseCidr(text)).toBeUndefined();
    },
  );
});

describe('createAllowList', () => {
  it('admits addresses inside its ranges only, IPv4-mapped forms included', () => {
    const allow = createAllowList(['10.20.0.0/16', '127.0.0.1', 'fd12::/16']);
    expect(allow.includes('10.20.3.4')).toBe(true);
    expect(allow.includes('10.21.0.1')).toBe(false);
    expect(allow.includes('127.0.0.1')).toBe(true);
    expect(allow.includes('127.0.0.2')).toBe(false);
    expect(allow.includes('::ffff:127.0.0.1')).toBe(true);
    expect(allow.includes('::ffff:10.20.9.9')).toBe(true);
    expect(allow.includes('fd12:3::1')).toBe(true);
    expect(allow.includes('fd13::1')).toBe(false);
    expect(allow.includes('::1')).toBe(false);
    expect(allow.includes('not-an-ip')).toBe(false);
  });

  it('is empty by default', () => {
    const none = createAllowList();
    expect(['127.0.0.1', '10.0.0.1', '8.8.8.8', '::1'].some((address) => none.includes(address))).toBe(false);
  });
});

describe('MONETA_OUTBOUND_ALLOW', () => {
  it('is a comma-separated list of ranges, empty when unset', () => {
    expect(loadConfig({}).outboundAllow).toEqual([]);
    expect(loadConfig({ MONETA_OUTBOUND_ALLOW: '' }).outboundAllow).toEqual([]);
    expect(loadConfig({ MONETA_OUTBOUND_ALLOW: '10.1.0.0/16, 192.168.5.9 ,fd00::/8,' }).outboundAllow).toEqual(['10.1.0.0/16', '192.168.5.9/32', 'fd00::/8']);
  });

  it('refuses an entry that is not a range, naming it', () => {
    expect(() => loadConfig({ MONETA_OUTBOUND_ALLOW: '10.0.0.0/8,sms.internal' })).toThrow(ConfigError);
    expect(() => loadConfig({ MONETA_OUTBOUND_ALLOW: '10.0.0.0/8,sms.internal' })).toThrow(/^MONETA_OUTBOUND_ALLOW: "sms.internal" is not an IP address or CIDR range/);
    expect(() => parseAllowList('10.0.0.0/40')).toThrow(/"10.0.0.0\/40"/);
  });
});
