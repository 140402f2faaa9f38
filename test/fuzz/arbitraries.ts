import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';

/**
 * fast-check arbitraries from our own JSON Schemas (the schema objects of the served OpenAPI 3.1
 * document: TypeBox output). Two kinds:
 *
 * - `validValue(schema)`: values the schema accepts (type, enum/const, format, pattern, min/max,
 *   minLength/maxLength, minItems/maxItems/uniqueItems, required, additionalProperties,
 *   anyOf/oneOf, allOf, if/then/else, `type: [..., 'null']`, nullable, local `$ref`s).
 * - `invalidValue(schema)`: a valid value with one thing made wrong (a wrong type, out of range,
 *   too long or short, off-pattern, off-format, not in the enum, a required field missing, an
 *   unknown field, text the database cannot store), named so a failure says what was broken.
 *
 * Neither is trusted blindly: the fuzz test asks the server's own validator (the one routes use)
 * whether a generated value is valid, and arbitraries.test.ts checks that valid values mostly are.
 * Written here rather than taken from npm: the JSON-Schema generators there are unmaintained
 * subsets (json-schema-fast-check 0.0.6: no if/then/else, no proper oneOf) or code generators.
 */

export type Schema = boolean | SchemaObject;
export interface SchemaObject {
  [keyword: string]: unknown;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  minProperties?: number;
  maxProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  if?: Schema;
  then?: Schema;
  else?: Schema;
  nullable?: boolean;
  $ref?: string;
}

export interface Options {
  /** The document the schemas come from, for `$ref: '#/...'`. */
  root?: unknown;
  /** Generated values nest no deeper than this (free-form objects stop here). */
  maxDepth?: number;
}

/**
 * Every URL and host generated points at loopback, on the discard port where nothing listens:
 * the sandbox calls what it is given (webhook endpoints, UMA domains, OpenID issuers), and a test
 * sends traffic to this machine only.
 */
export const LOOPBACK = '127.0.0.1:9';

const COUNTRIES = ['US', 'GB', 'MX', 'BR', 'DE', 'FR', 'IN', 'NG', 'CA', 'PH', 'KE', 'JP', 'ES', 'NL', 'SG'];

/** Mostly printable ASCII, sometimes other storable text (accents, CJK, RTL override, an emoji pair). */
const storableChar = fc.oneof(
  { arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), weight: 12 },
  { arbitrary: fc.constantFrom('\u00e9', '\u00fc', '\u4e2d', '\u202e', '\u0645', '\t', '\n', '"', '\\', '/', '%', '\u00a0'), weight: 1 },
);

const smallJson = fc.jsonValue({ maxDepth: 2 });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/components/schemas/X`). */
function deref(schema: Schema, options: Options): Schema {
  let current = schema;
  for (let hops = 0; typeof current === 'object' && typeof current.$ref === 'string' && hops < 20; hops++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], options.root);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ref, ...rest } = current;
    current = { ...(target as SchemaObject), ...rest };
  }
  return current;
}

function typesOf(schema: SchemaObject): string[] {
  const declared = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const types = declared.length > 0 ? [...declared] : inferredTypes(schema);
  if (schema.nullable === true && !types.includes('null')) types.push('null');
  return types;
}

function inferredTypes(schema: SchemaObject): string[] {
  if (schema.properties || schema.required || schema.additionalProperties !== undefined) return ['object'];
  if (schema.items || schema.minItems !== undefined || schema.maxItems !== undefined) return ['array'];
  if (schema.pattern || schema.format || schema.minLength !== undefined || schema.maxLength !== undefined) return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

// ---------------------------------------------------------------------------------------------
// Valid values

const ifAjv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const ifCache = new WeakMap<object, ValidateFunction>();

/** Whether `value` matches an `if` schema (ours test discriminators: enum/const and required). */
function matches(schema: Schema, value: unknown): boolean {
  if (typeof schema === 'boolean') return schema;
  let validate = ifCache.get(schema);
  if (!validate) {
    validate = ifAjv.compile(schema);
    ifCache.set(schema, validate);
  }
  return validate(value);
}

export function validValue(schema: Schema, options: Options = {}, depth = 0): fc.Arbitrary<unknown> {
  const maxDepth = options.maxDepth ?? 6;
  schema = deref(schema, options);
  if (schema === true) return smallJson;
  if (schema === false) throw new Error('no value satisfies the schema `false`');
  if ('const' in schema) return fc.constant(structuredClone(schema.const));
  if (schema.enum) return fc.constantFrom(...schema.enum.map((v) => structuredClone(v)));
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return fc.oneof(...branches.map((branch) => validValue(mergeSchemas(rest, deref(branch, options)), options, depth)));
  }
  const types = typesOf(schema);
  if (types.length === 0) return depth >= maxDepth ? fc.constant(null) : smallJson;
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type, nullable: false }, options, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return integerValue(schema);
    case 'number':
      return fc.oneof(integerValue(schema), fc.double({ min: lowerBound(schema), max: upperBound(schema), noNaN: true, noDefaultInfinity: true, minExcluded: schema.exclusiveMinimum !== undefined, maxExcluded: schema.exclusiveMaximum !== undefined }));
    case 'string':
      return stringValue(schema);
    case 'array':
      return arrayValue(schema, options, depth);
    case 'object':
      return objectValue(schema, options, depth);
    default:
      throw new Error(`unsupported type ${types[0]}`);
  }
}

function lowerBound(schema: SchemaObject): number {
  return Math.max(schema.minimum ?? -Number.MAX_SAFE_INTEGER, schema.exclusiveMinimum ?? -Number.MAX_SAFE_INTEGER);
}
function upperBound(schema: SchemaObject): number {
  return Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, schema.exclusiveMaximum ?? Number.MAX_SAFE_INTEGER);
}

function integerValue(schema: SchemaObject): fc.Arbitrary<number> {
  const min = Math.ceil(schema.exclusiveMinimum !== undefined ? Math.max(lowerBound(schema), schema.exclusiveMinimum + 1) : lowerBound(schema));
  const max = Math.floor(schema.exclusiveMaximum !== undefined ? Math.min(upperBound(schema), schema.exclusiveMaximum - 1) : upperBound(schema));
  // The bounds themselves are where off-by-one bugs live; small values are where business rules pass.
  return fc.oneof({ arbitrary: fc.integer({ min, max }), weight: 6 }, { arbitrary: fc.constantFrom(min, max), weight: 1 }, { arbitrary: fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 10_000), Math.max(min, 0)) }), weight: 3 });
}

const patternCache = new Map<string, fc.Arbitrary<string>>();

function stringValue(schema: SchemaObject): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? (schema.pattern || schema.format ? Infinity : Math.max(minLength + 40, 40));
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= maxLength;
  let base: fc.Arbitrary<string>;
  if (schema.pattern) {
    let arbitrary = patternCache.get(schema.pattern);
    if (!arbitrary) {
      // fast-check cannot generate from lookaheads: generate without them, keep what the whole pattern accepts.
      const full = new RegExp(schema.pattern, 'u');
      const withoutLookaheads = schema.pattern.replace(/\(\?[=!](?:[^()]|\([^()]*\))*\)/g, '');
      arbitrary = withoutLookaheads === schema.pattern ? fc.stringMatching(full) : fc.stringMatching(new RegExp(withoutLookaheads, 'u')).filter((s) => full.test(s));
      patternCache.set(schema.pattern, arbitrary);
    }
    base = arbitrary;
    if (schema.format === 'uri') base = base.map((s) => s.replace(/^(https?:\/\/)(.*)$/, (_m, scheme: string, rest: string) => `${scheme}${LOOPBACK}/${encodeURIComponent(rest)}`));
    // A UMA address names a host the service calls: keep it on loopback.
    else if (schema.pattern.startsWith('^\\$') && schema.pattern.includes('@')) {
      const full = new RegExp(schema.pattern, 'u');
      base = base.map((s) => s.replace(/@.*$/, `@${LOOPBACK}`)).filter((s) => full.test(s));
    }
  } else {
    switch (schema.format) {
      case 'date-time':
        base = fc
          .tuple(fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }), fc.constantFrom('Z', '+00:00', '-05:00', '+05:30'))
          .map(([d, zone]) => (zone === 'Z' ? d.toISOString() : d.toISOString().replace('Z', zone)));
        break;
      case 'date':
        base = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
        break;
      case 'email':
        base = fc.tuple(fc.stringMatching(/^[a-z0-9][a-z0-9.+_-]{0,15}[a-z0-9]$/), fc.stringMatching(/^[a-z0-9]{1,12}$/), fc.constantFrom('com', 'org', 'io', 'example')).map(([l, d, tld]) => `${l.replace(/\.\.+/g, '.')}@${d}.${tld}`);
        break;
      case 'uri':
        base = fc.webPath().map((path) => `http://${LOOPBACK}${path.startsWith('/') ? path : `/${path}`}`);
        break;
      case 'hostname':
        base = fc.constantFrom('localhost', '127.0.0.1', 'moneta.localhost');
        break;
      case 'country-code':
        base = fc.constantFrom(...COUNTRIES);
        break;
      case 'uuid':
        base = fc.uuid();
        break;
      case 'int64':
        base = fc.bigInt({ min: 0n, max: 2n ** 53n }).map(String);
        break;
      default:
        base = fc.string({ unit: storableChar, minLength, maxLength: Math.min(maxLength, minLength + 40) });
        if (minLength === 0 && maxLength === Infinity) return base;
        return base.filter(fits);
    }
  }
  return base.filter(fits);
}

function arrayValue(schema: SchemaObject, options: Options, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
  const item = schema.items === undefined ? smallJson : validValue(schema.items, options, depth + 1);
  if (schema.uniqueItems) return fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(item, { minLength, maxLength });
}

/** The properties an object schema names, with those `false` forbids left out. */
function propertyModel(schema: SchemaObject, options: Options, depth: number): Record<string, fc.Arbitrary<unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (property === false) continue;
    model[name] = validValue(property, options, depth + 1);
  }
  return model;
}

/** `if/then/else` at this level and inside `allOf` (how TypeBox-built schemas discriminate). */
function conditionalsOf(schema: SchemaObject, options: Options): SchemaObject[] {
  const own = schema.if !== undefined ? [schema] : [];
  const nested = (schema.allOf ?? []).map((s) => deref(s, options)).filter((s): s is SchemaObject => typeof s === 'object' && (s.if !== undefined || s.allOf !== undefined));
  return [...own, ...nested.flatMap((s) => conditionalsOf(s, options))];
}

function objectValue(schema: SchemaObject, options: Options, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const maxDepth = options.maxDepth ?? 6;
  // Plain allOf parts (no conditional) are merged into the object itself.
  const merged = (schema.allOf ?? [])
    .map((s) => deref(s, options))
    .filter((s): s is SchemaObject => typeof s === 'object' && s.if === undefined && s.allOf === undefined)
    .reduce<SchemaObject>((acc, part) => mergeSchemas(acc, part) as SchemaObject, schema);
  const required = (merged.required ?? []).filter((name) => merged.properties?.[name] !== false);
  const model = propertyModel(merged, options, depth);
  for (const name of required) if (!(name in model)) model[name] = smallJson;
  if (depth >= maxDepth) {
    for (const name of Object.keys(model)) if (!required.includes(name)) delete model[name];
  }
  let base: fc.Arbitrary<Record<string, unknown>> = fc.record(model, { requiredKeys: required });
  const extras = merged.additionalProperties;
  if (extras !== undefined && extras !== false && depth < maxDepth) {
    const known = new Set(Object.keys(merged.properties ?? {}));
    const key = fc.string({ unit: storableChar, minLength: 1, maxLength: 12 }).filter((k) => !known.has(k) && k !== '__proto__' && k !== 'constructor');
    const values = extras === true ? smallJson : validValue(extras, options, depth + 1);
    base = fc.tuple(base, fc.dictionary(key, values, { maxKeys: 2, noNullPrototype: true })).map(([known, more]) => ({ ...more, ...known }));
  }
  const conditionals = conditionalsOf(merged, options);
  const withConditions =
    conditionals.length === 0
      ? base
      : base.chain((value) => {
          // Each condition's branch removes what it forbids and adds what it requires.
          const fixes: Record<string, fc.Arbitrary<unknown>> = {};
          const out = { ...value };
          for (const conditional of conditionals) {
            const branch = matches(conditional.if!, out) ? conditional.then : conditional.else;
            if (branch === undefined || typeof branch === 'boolean') continue;
            const b = deref(branch, options) as SchemaObject;
            for (const [name, property] of Object.entries(b.properties ?? {})) {
              if (property === false) delete out[name];
              else if (name in out) fixes[name] = validValue(mergeSchemas(deref(merged.properties?.[name] ?? true, options), deref(property, options)), options, depth + 1);
            }
            for (const name of b.required ?? []) {
              if (!(name in out) && !(name in fixes)) fixes[name] = validValue(mergeSchemas(deref(merged.properties?.[name] ?? true, options), deref(b.properties?.[name] ?? true, options)), options, depth + 1);
            }
          }
          return Object.keys(fixes).length === 0 ? fc.constant(out) : fc.record(fixes).map((fixed) => ({ ...out, ...fixed }));
        });
  const minProperties = merged.minProperties ?? 0;
  const maxProperties = merged.maxProperties ?? Infinity;
  if (minProperties === 0 && maxProperties === Infinity) return withConditions;
  return withConditions.filter((v) => Object.keys(v).length >= minProperties && Object.keys(v).length <= maxProperties);
}

/** Both schemas' constraints at once (enough for ours: conditions narrow, they never contradict). */
export function mergeSchemas(a: Schema, b: Schema): Schema {
  if (a === true) return b;
  if (b === true) return a;
  if (a === false || b === false) return false;
  const out: SchemaObject = { ...a, ...b };
  if (a.properties && b.properties) {
    out.properties = { ...a.properties };
    for (const [name, schema] of Object.entries(b.properties)) out.properties[name] = name in a.properties ? mergeSchemas(a.properties[name]!, schema) : schema;
  }
  if (a.required && b.required) out.required = [...new Set([...a.required, ...b.required])];
  if (a.minimum !== undefined && b.minimum !== undefined) out.minimum = Math.max(a.minimum, b.minimum);
  if (a.maximum !== undefined && b.maximum !== undefined) out.maximum = Math.min(a.maximum, b.maximum);
  if (a.maxLength !== undefined && b.maxLength !== undefined) out.maxLength = Math.min(a.maxLength, b.maxLength);
  if (a.minLength !== undefined && b.minLength !== undefined) out.minLength = Math.max(a.minLength, b.minLength);
  if (a.enum && b.enum) out.enum = a.enum.filter((v) => b.enum!.some((w) => JSON.stringify(w) === JSON.stringify(v)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Invalid values

export type Path = (string | number)[];

/** One way to make a value invalid, with a name for the failure message. */
export interface Mutation {
  name: string;
  path: Path;
  apply(value: unknown): unknown;
}

const REMOVE = Symbol('remove');

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root);
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], copy) as Record<string | number, unknown>;
  const key = path[path.length - 1]!;
  if (value === REMOVE) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else {
    // An own property even for names like `__proto__`.
    Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

const wrongTypeValues: Record<string, unknown[]> = {
  string: [12345, true, null, ['text'], { text: 'x' }],
  integer: ['12', 1.5, true, null, [], {}, 1e21, -0.0001, Number.MAX_SAFE_INTEGER + 2],
  number: ['1.5', true, null, [], {}],
  boolean: ['true', 1, 0, null, 'yes'],
  array: ['a,b', {}, 1, null, { 0: 'a' }],
  object: ['{}', [], 1, true, null, [{}]],
  null: [0, '', false, 'null'],
};

/**
 * The ways `schema` can be broken at `path` inside `value` (and, recursing, below it): each a
 * function from the whole valid value to an invalid one.
 */
export function mutationsOf(schema: Schema, value: unknown, options: Options = {}, path: Path = []): Mutation[] {
  schema = deref(schema, options);
  if (typeof schema === 'boolean') return [];
  const out: Mutation[] = [];
  const add = (name: string, replacement: unknown) => out.push({ name: `${name} at ${path.length > 0 ? path.join('.') : '(root)'}`, path, apply: (root) => setAt(root, path, replacement) });
  const branches = schema.anyOf ?? schema.oneOf;
  const types = branches ? branches.flatMap((b) => (typeof b === 'object' ? typesOf(deref(b, options) as SchemaObject) : [])) : typesOf(schema);
  if (types.length > 0) {
    const accepted = new Set(types.includes('number') ? [...types, 'integer'] : types);
    for (const [type, samples] of Object.entries(wrongTypeValues)) {
      if (accepted.has(type)) continue;
      for (const sample of samples) {
        const sampleType = sample === null ? 'null' : Array.isArray(sample) ? 'array' : typeof sample === 'number' ? (Number.isInteger(sample) ? 'integer' : 'number') : typeof sample;
        if (accepted.has(sampleType) || (sampleType === 'integer' && accepted.has('number'))) continue;
        add(`wrong type (${JSON.stringify(sample)} for ${types.join('|')})`, sample);
      }
    }
  }
  if (schema.enum) add('not in the enum', typeof schema.enum[0] === 'string' ? `${String(schema.enum[0])}_NOT_LISTED` : 'NOT_LISTED');
  if (typeof value === 'string') {
    if (schema.maxLength !== undefined) add(`longer than maxLength ${schema.maxLength}`, value + 'x'.repeat(schema.maxLength - [...value].length + 1));
    if (schema.minLength !== undefined && schema.minLength > 0) add(`shorter than minLength ${schema.minLength}`, [...value].slice(0, schema.minLength - 1).join(''));
    if (schema.pattern) {
      const regex = new RegExp(schema.pattern, 'u');
      for (const candidate of [`${value}!`, ` ${value}`, value.toLowerCase() === value ? value.toUpperCase() : value.toLowerCase(), '', 'x']) {
        if (!regex.test(candidate)) {
          add(`off the pattern ${schema.pattern}`, candidate);
          break;
        }
      }
    }
    if (schema.format && schema.format !== 'binary') add(`not a ${schema.format}`, schema.format === 'uri' ? 'not a uri' : `not-a-${schema.format}`);
    // What JSON Schema cannot say but the database needs: no NUL, no lone surrogate.
    add('a NUL character inside', `${value.slice(0, 1)}\u0000${value.slice(1)}`);
    add('a lone surrogate inside', `${value}\ud800`);
  }
  if (typeof value === 'number') {
    if (schema.maximum !== undefined) add(`above maximum ${schema.maximum}`, schema.maximum >= Number.MAX_SAFE_INTEGER ? 1e30 : schema.maximum + 1);
    if (schema.minimum !== undefined) add(`below minimum ${schema.minimum}`, schema.minimum <= -Number.MAX_SAFE_INTEGER ? -1e30 : schema.minimum - 1);
    if (types.includes('integer') && !types.includes('number')) add('not an integer', value + 0.5);
  }
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    if (schema.maxItems !== undefined && value.length > 0) add(`more than maxItems ${schema.maxItems}`, Array.from({ length: schema.maxItems + 1 }, (_, i): unknown => items[i % items.length]));
    if (schema.minItems !== undefined && schema.minItems > 0) add(`fewer than minItems ${schema.minItems}`, value.slice(0, schema.minItems - 1));
    if (schema.uniqueItems && value.length > 0) add('a duplicate item', [...items, items[0]]);
    if (schema.items !== undefined) value.forEach((item, i) => out.push(...mutationsOf(schema.items!, item, options, [...path, i])));
  }
  if (isObject(value)) {
    const merged = (schema.allOf ?? []).map((s) => deref(s, options)).reduce<Schema>((acc, part) => (typeof part === 'object' && part.if === undefined ? mergeSchemas(acc, part) : acc), schema) as SchemaObject;
    for (const name of merged.required ?? []) if (name in value) out.push({ name: `required ${name} missing at ${path.join('.') || '(root)'}`, path: [...path, name], apply: (root) => setAt(root, [...path, name], REMOVE) });
    if (merged.additionalProperties === false) {
      for (const extra of ['unknownField', 'platformId', 'id', 'createdAt', '__proto__']) {
        if (merged.properties && extra in merged.properties) continue;
        out.push({ name: `unknown field ${extra} at ${path.join('.') || '(root)'}`, path: [...path, extra], apply: (root) => setAt(root, [...path, extra], { x: 1 }) });
        break;
      }
    }
    // A field a condition forbids (`fullName` on a business), sent anyway.
    for (const conditional of conditionalsOf(merged, options)) {
      const branch: Schema | undefined = matches(conditional.if!, value) ? conditional.then : conditional.else;
      if (typeof branch !== 'object') continue;
      for (const [name, property] of Object.entries(branch.properties ?? {})) {
        if (property === false && !(name in value)) out.push({ name: `forbidden ${name} at ${path.join('.') || '(root)'}`, path: [...path, name], apply: (root) => setAt(root, [...path, name], 'x') });
      }
    }
    for (const [name, child] of Object.entries(value)) {
      const childSchema = merged.properties?.[name] ?? (typeof merged.additionalProperties === 'object' ? merged.additionalProperties : undefined);
      if (childSchema !== undefined) out.push(...mutationsOf(childSchema, child, options, [...path, name]));
    }
  }
  return out;
}

/** A valid value with one thing made wrong; `undefined` mutation when the schema allows anything. */
export function invalidValue(schema: Schema, options: Options = {}): fc.Arbitrary<{ value: unknown; mutation: string }> {
  return validValue(schema, options).chain((valid) => {
    const mutations = mutationsOf(schema, valid, options);
    if (mutations.length === 0) return fc.constant({ value: valid, mutation: 'none (the schema allows anything)' });
    return fc.constantFrom(...mutations).map((m) => ({ value: m.apply(valid), mutation: m.name }));
  });
}
