import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

/**
 * Command-line arguments to request bodies and query strings: declared options (typed, each mapped
 * to a dotted path), `--data '{…}'` (or `--data @file.json`) and repeated `--field key=value`
 * (`key:=<json>` for numbers, booleans, arrays and objects; dots nest: `merchant.descriptor=Cafe`).
 * Later sources win: --data, then the declared options, then --field.
 */

export type ValueType = 'string' | 'integer' | 'boolean' | 'list' | 'json';

export interface FieldSpec {
  /** The option's name without dashes, kebab-case: `customer-id` is `--customer-id <value>`. */
  flag: string;
  /** Where the value goes: a dotted path in the body (or the query parameter's name). */
  target: string;
  description: string;
  type?: ValueType;
  required?: boolean;
  choices?: readonly string[];
  /** Used when neither the option, --data nor --field gives the target a value. */
  default?: unknown;
}

export type Payload = Record<string, unknown>;

export function camelCase(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** One option's text as its declared type. */
export function parseValue(raw: string, type: ValueType = 'string', name = 'value'): unknown {
  switch (type) {
    case 'string':
      return raw;
    case 'integer': {
      const text = raw.trim();
      if (!/^-?\d+$/.test(text)) throw new UsageError(`${name} must be an integer in the currency's smallest unit (got "${raw}")`);
      const value = Number(text);
      if (!Number.isSafeInteger(value)) throw new UsageError(`${name} is too large (got "${raw}")`);
      return value;
    }
    case 'boolean': {
      const text = raw.trim().toLowerCase();
      if (['true', 'yes', '1'].includes(text)) return true;
      if (['false', 'no', '0'].includes(text)) return false;
      throw new UsageError(`${name} must be true or false (got "${raw}")`);
    }
    case 'list':
      return raw.split(',').map((item) => item.trim()).filter((item) => item !== '');
    case 'json':
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        throw new UsageError(`${name} must be JSON (got "${raw}")`);
      }
  }
}

function splitPath(key: string): string[] {
  const path = key.split('.');
  if (path.some((part) => part === '' || part === '__proto__' || part === 'constructor' || part === 'prototype')) throw new UsageError(`bad field name "${key}"`);
  return path;
}

/** `key=value` (a string) or `key:=<json>`; dots in the key nest. */
export function parseAssignment(text: string): { path: string[]; value: unknown } {
  const json = text.indexOf(':=');
  const plain = text.indexOf('=');
  if (json > 0 && json < plain) return { path: splitPath(text.slice(0, json)), value: parseValue(text.slice(json + 2), 'json', `--field ${text.slice(0, json)}`) };
  if (plain > 0) return { path: splitPath(text.slice(0, plain)), value: text.slice(plain + 1) };
  throw new UsageError(`--field takes key=value or key:=<json> (got "${text}")`);
}

function isPlainObject(value: unknown): value is Payload {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function setPath(target: Payload, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (!isPlainObject(next)) node[key] = {};
    node = node[key] as Payload;
  }
  node[path[path.length - 1]!] = value;
}

export function getPath(source: unknown, path: readonly string[]): unknown {
  let node: unknown = source;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** `over` merged into `under` (objects recursively; anything else replaces). */
export function deepMerge(under: Payload, over: Payload): Payload {
  for (const [key, value] of Object.entries(over)) {
    if (key === '__proto__') continue;
    const current = under[key];
    under[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return under;
}

/** `--data`: a JSON object, or `@path` to read one from a file. */
export function parseData(raw: string): Payload {
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --data file ${raw.slice(1)}: ${(error as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError('--data must be a JSON object');
  }
  if (!isPlainObject(value)) throw new UsageError('--data must be a JSON object');
  return value;
}

/**
 * The request body (or query) from a command's declared options (`values`, keyed as commander
 * names them: camelCase), `--data` and `--field`s. Missing required values are usage errors.
 */
export function buildPayload(input: {
  specs: readonly FieldSpec[];
  values: Record<string, unknown>;
  data?: string | undefined;
  fields?: readonly string[] | undefined;
  /** Fixed fields under everything else. */
  base?: Payload | undefined;
}): Payload {
  const payload: Payload = deepMerge(structuredClone(input.base ?? {}), input.data !== undefined ? parseData(input.data) : {});
  for (const spec of input.specs) {
    const raw = input.values[camelCase(spec.flag)];
    if (raw === undefined || raw === false) continue;
    const value = typeof raw === 'string' ? parseValue(raw, spec.type, `--${spec.flag}`) : raw;
    if (spec.choices && typeof value === 'string' && !spec.choices.includes(value)) {
      throw new UsageError(`--${spec.flag} must be one of ${spec.choices.join(', ')} (got "${value}")`);
    }
    setPath(payload, splitPath(spec.target), value);
  }
  for (const field of input.fields ?? []) {
    const { path, value } = parseAssignment(field);
    setPath(payload, path, value);
  }
  for (const spec of input.specs) {
    const path = splitPath(spec.target);
    if (getPath(payload, path) !== undefined) continue;
    if (spec.default !== undefined) setPath(payload, path, spec.default);
    else if (spec.required) throw new UsageError(`missing --${spec.flag} (${spec.description})`);
  }
  return payload;
}

/** Query parameters are strings on the wire: arrays and objects are refused, the rest stringified. */
export function toQuery(payload: Payload): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw new UsageError(`query parameter ${key} must be a single value`);
    query[key] = String(value);
  }
  return query;
}
