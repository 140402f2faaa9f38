import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { configDir, configPath, readConfig, resolveCredentials, writeConfig } from './config.js';
import { CliError } from './errors.js';
import { loadListenKey } from './listen-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function home(): { HOME: string; XDG_CONFIG_HOME?: string } {
  const dir = mkdtempSync(join(tmpdir(), 'moneta-config-'));
  dirs.push(dir);
  return { HOME: dir };
}

const profile = { baseUrl: 'http://127.0.0.1:1', tokenId: 'tok', clientSecret: 'sk_secret' };

describe('config store', () => {
  it('lives under XDG_CONFIG_HOME, else ~/.config', () => {
    expect(configDir({ HOME: '/home/a' })).toBe('/home/a/.config/moneta');
    expect(configDir({ HOME: '/home/a', XDG_CONFIG_HOME: '/x/conf' })).toBe('/x/conf/moneta');
  });

  it('writes the file 0600 in a 0700 directory, whatever the umask', () => {
    const env = home();
    const old = process.umask(0o000);
    try {
      writeConfig({ defaultProfile: 'default', profiles: { default: profile } }, env);
    } finally {
      process.umask(old);
    }
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(statSync(configDir(env)).mode & 0o777).toBe(0o700);
    expect(readConfig(env).profiles.default).toEqual(profile);
  });

  it('tightens a file that was left readable', () => {
    const env = home();
    writeConfig({ profiles: { default: profile } }, env);
    writeFileSync(configPath(env), JSON.stringify({ profiles: { default: profile } }), { mode: 0o644 });
    writeConfig({ profiles: { default: profile } }, env);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
  });

  it('environment variables override the stored profile; nothing at all is an error', () => {
    const env = home();
    expect(() => resolveCredentials({}, env)).toThrow(CliError);
    writeConfig({ defaultProfile: 'default', profiles: { default: profile, other: { ...profile, tokenId: 'tok2' } } }, env);
    expect(resolveCredentials({}, env)).toMatchObject({ tokenId: 'tok', profile: 'default', source: 'profile' });
    expect(resolveCredentials({ profile: 'other' }, env)).toMatchObject({ tokenId: 'tok2' });
    expect(resolveCredentials({}, { ...env, MONETA_TOKEN_ID: 'ci', MONETA_BASE_URL: 'http://ci' })).toMatchObject({ tokenId: 'ci', baseUrl: 'http://ci', clientSecret: 'sk_secret', source: 'env+profile' });
    expect(() => resolveCredentials({ profile: 'missing' }, env)).toThrow(/no profile "missing"/);
    const bare = home();
    expect(resolveCredentials({}, { ...bare, MONETA_BASE_URL: 'http://ci', MONETA_TOKEN_ID: 'a', MONETA_CLIENT_SECRET: 'b' })).toMatchObject({ source: 'env' });
  });

  it('keeps the listen signing key next to the config, 0600, the same key on every start', () => {
    const env = home();
    const first = loadListenKey(env);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(first.path).toBe(join(configDir(env), 'listen-key.pem'));
    expect(loadListenKey(env).publicKeyPem).toBe(first.publicKeyPem);
    expect(first.publicKeyPem).toContain('BEGIN PUBLIC KEY');
  });
});
