import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressCategory, isPublicAddress, unmappedAddress, type AddressCategory } from './addresses.js';
import { checkWebhookUrlSyntax, lookupAnswering, pinnedLookup, resolveDeliveryAddress, type LookupAll } from './urls.js';

/** [address, expected category]: each range's first and last address, and its neighbours outside. */
const IPV4_CASES: ReadonlyArray<readonly [string, AddressCategory]> = [
  // 0.0.0.0/8
  ['0.0.0.0', 'this-network'],
  ['0.255.255.255', 'this-network'],
  ['1.0.0.0', 'public'],
  // 10.0.0.0/8
  ['9.255.255.255', 'public'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['11.0.0.0', 'public'],
  // 100.64.0.0/10 (CGNAT)
  ['100.63.255.255', 'public'],
  ['100.64.0.0', 'shared'],
  ['100.127.255.255', 'shared'],
  ['100.128.0.0', 'public'],
  // 127.0.0.0/8
  ['126.255.255.255', 'public'],
  ['127.0.0.0', 'loopback'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.255', 'loopback'],
  ['128.0.0.0', 'public'],
  // 169.254.0.0/16
  ['169.253.255.255', 'public'],
  ['169.254.0.0', 'link-local'],
  ['169.254.169.254', 'link-local'],
  ['169.254.255.255', 'link-local'],
  ['169.255.0.0', 'public'],
  // 172.16.0.0/12
  ['172.15.255.255', 'public'],
  ['172.16.0.0', 'private'],
  ['172.31.255.255', 'private'],
  ['172.32.0.0', 'public'],
  // 192.0.0.0/24 and 192.0.2.0/24
  ['191.255.255.255', 'public'],
  ['192.0.0.0', 'protocol-assignments'],
  ['192.0.0.255', 'protocol-assignments'],
  ['192.0.1.0', 'public'],
  ['192.0.1.255', 'public'],
  ['192.0.2.0', 'documentation'],
  ['192.0.2.255', 'documentation'],
  ['192.0.3.0', 'public'],
  // 192.88.99.0/24
  ['192.88.98.255', 'public'],
  ['192.88.99.0', '6to4-relay'],
  ['192.88.99.255', '6to4-relay'],
  ['192.88.100.0', 'public'],
  // 192.168.0.0/16
  ['192.167.255.255', 'public'],
  ['192.168.0.0', 'private'],
  ['192.168.255.255', 'private'],
  ['192.169.0.0', 'public'],
  // 198.18.0.0/15
  ['198.17.255.255', 'public'],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['198.20.0.0', 'public'],
  // 198.51.100.0/24
  ['198.51.99.255', 'public'],
  ['198.51.100.0', 'documentation'],
  ['198.51.100.255', 'documentation'],
  ['198.51.101.0', 'public'],
  // 203.0.113.0/24
  ['203.0.112.255', 'public'],
  ['203.0.113.0', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['203.0.114.0', 'public'],
  // 224.0.0.0/4, 240.0.0.0/4, 255.255.255.255
  ['223.255.255.255', 'public'],
  ['224.0.0.0', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.0', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  // ordinary public addresses
  ['8.8.8.8', 'public'],
  ['93.184.215.14', 'public'],
];

const IPV6_CASES: ReadonlyArray<readonly [string, AddressCategory]> = [
  // ::, ::1 and their neighbours (all outside global unicast 2000::/3)
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['::2', 'not-global-unicast'],
  // fe80::/10
  ['fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not-global-unicast'],
  ['fe80::', 'link-local'],
  ['fe80::1', 'link-local'],
  ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'link-local'],
  ['fec0::', 'not-global-unicast'],
  ['fe80::1%eth0', 'scoped'],
  // fc00::/7
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not-global-unicast'],
  ['fc00::', 'unique-local'],
  ['fd12:3456:789a::1', 'unique-local'],
  ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'unique-local'],
  ['fe00::', 'not-global-unicast'],
  // ff00::/8
  ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not-global-unicast'],
  ['ff00::', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'multicast'],
  // 2001:db8::/32
  ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['2001:db8::', 'documentation'],
  ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['2001:db9::', 'public'],
  // 3fff::/20 (documentation, RFC 9637)
  ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['3fff::', 'documentation'],
  ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'documentation'],
  ['3fff:1000::', 'public'],
  // 2001::/23 (IETF protocol assignments: Teredo, benchmarking, ORCHID)
  ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['2001::', 'protocol-assignments'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'protocol-assignments'],
  ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', 'protocol-assignments'],
  ['2001:200::', 'public'],
  // global unicast 2000::/3 edges
  ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'not-global-unicast'],
  ['2000::', 'public'],
  ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['4000::', 'not-global-unicast'],
  ['2606:4700:4700::1111', 'public'],
  // IPv4-mapped ::ffff:0:0/96, judged by the embedded address, dotted or hex
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'link-local'],
  ['::ffff:8.8.8.8', 'public'],
  ['::ffff:808:808', 'public'],
  ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
  ['::fffe:808:808', 'not-global-unicast'],
  ['::1:ffff:808:808', 'not-global-unicast'],
  // IPv4-compatible (deprecated) ::a.b.c.d is not judged by the embedded address
  ['::8.8.8.8', 'not-global-unicast'],
  // NAT64 64:ff9b::/96
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b::808:808', 'public'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a00:1', 'private'],
  ['64:ff9b::ffff:ffff', 'broadcast'],
  ['64:ff9b:0:0:0:1:808:808', 'not-global-unicast'], // outside /96
  ['64:ff9b:1::808:808', 'not-global-unicast'], // local-use NAT64 64:ff9b:1::/48
  ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', 'not-global-unicast'],
  // 6to4 2002::/16, judged by the embedded address
  ['2002:808:808::1', 'public'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:c0a8:101::', 'private'],
  ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'public'],
  ['2003::1', 'public'],
];

describe('addressCategory and isPublicAddress', () => {
  it.each(IPV4_CASES)('IPv4 %s is %s', (ip, category) => {
    expect(addressCategory(ip)).toBe(category);
    expect(isPublicAddress(ip)).toBe(category === 'public');
  });

  it.each(IPV6_CASES)('IPv6 %s is %s', (ip, category) => {
    expect(addressCategory(ip)).toBe(category);
    expect(isPublicAddress(ip)).toBe(category === 'public');
  });

  it('IPv6 is judged the same in upper case and in full form', () => {
    expect(isPublicAddress('FE80::1')).toBe(false);
    expect(isPublicAddress('::FFFF:7F00:1')).toBe(false);
    expect(isPublicAddress('2606:4700:4700:0000:0000:0000:0000:1111')).toBe(true);
  });

  it('unmaps IPv4-mapped IPv6 addresses and leaves every other address as it is', () => {
    expect(unmappedAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(unmappedAddress('::ffff:a00:5')).toBe('10.0.0.5');
    expect(unmappedAddress('64:ff9b::a00:5')).toBe('64:ff9b::a00:5');
    expect(unmappedAddress('::1')).toBe('::1');
    expect(unmappedAddress('10.0.0.5')).toBe('10.0.0.5');
    expect(unmappedAddress('not an address')).toBe('not an address');
  });

  it.each(['', 'localhost', 'example.com', '[::1]', '1.2.3', '01.2.3.4', '256.1.1.1', '::g', ' 8.8.8.8', '8.8.8.8/32'])(
    '%j is not an address, so not public',
    (value) => {
      expect(addressCategory(value)).toBe('invalid');
      expect(isPublicAddress(value)).toBe(false);
    },
  );
});

describe('checkWebhookUrlSyntax', () => {
  const ok = (url: string, mode: 'sandbox' | 'production') => {
    const result = checkWebhookUrlSyntax(url, mode);
    if (!result.ok) throw new Error(`expected ${url} to be accepted in ${mode}: ${result.reason}`);
    return result.url;
  };
  const refused = (url: string, mode: 'sandbox' | 'production') => {
    const result = checkWebhookUrlSyntax(url, mode);
    if (result.ok) throw new Error(`expected ${url} to be refused in ${mode}`);
    return result.reason;
  };

  it('accepts https everywhere and returns the parsed URL', () => {
    const url = ok('https://hooks.example.com/moneta?x=1', 'production');
    expect(url.hostname).toBe('hooks.example.com');
    expect(url.search).toBe('?x=1');
    expect(ok('https://hooks.example.com:8443/a/b', 'sandbox').port).toBe('8443');
    expect(ok('https://[2606:4700:4700::1111]/hook', 'production').hostname).toBe('[2606:4700:4700::1111]');
    expect(ok('https://8.8.8.8/hook', 'production').hostname).toBe('8.8.8.8');
    expect(ok('https://example.com/a@b', 'production').pathname).toBe('/a@b');
  });

  it('production requires https; sandbox also takes http', () => {
    expect(refused('http://hooks.example.com/', 'production')).toMatch(/https/);
    expect(ok('http://hooks.example.com/', 'sandbox').protocol).toBe('http:');
  });

  it('sandbox allows localhost and private addresses; production refuses them', () => {
    for (const url of ['http://localhost:3000/hook', 'http://127.0.0.1:3000/', 'http://[::1]:3000/', 'https://api.localhost/', 'http://10.0.0.5/']) {
      expect(checkWebhookUrlSyntax(url, 'sandbox').ok).toBe(true);
    }
    for (const url of [
      'https://localhost/hook',
      'https://LOCALHOST./hook',
      'https://api.localhost/hook',
      'https://127.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fe80::1]/',
      'https://10.0.0.5/',
      'https://169.254.169.254/latest/meta-data',
      'https://0x7f.1/', // the URL parser normalizes this to 127.0.0.1
      'https://2130706433/', // and this one too
    ]) {
      expect(checkWebhookUrlSyntax(url, 'production').ok, url).toBe(false);
    }
  });

  it.each(['sandbox', 'production'] as const)('refuses malformed or unsafe URLs (%s)', (mode) => {
    expect(refused('', mode)).toMatch(/empty/);
    expect(refused('/hooks', mode)).toMatch(/absolute/);
    expect(refused('hooks.example.com/x', mode)).toMatch(/absolute/);
    expect(refused('https://', mode)).toMatch(/absolute/);
    expect(refused('ftp://example.com/', mode)).toMatch(/scheme/);
    expect(refused('file:///etc/passwd', mode)).toMatch(/scheme/);
    expect(refused('javascript:alert(1)', mode)).toMatch(/scheme/);
    expect(refused('https://user:pass@example.com/', mode)).toMatch(/credentials/);
    expect(refused('https://user@example.com/', mode)).toMatch(/credentials/);
    expect(refused('https://:pass@example.com/', mode)).toMatch(/credentials/);
    expect(refused('https://example.com/hook#frag', mode)).toMatch(/fragment/);
    expect(refused('https://example.com/hook#', mode)).toMatch(/fragment/);
    expect(refused(' https://example.com/', mode)).toMatch(/whitespace/);
    expect(refused('https://exa\tmple.com/', mode)).toMatch(/whitespace/);
    expect(refused('https://example.com/a b', mode)).toMatch(/whitespace/);
    expect(refused('https://example.com/\n', mode)).toMatch(/whitespace/);
  });
});

/** A fake resolver that answers from a table and records what it was asked. */
function fakeLookup(table: Record<string, ReadonlyArray<string> | Error>): LookupAll & { asked: string[] } {
  const asked: string[] = [];
  const lookup = async (hostname: string, options: { all: true }) => {
    expect(options).toEqual({ all: true });
    asked.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    if (entry instanceof Error) throw entry;
    return entry.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
}

describe('resolveDeliveryAddress', () => {
  const lookup = fakeLookup({
    'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'v6only.example': ['2606:4700:4700::1111'],
    'private.example': ['10.0.0.7'],
    'mixed.example': ['93.184.215.14', '127.0.0.1'],
    'mixed-late.example': ['93.184.215.14', '8.8.8.8', '192.168.1.1'],
    'mixed-v6.example': ['2606:4700:4700::1111', 'fd00::1'],
    'mapped.example': ['::ffff:169.254.169.254'],
    'nat64.example': ['64:ff9b::a9fe:a9fe'],
    'nat64-public.example': ['64:ff9b::808:808'],
    'metadata.example': ['169.254.169.254'],
    'localhost': ['127.0.0.1', '::1'],
    'private-first.example': ['192.168.1.10', '93.184.215.14'],
    'empty.example': [],
    'garbage.example': ['not-an-ip'],
    'timeout.example': Object.assign(new Error('queryA ETIMEOUT'), { code: 'ETIMEOUT' }),
  });
  const url = (s: string) => new URL(s);

  it('production returns the first public address of a fully public answer', async () => {
    await expect(resolveDeliveryAddress(url('https://public.example/hook'), 'production', lookup)).resolves.toEqual({
      ok: true,
      address: '93.184.215.14',
      family: 4,
    });
    await expect(resolveDeliveryAddress(url('https://v6only.example/hook'), 'production', lookup)).resolves.toEqual({
      ok: true,
      address: '2606:4700:4700::1111',
      family: 6,
    });
    await expect(resolveDeliveryAddress(url('https://nat64-public.example/'), 'production', lookup)).resolves.toMatchObject({
      ok: true,
      address: '64:ff9b::808:808',
      family: 6,
    });
  });

  it('production refuses when any resolved address is not public, wherever it comes in the answer', async () => {
    for (const host of ['private.example', 'mixed.example', 'mixed-late.example', 'mixed-v6.example', 'mapped.example', 'nat64.example', 'metadata.example', 'private-first.example']) {
      const result = await resolveDeliveryAddress(url(`https://${host}/hook`), 'production', lookup);
      expect(result.ok, host).toBe(false);
      if (!result.ok) expect(result.reason).toContain(host);
    }
    const mixed = await resolveDeliveryAddress(url('https://mixed.example/'), 'production', lookup);
    expect(mixed).toEqual({ ok: false, reason: 'mixed.example resolves to 127.0.0.1, a loopback address' });
  });

  it('sandbox returns the first address whatever it is', async () => {
    await expect(resolveDeliveryAddress(url('http://private-first.example/'), 'sandbox', lookup)).resolves.toEqual({
      ok: true,
      address: '192.168.1.10',
      family: 4,
    });
    await expect(resolveDeliveryAddress(url('http://localhost:3000/'), 'sandbox', lookup)).resolves.toEqual({
      ok: true,
      address: '127.0.0.1',
      family: 4,
    });
    await expect(resolveDeliveryAddress(url('https://mixed-v6.example/'), 'sandbox', lookup)).resolves.toEqual({
      ok: true,
      address: '2606:4700:4700::1111',
      family: 6,
    });
  });

  it('judges IP-literal hosts directly, without DNS', async () => {
    const spy = fakeLookup({});
    await expect(resolveDeliveryAddress(url('https://8.8.8.8/hook'), 'production', spy)).resolves.toEqual({ ok: true, address: '8.8.8.8', family: 4 });
    await expect(resolveDeliveryAddress(url('https://[2606:4700:4700::1111]:8443/'), 'production', spy)).resolves.toEqual({
      ok: true,
      address: '2606:4700:4700::1111',
      family: 6,
    });
    await expect(resolveDeliveryAddress(url('https://127.0.0.1/'), 'production', spy)).resolves.toMatchObject({ ok: false, reason: '127.0.0.1 is a loopback address' });
    await expect(resolveDeliveryAddress(url('https://[::1]/'), 'production', spy)).resolves.toMatchObject({ ok: false });
    await expect(resolveDeliveryAddress(url('https://[::ffff:10.0.0.1]/'), 'production', spy)).resolves.toMatchObject({ ok: false });
    await expect(resolveDeliveryAddress(url('https://0x7f.1/'), 'production', spy)).resolves.toMatchObject({ ok: false });
    await expect(resolveDeliveryAddress(url('http://[::1]:3000/'), 'sandbox', spy)).resolves.toEqual({ ok: true, address: '::1', family: 6 });
    await expect(resolveDeliveryAddress(url('http://10.1.2.3/'), 'sandbox', spy)).resolves.toEqual({ ok: true, address: '10.1.2.3', family: 4 });
    expect(spy.asked).toEqual([]);
  });

  it('production refuses localhost names without asking DNS, and http', async () => {
    const spy = fakeLookup({ 'localhost': ['93.184.215.14'], 'hooks.localhost': ['93.184.215.14'], 'public.example': ['93.184.215.14'] });
    await expect(resolveDeliveryAddress(url('https://localhost/'), 'production', spy)).resolves.toMatchObject({ ok: false });
    await expect(resolveDeliveryAddress(url('https://hooks.localhost/'), 'production', spy)).resolves.toMatchObject({ ok: false });
    await expect(resolveDeliveryAddress(url('http://public.example/'), 'production', spy)).resolves.toMatchObject({ ok: false, reason: expect.stringMatching(/https/) as unknown });
    await expect(resolveDeliveryAddress(url('ftp://public.example/'), 'sandbox', spy)).resolves.toMatchObject({ ok: false });
    expect(spy.asked).toEqual([]);
  });

  it('reports lookup failures and empty or unusable answers', async () => {
    for (const mode of ['sandbox', 'production'] as const) {
      await expect(resolveDeliveryAddress(url('https://nowhere.example/'), mode, lookup)).resolves.toEqual({
        ok: false,
        reason: 'DNS lookup of nowhere.example failed (ENOTFOUND)',
      });
      await expect(resolveDeliveryAddress(url('https://timeout.example/'), mode, lookup)).resolves.toMatchObject({ ok: false, reason: expect.stringContaining('ETIMEOUT') as unknown });
      await expect(resolveDeliveryAddress(url('https://empty.example/'), mode, lookup)).resolves.toMatchObject({ ok: false, reason: expect.stringContaining('no address') as unknown });
      await expect(resolveDeliveryAddress(url('https://garbage.example/'), mode, lookup)).resolves.toMatchObject({ ok: false });
    }
  });

  it('asks DNS for the host name only (no brackets, port or path)', async () => {
    const spy = fakeLookup({ 'hooks.example.com': ['93.184.215.14'] });
    await resolveDeliveryAddress(url('https://hooks.example.com:8443/a/b?c=d'), 'production', spy);
    expect(spy.asked).toEqual(['hooks.example.com']);
  });
});

describe('pinnedLookup', () => {
  it('answers both lookup styles with the pinned address', () => {
    const lookup = pinnedLookup('93.184.215.14', 4);
    const answers: unknown[][] = [];
    lookup('hooks.example.com', { all: true }, (...args) => answers.push(args));
    lookup('hooks.example.com', {}, (...args) => answers.push(args));
    expect(answers).toEqual([
      [null, [{ address: '93.184.215.14', family: 4 }]],
      [null, '93.184.215.14', 4],
    ]);
  });

  it('answers with every admitted address when asked for all (happy eyeballs then tries each), else with the first', () => {
    const lookup = lookupAnswering([
      { address: '2606:4700:4700::1111', family: 6 },
      { address: '93.184.215.14', family: 4 },
    ]);
    const answers: unknown[][] = [];
    lookup('hooks.example.com', { all: true }, (...args) => answers.push(args));
    lookup('hooks.example.com', {}, (...args) => answers.push(args));
    expect(answers).toEqual([
      [null, [{ address: '2606:4700:4700::1111', family: 6 }, { address: '93.184.215.14', family: 4 }]],
      [null, '2606:4700:4700::1111', 6],
    ]);
  });

  // Loopback only: a name that does not exist in DNS reaches the local server through the pin.
  it('makes net.connect (as undici does) connect to the pinned address, whatever the host name', async () => {
    const server = createServer((req, res) => res.end(`host=${req.headers.host}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const greeting = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: 'pinned.invalid', port, lookup: pinnedLookup('127.0.0.1', 4) });
        socket.on('error', reject);
        socket.on('connect', () => {
          socket.end('GET / HTTP/1.1\r\nHost: pinned.invalid\r\nConnection: close\r\n\r\n');
        });
        let text = '';
        socket.on('data', (chunk) => (text += String(chunk)));
        socket.on('end', () => resolve(text));
      });
      expect(greeting).toContain('host=pinned.invalid');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
