/**
 * Checks a response the test suite saw against the reference OpenAPI document: the operation its
 * method and path reach, whether that operation documents the status, and the JSON Schema
 * (2020-12) of that status's `application/json` body. Aliases and extensions come from
 * ./aliases.ts only.
 *
 * Everything is lazy and cached per process: the YAML is parsed on the first check, each
 * (operation, status) validator is compiled on first use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import FindMyWay from 'find-my-way';
import {
  BRANCH_EXTENSIONS,
  CROSS_CUTTING_STATUSES,
  ENUM_EXTENSIONS,
  EXTENSIONS,
  FRAMEWORK_STATUSES,
  NO_ROUTE_STATUS,
  PATH_ALIASES,
  PRODUCT_NAME_RULE,
  RELAXATIONS,
  TEST_ONLY_ROUTES,
  VALUE_ALIASES,
  VERSION_DIFFERENCES,
} from './aliases.js';

/** find-my-way matches no parameter over 100 characters by default; the server's own limit is what a 414 is about. */
const MATCH_ANY_PARAM_LENGTH = 100_000;

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export const API_PREFIX = '/2025-10-13';

/**
 * The two reference documents every response is checked against: the snapshot our spec was written
 * from, and today's document (same version label, newer shapes). See `inspectResponse` for how
 * their differences are reconciled.
 */
export type DocumentName = 'snapshot' | 'head';
export const DOCUMENTS: readonly DocumentName[] = ['snapshot', 'head'];

const DOCUMENT_FILES: Record<DocumentName, { env: string; file: string }> = {
  snapshot: { env: 'MONETA_REFERENCE_OPENAPI', file: 'openapi-2025-10-13.yaml' },
  head: { env: 'MONETA_REFERENCE_OPENAPI_HEAD', file: 'openapi-head.yaml' },
};

/** A reference document: its environment variable, or the shared copy next to this checkout. */
export function referenceFile(document: DocumentName = 'snapshot'): string {
  const { env, file } = DOCUMENT_FILES[document];
  if (process.env[env]) return process.env[env];
  // The workplace's shared copy: next to this checkout, or at its fixed place when the checkout is elsewhere (CI's clone).
  const candidates = [fileURLToPath(new URL(`../../../shared/reference/${file}`, import.meta.url)), `/work/shared/reference/${file}`];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`the reference OpenAPI document is not at ${candidates.join(' or ')}; set ${env}`);
  return found;
}

/** One response as a test saw it. `body` is the parsed JSON (undefined when empty or not JSON). */
export interface ResponseSample {
  method: string;
  /** Path and query as requested, with or without scheme and host. */
  url: string;
  status: number;
  contentType?: string | undefined;
  body: unknown;
}

export type ViolationRule = 'schema' | 'undocumented-status' | 'unexpected-body' | 'error-shape' | 'unknown-route';

export interface Violation {
  rule: ViolationRule;
  /** The document the response departs from ('both' when it departs from each the same way). */
  document?: DocumentName | 'both';
  /** `METHOD /reference/path/{param}` for reference operations, else the route or request as seen. */
  operation: string;
  status: number;
  /** JSON pointer into the response body ('' is the whole body). */
  pointer: string;
  /** The JSON Schema keyword that failed, or the rule name. */
  keyword: string;
  /** Where in the reference document the failing keyword sits ('' when not a schema check). */
  schemaPath: string;
  message: string;
  /** The offending value, abbreviated JSON (schema violations only). */
  value?: string;
}

export function formatViolation(v: Violation): string {
  const where = v.schemaPath ? ` (${v.keyword} at ${v.schemaPath})` : '';
  const against = v.document ? `[${v.document}] ` : '';
  return `${against}${v.operation} -> ${v.status} at ${v.pointer === '' ? '(body)' : v.pointer}: ${v.message}${where}`;
}

export type RouteMatch =
  | { kind: 'reference'; operation: string; alias?: string }
  | { kind: 'extension'; route: string }
  | { kind: 'method-not-served'; operation: string }
  | { kind: 'no-route'; route: string };

// ---------------------------------------------------------------------------------------------
// Loading and transforming the reference

const REF_ID = 'https://moneta.test/reference/openapi-2025-10-13.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

type Json = Record<string, unknown>;
type ResponseObject = { content?: Record<string, { schema?: unknown }> };

interface Operation {
  key: string;
  responses: Record<string, ResponseObject>;
  validators: Map<string, ValidateFunction | null>;
  /** Whether the operation requires credentials (its `security`, else the document's, is not empty). */
  secured: boolean;
}

interface Reference {
  name: DocumentName;
  /** The document as read, before any alias or declared difference is applied. */
  raw: Json;
  doc: Json;
  ajv: Ajv2020;
  operations: Map<string, Operation>;
  /** Where each schema object sits in the reference document (objects the transform created included). */
  origin: WeakMap<object, string>;
  /** The validator of each cross-cutting status's `Error<status>` schema, compiled on first use. */
  errorValidators: Map<number, ValidateFunction>;
  apiRouter: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
  rootRouter: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>;
}

const cached = new Map<DocumentName, Reference>();

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Calls `visit` on every plain object under `node`, with its JSON pointer, parents first. */
function walkObjects(node: unknown, pointer: string, visit: (node: Json, pointer: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => walkObjects(item, `${pointer}/${index}`, visit));
    return;
  }
  if (!isObject(node)) return;
  visit(node, pointer);
  for (const [key, value] of Object.entries(node)) walkObjects(value, `${pointer}/${escapePointer(key)}`, visit);
}

/** The spec's names for a reference value (empty when it has none). */
export function specNamesFor(value: string): string[] {
  const names = VALUE_ALIASES.filter((alias) => alias.reference === value).map((alias) => alias.spec);
  const renamed = value.replace(PRODUCT_NAME_RULE.pattern, PRODUCT_NAME_RULE.replacement);
  if (renamed !== value) names.push(renamed);
  return names;
}

/**
 * Adds the spec's names next to the reference's: enum values, const values (turned into a
 * two-value enum) and discriminator mapping keys. Nothing is removed.
 */
function applyAliases(node: Json, applied: Set<string>): void {
  if (Array.isArray(node.enum)) {
    const values = node.enum as unknown[];
    for (const value of [...values]) {
      if (typeof value !== 'string') continue;
      for (const name of specNamesFor(value)) {
        applied.add(value);
        if (!values.includes(name)) values.push(name);
      }
    }
  }
  if (typeof node.const === 'string') {
    const names = specNamesFor(node.const);
    if (names.length > 0) {
      applied.add(node.const);
      node.enum = [node.const, ...names];
      delete node.const;
    }
  }
  const discriminator = node.discriminator;
  if (isObject(discriminator) && isObject(discriminator.mapping)) {
    const mapping = discriminator.mapping;
    for (const [value, target] of Object.entries(mapping)) {
      for (const name of specNamesFor(value)) {
        applied.add(value);
        if (!(name in mapping)) mapping[name] = target;
      }
    }
  }
}

/**
 * OpenAPI's `oneOf` + `discriminator` means "the tag picks the schema". Ajv's own discriminator
 * support refuses `mapping`, and a plain `oneOf` reports every branch's errors, so it is rewritten
 * into its meaning: the tag is required and one of the mapping's keys, and the schema it maps to
 * applies. (Without a mapping, the implicit one: the name of each `$ref`'d schema.)
 */
function rewriteDiscriminator(node: Json, pointer: string, origin: WeakMap<object, string>): void {
  const discriminator = node.discriminator;
  if (!isObject(discriminator) || !Array.isArray(node.oneOf) || typeof discriminator.propertyName !== 'string') return;
  const tag = discriminator.propertyName;
  const mapping: Record<string, string> = {};
  if (isObject(discriminator.mapping)) {
    for (const [value, target] of Object.entries(discriminator.mapping)) if (typeof target === 'string') mapping[value] = target;
  } else {
    for (const branch of node.oneOf as unknown[]) {
      const ref = isObject(branch) && typeof branch.$ref === 'string' ? branch.$ref : undefined;
      if (ref) mapping[ref.slice(ref.lastIndexOf('/') + 1)] = ref;
    }
  }
  const tagSchema = { type: 'string', enum: Object.keys(mapping) };
  const selector = { type: 'object', required: [tag], properties: { [tag]: tagSchema } };
  origin.set(selector, `${pointer}/discriminator`);
  origin.set(tagSchema, `${pointer}/discriminator/propertyName`);
  const branches = Object.entries(mapping).map(([value, target]) => {
    const branch = { if: { type: 'object', required: [tag], properties: { [tag]: { const: value } } }, then: { $ref: target } };
    origin.set(branch, `${pointer}/discriminator/mapping/${escapePointer(value)}`);
    return branch;
  });
  delete node.oneOf;
  delete node.discriminator;
  node.allOf = [...(Array.isArray(node.allOf) ? (node.allOf as unknown[]) : []), selector, ...branches];
}

/** The node a `#/...` JSON pointer names in the document (undefined when there is none). */
function resolvePointer(doc: Json, pointer: string): unknown {
  if (!pointer.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of pointer.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}

/** The enum a schema holds, directly or through a `$ref` or an `allOf` member (undefined when none). */
function enumOf(doc: Json, schema: unknown, depth = 0): unknown[] | undefined {
  if (!isObject(schema) || depth > 8) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum as unknown[];
  if (typeof schema.$ref === 'string') return enumOf(doc, resolvePointer(doc, schema.$ref), depth + 1);
  if (Array.isArray(schema.allOf)) {
    for (const member of schema.allOf as unknown[]) {
      const found = enumOf(doc, member, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Applies aliases.ts's ENUM_EXTENSIONS, BRANCH_EXTENSIONS and RELAXATIONS to the raw document,
 * each at its own place only. A stale entry (its place or its enum, union or property is gone) is
 * an error, not a silent no-op.
 */
function applyDeclaredDifferences(doc: Json, file: string): void {
  for (const extension of ENUM_EXTENSIONS) {
    const node = resolvePointer(doc, extension.at);
    const values = isObject(node) ? enumOf(doc, node) : undefined;
    if (!isObject(node) || !values) throw new Error(`aliases.ts: ENUM_EXTENSIONS ${extension.at} is not an enum in ${file}`);
    const merged = [...values, ...extension.values.filter((value) => !values.includes(value))];
    if (Array.isArray(node.enum)) {
      node.enum = merged;
    } else {
      // The enum sits behind a $ref shared with other places: this place gets its own copy.
      const type = typeof values[0] === 'string' ? 'string' : undefined;
      for (const key of ['$ref', 'allOf']) delete node[key];
      Object.assign(node, { ...(type ? { type } : {}), enum: merged });
    }
  }
  const components = doc.components as Json;
  const schemas = (components.schemas ??= {}) as Json;
  for (const branch of BRANCH_EXTENSIONS) {
    const node = resolvePointer(doc, branch.at);
    const discriminator = isObject(node) ? node.discriminator : undefined;
    if (!isObject(node) || !Array.isArray(node.oneOf) || !isObject(discriminator) || !isObject(discriminator.mapping)) {
      throw new Error(`aliases.ts: BRANCH_EXTENSIONS ${branch.at} is not a oneOf with a discriminator mapping in ${file}`);
    }
    if (branch.value in discriminator.mapping) throw new Error(`aliases.ts: BRANCH_EXTENSIONS ${branch.at} already has ${branch.value}`);
    const name = `MonetaExtension_${branch.at.slice(branch.at.lastIndexOf('/') + 1)}_${branch.value}`;
    schemas[name] = branch.schema;
    const ref = `#/components/schemas/${name}`;
    discriminator.mapping[branch.value] = ref;
    (node.oneOf as unknown[]).push({ $ref: ref });
  }
  for (const relaxation of RELAXATIONS) {
    const node = resolvePointer(doc, relaxation.at);
    const required = isObject(node) && Array.isArray(node.required) ? (node.required as unknown[]) : undefined;
    const missing = relaxation.optional.filter((property) => !required?.includes(property));
    if (!isObject(node) || !required || missing.length > 0) throw new Error(`aliases.ts: RELAXATIONS ${relaxation.at} does not require ${missing.join(', ') || 'anything'} in ${file}`);
    node.required = required.filter((property) => !relaxation.optional.includes(property as string));
    if (relaxation.together) {
      const dependent = (isObject(node.dependentRequired) ? node.dependentRequired : {}) as Record<string, string[]>;
      for (const property of relaxation.optional) dependent[property] = relaxation.optional.filter((other) => other !== property);
      node.dependentRequired = dependent;
    }
  }
}

/** `#/...` references made absolute, so schemas outside the document resolve against it. */
function absolutize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(absolutize);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${REF_ID}${value}` : absolutize(value);
  return out;
}

function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function loadReference(name: DocumentName): Reference {
  const file = referenceFile(name);
  const text = readFileSync(file, 'utf8');
  const doc = parse(text) as Json;
  const raw = parse(text) as Json;
  if (!isObject(doc.paths) || !isObject(doc.components)) throw new Error(`${file} is not an OpenAPI document`);
  applyDeclaredDifferences(doc, file);
  const origin = new WeakMap<object, string>();
  const applied = new Set<string>();
  for (const section of ['components', 'paths', 'webhooks'] as const) {
    walkObjects(doc[section], `#/${section}`, (node, pointer) => {
      origin.set(node, pointer);
      applyAliases(node, applied);
    });
    walkObjects(doc[section], `#/${section}`, (node, pointer) => rewriteDiscriminator(node, pointer, origin));
  }
  // A stale alias (the reference no longer says that name) is an error, not a silent no-op.
  for (const alias of VALUE_ALIASES) {
    if (!applied.has(alias.reference)) throw new Error(`aliases.ts: ${alias.reference} (alias ${alias.spec}) occurs in no enum, const or discriminator of ${file}`);
  }

  const ajv = new Ajv2020({
    strict: false, // OpenAPI adds example, readOnly, writeOnly, x-*: annotations to Ajv
    allErrors: true,
    verbose: true, // errors carry their schema object, which `origin` locates in the document
    validateSchema: false,
    logger: false,
    allowUnionTypes: true,
  });
  addFormats(ajv);
  ajv.addSchema({ $id: REF_ID, components: doc.components }, REF_ID);

  const operations = new Map<string, Operation>();
  const documentSecured = Array.isArray(doc.security) && doc.security.length > 0;
  const apiRouter = FindMyWay({ maxParamLength: MATCH_ANY_PARAM_LENGTH });
  const rootRouter = FindMyWay({ maxParamLength: MATCH_ANY_PARAM_LENGTH });
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const secured = Array.isArray(op.security) ? op.security.length > 0 : documentSecured;
      operations.set(key, { key, responses: (isObject(op.responses) ? op.responses : {}) as Record<string, ResponseObject>, validators: new Map(), secured });
      apiRouter.on(method.toUpperCase() as 'GET', toRouterPath(path), () => undefined, { operation: key });
    }
  }
  for (const alias of PATH_ALIASES) {
    const key = `${alias.method} ${alias.referencePath}`;
    if (!operations.has(key)) throw new Error(`aliases.ts: ${key} is not a reference operation`);
    apiRouter.on(alias.method as 'GET', toRouterPath(alias.specPath), () => undefined, { operation: key, alias: `${alias.method} ${alias.specPath}` });
  }
  for (const extension of [...EXTENSIONS, ...TEST_ONLY_ROUTES]) {
    const router = extension.root ? rootRouter : apiRouter;
    for (const method of extension.methods) {
      router.on(method as 'GET', toRouterPath(extension.path), () => undefined, { extension: `${method} ${extension.root ? '' : API_PREFIX}${extension.path}` });
    }
  }
  const schemas = doc.components.schemas;
  for (const { status } of CROSS_CUTTING_STATUSES) {
    if (!isObject(schemas) || !isObject(schemas[`Error${status}`])) {
      throw new Error(`aliases.ts: CROSS_CUTTING_STATUSES ${status} has no Error${status} schema in ${file}`);
    }
  }
  return { name, raw, doc, ajv, operations, origin, errorValidators: new Map(), apiRouter, rootRouter };
}

/** The parsed, alias-extended reference document (each loaded once per process). */
function reference(name: DocumentName = 'snapshot'): Reference {
  let ref = cached.get(name);
  if (!ref) {
    ref = loadReference(name);
    cached.set(name, ref);
  }
  return ref;
}

/** Every operation of a reference document, as `METHOD /path`. */
export function referenceOperations(document: DocumentName = 'snapshot'): string[] {
  return [...reference(document).operations.keys()];
}

// ---------------------------------------------------------------------------------------------
// Matching

function pathOf(url: string): string {
  const withoutOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, '');
  const path = withoutOrigin.split(/[?#]/)[0] ?? '/';
  return path === '' ? '/' : path;
}

interface RouteStore {
  operation?: string;
  alias?: string;
  extension?: string;
}

function find(router: Reference['apiRouter'], method: string, path: string): RouteStore | undefined {
  try {
    return router.find(method as 'GET', path)?.store as RouteStore | undefined;
  } catch {
    return undefined; // a method find-my-way does not know
  }
}

function anyMethod(router: Reference['apiRouter'], path: string): RouteStore | undefined {
  for (const method of HTTP_METHODS) {
    const found = find(router, method.toUpperCase(), path);
    if (found) return found;
  }
  return undefined;
}

/** Which reference operation, alias or extension a request reaches. HEAD is matched as GET. */
export function matchRoute(method: string, url: string, document: DocumentName = 'snapshot'): RouteMatch {
  const ref = reference(document);
  const verb = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const path = pathOf(url);
  const inApi = path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
  const router = inApi ? ref.apiRouter : ref.rootRouter;
  const local = inApi ? path.slice(API_PREFIX.length) || '/' : path;
  const store = find(router, verb, local);
  if (store?.operation) return { kind: 'reference', operation: store.operation, ...(store.alias ? { alias: store.alias } : {}) };
  if (store?.extension) return { kind: 'extension', route: store.extension };
  const other = anyMethod(router, local);
  if (other?.operation) return { kind: 'method-not-served', operation: `${verb} ${other.operation.slice(other.operation.indexOf(' ') + 1)}` };
  if (other?.extension) return { kind: 'extension', route: `${verb} ${other.extension.slice(other.extension.indexOf(' ') + 1)}` };
  return { kind: 'no-route', route: `${verb} ${path}` };
}

// ---------------------------------------------------------------------------------------------
// Checking

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType.trim());
}

/** The spec's error body: {status, code, message, details?} and nothing else. */
export function errorShapeProblems(body: unknown, status: number): { pointer: string; message: string }[] {
  if (!isObject(body)) return [{ pointer: '', message: 'error body is not a JSON object' }];
  const problems: { pointer: string; message: string }[] = [];
  if (body.status !== status) problems.push({ pointer: '/status', message: `must be the HTTP status ${status}, got ${JSON.stringify(body.status)}` });
  if (typeof body.code !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(body.code)) problems.push({ pointer: '/code', message: 'must be an UPPER_SNAKE_CASE string' });
  if (typeof body.message !== 'string' || body.message === '') problems.push({ pointer: '/message', message: 'must be a non-empty string' });
  if (body.details !== undefined && !isObject(body.details)) problems.push({ pointer: '/details', message: 'must be an object when present' });
  for (const key of Object.keys(body)) {
    if (!['status', 'code', 'message', 'details'].includes(key)) problems.push({ pointer: `/${escapePointer(key)}`, message: `unexpected member "${key}" in an error body` });
  }
  return problems;
}

/** The documented response for a status: exact, then `4XX`-style ranges, then `default`. */
function documentedResponse(op: Operation, status: number): { key: string; response: ResponseObject } | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default']) {
    const response = op.responses[key];
    if (response) return { key, response };
  }
  return undefined;
}

function validatorFor(ref: Reference, op: Operation, statusKey: string, response: ResponseObject): ValidateFunction | null {
  const known = op.validators.get(statusKey);
  if (known !== undefined) return known;
  const media = response.content?.['application/json'];
  const validate = media?.schema === undefined ? null : ref.ajv.compile(absolutize(media.schema) as object);
  op.validators.set(statusKey, validate);
  return validate;
}

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function describe(error: ErrorObject): { pointer: string; message: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${error.instancePath}/${escapePointer(String(params.missingProperty))}`, message: `required property "${String(params.missingProperty)}" is missing` };
    case 'additionalProperties':
      return { pointer: `${error.instancePath}/${escapePointer(String(params.additionalProperty))}`, message: `property "${String(params.additionalProperty)}" is not allowed` };
    case 'unevaluatedProperties':
      return { pointer: `${error.instancePath}/${escapePointer(String(params.unevaluatedProperty))}`, message: `property "${String(params.unevaluatedProperty)}" is not allowed (unevaluatedProperties)` };
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const list = allowed.length > 12 ? `${allowed.slice(0, 12).join(', ')}, ... (${allowed.length})` : allowed.join(', ');
      return { pointer: error.instancePath, message: `value ${preview(error.data)} is not one of: ${list}` };
    }
    case 'const':
      return { pointer: error.instancePath, message: `value ${preview(error.data)} must be ${preview(params.allowedValue)}` };
    case 'type':
      return { pointer: error.instancePath, message: `${preview(error.data)} must be ${String(params.type)}` };
    case 'format':
      return { pointer: error.instancePath, message: `${preview(error.data)} is not a valid ${String(params.format)}` };
    default:
      return { pointer: error.instancePath, message: `${error.message ?? error.keyword} (value ${preview(error.data)})` };
  }
}

function schemaViolations(ref: Reference, operation: string, status: number, validate: ValidateFunction, body: unknown): Violation[] {
  if (validate(body)) return [];
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    if (error.keyword === 'if') continue; // the wrapper of a discriminator branch's own errors
    const { pointer, message } = describe(error);
    const located = isObject(error.parentSchema) ? ref.origin.get(error.parentSchema) : undefined;
    const schemaPath = located ?? error.schemaPath;
    const key = `${pointer}|${error.keyword}|${schemaPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const value = ['required', 'additionalProperties', 'unevaluatedProperties'].includes(error.keyword) ? undefined : preview(error.data);
    out.push({ rule: 'schema', operation, status, pointer, keyword: error.keyword, schemaPath, message, ...(value !== undefined ? { value } : {}) });
  }
  return out;
}

/** A cross-cutting status (aliases.ts) the operation does not document: the reference's Error<status>, and the listed codes. */
function crossCuttingViolations(ref: Reference, operation: string, status: number, codes: readonly string[] | undefined, body: unknown): Violation[] {
  let validate = ref.errorValidators.get(status);
  if (!validate) {
    validate = ref.ajv.compile({ $ref: `${REF_ID}#/components/schemas/Error${status}` });
    ref.errorValidators.set(status, validate);
  }
  const violations = schemaViolations(ref, operation, status, validate, body);
  const code = isObject(body) ? body.code : undefined;
  if (codes && typeof code === 'string' && !codes.includes(code) && !violations.some((v) => v.pointer === '/code')) {
    violations.push({
      rule: 'schema',
      operation,
      status,
      pointer: '/code',
      keyword: 'enum',
      schemaPath: `aliases.ts CROSS_CUTTING_STATUSES ${status}`,
      message: `value ${preview(code)} is not one of the codes declared for a cross-cutting ${status}: ${codes.join(', ')}`,
      value: preview(code),
    });
  }
  return violations;
}

function shapeViolations(route: string, status: number, body: unknown): Violation[] {
  return errorShapeProblems(body, status).map((p) => ({ rule: 'error-shape', operation: route, status, pointer: p.pointer, keyword: 'error-shape', schemaPath: '', message: p.message }));
}

/** The route a request reached and every way its response departs from one reference document. */
function inspectAgainst(document: DocumentName, sample: ResponseSample): { route: RouteMatch; violations: Violation[] } {
  const ref = reference(document);
  const route = matchRoute(sample.method, sample.url, document);
  const { status } = sample;
  const hasJson = isJson(sample.contentType) && sample.body !== undefined;
  const violations: Violation[] = [];

  if (route.kind === 'no-route') {
    if (status === NO_ROUTE_STATUS) return { route, violations: hasJson ? shapeViolations(route.route, status, sample.body) : [] };
    violations.push({
      rule: 'unknown-route',
      operation: route.route,
      status,
      pointer: '',
      keyword: 'unknown-route',
      schemaPath: '',
      message: 'unknown route: not in the reference; add it to the extensions list or the aliases in test/conformance/aliases.ts',
    });
    return { route, violations };
  }
  if (route.kind === 'extension') {
    return { route, violations: hasJson && status >= 400 ? shapeViolations(route.route, status, sample.body) : [] };
  }
  if (route.kind === 'method-not-served') {
    if (FRAMEWORK_STATUSES.includes(status) || status === 404) return { route, violations: hasJson ? shapeViolations(route.operation, status, sample.body) : [] };
    violations.push({
      rule: 'unknown-route',
      operation: route.operation,
      status,
      pointer: '',
      keyword: 'unknown-route',
      schemaPath: '',
      message: 'unknown route: the reference has this path but not this method; add it to the extensions list or the aliases',
    });
    return { route, violations };
  }

  const op = ref.operations.get(route.operation)!;
  const documented = documentedResponse(op, status);
  if (!documented) {
    if (FRAMEWORK_STATUSES.includes(status)) return { route, violations: hasJson ? shapeViolations(route.operation, status, sample.body) : [] };
    const crossCutting = op.secured ? CROSS_CUTTING_STATUSES.find((c) => c.status === status) : undefined;
    if (crossCutting) return { route, violations: hasJson ? crossCuttingViolations(ref, route.operation, status, crossCutting.codes, sample.body) : [] };
    violations.push({
      rule: 'undocumented-status',
      operation: route.operation,
      status,
      pointer: '',
      keyword: 'undocumented-status',
      schemaPath: `#/paths/${escapePointer(route.operation.slice(route.operation.indexOf(' ') + 1))}/${route.operation.slice(0, route.operation.indexOf(' ')).toLowerCase()}/responses`,
      message: `status ${status} is not documented; the reference documents ${Object.keys(op.responses).join(', ')}`,
    });
    return { route, violations };
  }
  if (!hasJson) return { route, violations };
  const validate = validatorFor(ref, op, documented.key, documented.response);
  if (!validate) {
    violations.push({
      rule: 'unexpected-body',
      operation: route.operation,
      status,
      pointer: '',
      keyword: 'unexpected-body',
      schemaPath: '',
      message: `the reference documents no JSON body for ${documented.key}`,
    });
    return { route, violations };
  }
  return { route, violations: schemaViolations(ref, route.operation, status, validate, sample.body) };
}

// ---------------------------------------------------------------------------------------------
// Two documents

/**
 * Whether today's document, at the place of a snapshot violation, allows what the snapshot
 * refused: it added the enum value, or no longer requires the property, or documents the status.
 * Only places the two documents share are compared (the same JSON pointer).
 */
function headAllows(violation: Violation, sample: ResponseSample): boolean {
  const head = reference('head');
  if (violation.rule === 'undocumented-status') {
    const route = matchRoute(sample.method, sample.url, 'head');
    const op = route.kind === 'reference' ? head.operations.get(route.operation) : undefined;
    return op !== undefined && documentedResponse(op, violation.status) !== undefined;
  }
  if (violation.rule !== 'schema' || !violation.schemaPath.startsWith('#/')) return false;
  const there = resolvePointer(head.raw, violation.schemaPath);
  if (violation.keyword === 'enum' && violation.value !== undefined) {
    const values = enumOf(head.raw, there);
    return values !== undefined && values.includes(JSON.parse(violation.value) as unknown);
  }
  if (violation.keyword === 'required') {
    const property = violation.pointer.slice(violation.pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
    return isObject(there) && isObject(there.properties) && property in there.properties && !(Array.isArray(there.required) && there.required.includes(property));
  }
  return false;
}

function forgiven(document: DocumentName, violation: Violation): boolean {
  return VERSION_DIFFERENCES.some(
    (d) =>
      d.document === document &&
      d.keyword === violation.keyword &&
      (d.operation === undefined || d.operation === violation.operation) &&
      (d.pointer === undefined || d.pointer.test(violation.pointer)) &&
      (d.values === undefined || (violation.value !== undefined && d.values.includes(JSON.parse(violation.value) as string))),
  );
}

/** The documents may name a path parameter differently ({id}, {cardId}): the same operation still. */
function sameOperation(a: string, b: string): boolean {
  const bare = (operation: string) => operation.replace(/\{[^}]*\}/g, '{}');
  return bare(a) === bare(b);
}

/** One list of violations of both documents: a departure from each, the same way, is listed once as 'both'. */
function merge(snapshot: Violation[], head: Violation[]): Violation[] {
  const key = (v: Violation) => `${v.operation.replace(/\{[^}]*\}/g, '{}')}|${v.status}|${v.pointer}|${v.keyword}|${v.value ?? ''}`;
  const headKeys = new Set(head.map(key));
  const snapshotKeys = new Set(snapshot.map(key));
  return [
    ...snapshot.map((v) => ({ ...v, document: headKeys.has(key(v)) ? ('both' as const) : ('snapshot' as const) })),
    ...head.filter((v) => !snapshotKeys.has(key(v))).map((v) => ({ ...v, document: 'head' as const })),
  ];
}

/**
 * The route a request reached and every way its response departs from the reference documents.
 * A response must conform to today's document, and to the snapshot except where today's document
 * changed that place (an enum value added, a property no longer required, a status documented; an
 * operation only today's document has is checked against it alone): clients of both versions read
 * it. Anything else either document refuses is a violation, unless aliases.ts's VERSION_DIFFERENCES
 * lists it with its reason.
 */
export function inspectResponse(sample: ResponseSample): { route: RouteMatch; violations: Violation[] } {
  const head = inspectAgainst('head', sample);
  const snapshot = inspectAgainst('snapshot', sample);
  // Only today's document has the operation: no route in the snapshot, or one of its parametric
  // routes swallowing a new static path (GET /customers/end-user-terms is not a customer id).
  const onlyInHead = head.route.kind === 'reference' && (snapshot.route.kind !== 'reference' || !sameOperation(head.route.operation, snapshot.route.operation));
  const snapshotViolations = onlyInHead ? [] : snapshot.violations.filter((v) => !headAllows(v, sample) && !forgiven('snapshot', v));
  const headViolations = head.violations.filter((v) => !forgiven('head', v));
  return { route: onlyInHead ? head.route : snapshot.route, violations: merge(snapshotViolations, headViolations) };
}

/** Every way a response departs from the reference documents (empty when it conforms or is not checked). */
export function checkResponse(sample: ResponseSample): Violation[] {
  return inspectResponse(sample).violations;
}

const webhookValidators = new Map<string, ValidateFunction | null>();

/**
 * A document's webhook schema for an event type (its `webhooks` section: each schema's `type`
 * enum names the event types it carries), or null when the document defines none for the type.
 */
function webhookValidator(ref: Reference, type: string): ValidateFunction | null {
  const cacheKey = `${ref.name} ${type}`;
  if (webhookValidators.has(cacheKey)) return webhookValidators.get(cacheKey)!;
  let found: ValidateFunction | null = null;
  const schemas = ref.doc.components as Json;
  for (const item of Object.values(isObject(ref.doc.webhooks) ? ref.doc.webhooks : {})) {
    const ref$ = (item as { post?: { requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> } } }).post?.requestBody?.content?.['application/json']?.schema?.$ref;
    const name = ref$?.split('/').pop();
    const schema = name ? (schemas.schemas as Json)[name] : undefined;
    const parts = isObject(schema) && Array.isArray(schema.allOf) ? schema.allOf : [schema];
    const types = parts.flatMap((part) => {
      const typeSchema = isObject(part) && isObject(part.properties) ? part.properties.type : undefined;
      return isObject(typeSchema) && Array.isArray(typeSchema.enum) ? (typeSchema.enum as unknown[]) : [];
    });
    if (name && types.includes(type)) {
      found = ref.ajv.compile({ $ref: `${REF_ID}#/components/schemas/${name}` });
      break;
    }
  }
  webhookValidators.set(cacheKey, found);
  return found;
}

function webhookViolationsAgainst(document: DocumentName, body: unknown): Violation[] | undefined {
  const ref = reference(document);
  const type = isObject(body) && typeof body.type === 'string' ? body.type : '';
  const validate = webhookValidator(ref, type);
  return validate ? schemaViolations(ref, `webhook ${type}`, 0, validate, body) : undefined;
}

/**
 * Violations of a webhook body (the envelope as delivered) against each document's schema for its
 * type, reconciled as `inspectResponse` does; a type neither document defines is not checked.
 */
export function webhookViolations(body: unknown): Violation[] {
  const head = webhookViolationsAgainst('head', body);
  const snapshot = webhookViolationsAgainst('snapshot', body);
  const sample: ResponseSample = { method: 'POST', url: '/webhook', status: 0, body };
  const snapshotViolations = head !== undefined && snapshot === undefined ? [] : (snapshot ?? []).filter((v) => !headAllows(v, sample) && !forgiven('snapshot', v));
  return merge(snapshotViolations, (head ?? []).filter((v) => !forgiven('head', v)));
}
