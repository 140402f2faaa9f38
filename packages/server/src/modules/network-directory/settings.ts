import { readFileSync } from 'node:fs';
import { isCountryCode } from '../../lib/countries.js';
import { CURRENCY_CODES } from '../../lib/currencies.js';
import type { DiscoveryEntry, UmaProviderEntry } from './default-catalogue.js';

declare module '../../contract/module.js' {
  interface ModuleSettings {
    networkDirectory: DirectorySettings;
  }
}

/** The operator's catalogues; undefined where the default applies. */
export interface DirectorySettings {
  discoveries: DiscoveryEntry[] | undefined;
  umaProviders: UmaProviderEntry[] | undefined;
}

const DOMAIN = /^(?=.{1,190}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;
const LEI = /^[A-Z0-9]{18}[0-9]{2}$/;

function readJsonArray(variable: string, path: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${variable} ${path} could not be read as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${variable} must hold a JSON array`);
  return parsed;
}

const isText = (value: unknown, max: number): value is string => typeof value === 'string' && value.trim() !== '' && value.length <= max;

function checkDiscovery(variable: string, entry: unknown, index: number): DiscoveryEntry {
  const at = `${variable}[${index}]`;
  if (typeof entry !== 'object' || entry === null) throw new Error(`${at} must be an object`);
  const e = entry as Record<string, unknown>;
  const problems: string[] = [];
  // 140 characters: what POST /customers/external-accounts accepts as accountInfo.bankName.
  if (!isText(e.bankName, 140)) problems.push('bankName must be text of at most 140 characters');
  if (!isText(e.displayName, 200)) problems.push('displayName must be text of at most 200 characters');
  if (typeof e.country !== 'string' || !isCountryCode(e.country)) problems.push('country must be an ISO 3166-1 alpha-2 code');
  if (typeof e.currency !== 'string' || !CURRENCY_CODES.includes(e.currency)) problems.push(`currency must be one of ${CURRENCY_CODES.join(', ')}`);
  const unknown = Object.keys(e).filter((k) => !['bankName', 'displayName', 'country', 'currency'].includes(k));
  if (unknown.length > 0) problems.push(`unknown field(s) ${unknown.join(', ')}`);
  if (problems.length > 0) throw new Error(`${at}: ${problems.join('; ')}`);
  return { bankName: e.bankName as string, displayName: e.displayName as string, country: e.country as string, currency: e.currency as string };
}

function checkProvider(variable: string, entry: unknown, index: number): UmaProviderEntry {
  const at = `${variable}[${index}]`;
  if (typeof entry !== 'object' || entry === null) throw new Error(`${at} must be an object`);
  const e = entry as Record<string, unknown>;
  const problems: string[] = [];
  if (!isText(e.name, 200)) problems.push('name must be text of at most 200 characters');
  if (typeof e.domain !== 'string' || !DOMAIN.test(e.domain)) problems.push('domain must be a lower-case domain name (uma.example.com)');
  if (!Array.isArray(e.supportedRegions) || !e.supportedRegions.every((c) => typeof c === 'string' && isCountryCode(c))) problems.push('supportedRegions must be a list of ISO 3166-1 alpha-2 codes');
  if (!Array.isArray(e.supportedCurrencies) || !e.supportedCurrencies.every((c) => typeof c === 'string' && CURRENCY_CODES.includes(c))) {
    problems.push(`supportedCurrencies must be a list of codes among ${CURRENCY_CODES.join(', ')}`);
  }
  if (e.logoUrl !== undefined && (typeof e.logoUrl !== 'string' || !/^https?:\/\/\S+$/.test(e.logoUrl) || !URL.canParse(e.logoUrl))) problems.push('logoUrl must be an http(s) URL');
  if (e.lei !== undefined && (typeof e.lei !== 'string' || !LEI.test(e.lei))) problems.push('lei must be a 20-character Legal Entity Identifier');
  if (e.allowListed !== undefined && typeof e.allowListed !== 'boolean') problems.push('allowListed must be true or false');
  const unknown = Object.keys(e).filter((k) => !['name', 'domain', 'supportedRegions', 'supportedCurrencies', 'logoUrl', 'lei', 'allowListed'].includes(k));
  if (unknown.length > 0) problems.push(`unknown field(s) ${unknown.join(', ')}`);
  if (problems.length > 0) throw new Error(`${at}: ${problems.join('; ')}`);
  return {
    name: e.name as string,
    domain: e.domain as string,
    supportedRegions: e.supportedRegions as string[],
    supportedCurrencies: e.supportedCurrencies as string[],
    ...(e.logoUrl !== undefined ? { logoUrl: e.logoUrl as string } : {}),
    ...(e.lei !== undefined ? { lei: e.lei as string } : {}),
    allowListed: (e.allowListed as boolean | undefined) ?? true,
  };
}

function noDuplicates<T>(variable: string, entries: T[], keyOf: (entry: T) => string, what: string): T[] {
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = keyOf(entry);
    if (seen.has(key)) throw new Error(`${variable} lists ${what} ${key} twice`);
    seen.add(key);
  }
  return entries;
}

/**
 * MONETA_DISCOVERIES_FILE and MONETA_UMA_PROVIDERS_FILE: JSON arrays that replace the default
 * catalogues (default-catalogue.ts), each entry checked at start-up.
 */
export function readDirectorySettings(environment: Readonly<Record<string, string | undefined>>): DirectorySettings {
  const discoveriesFile = environment.MONETA_DISCOVERIES_FILE;
  const providersFile = environment.MONETA_UMA_PROVIDERS_FILE;
  const discoveries = discoveriesFile
    ? noDuplicates(
        'MONETA_DISCOVERIES_FILE',
        readJsonArray('MONETA_DISCOVERIES_FILE', discoveriesFile).map((e, i) => checkDiscovery('MONETA_DISCOVERIES_FILE', e, i)),
        (e) => `${e.bankName} (${e.country}, ${e.currency})`,
        'the institution',
      )
    : undefined;
  const umaProviders = providersFile
    ? noDuplicates(
        'MONETA_UMA_PROVIDERS_FILE',
        readJsonArray('MONETA_UMA_PROVIDERS_FILE', providersFile).map((e, i) => checkProvider('MONETA_UMA_PROVIDERS_FILE', e, i)),
        (e) => e.domain,
        'the domain',
      )
    : undefined;
  return { discoveries, umaProviders };
}
