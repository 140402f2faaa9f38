import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isCountryCode } from '../lib/countries.js';
import type { FieldConstraint, FieldError } from '../core/errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true, // every invalid field is reported at once
    coerceTypes: coerce ? 'array' : false, // query strings are text; bodies must be typed JSON
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
  addFormats(ajv);
  ajv.addFormat('country-code', { type: 'string', validate: isCountryCode });
  // RFC 3339 allows a leap second (23:59:60), which a JavaScript Date cannot hold; every timestamp
  // we read becomes a Date, so such a value is refused like any other invalid date-time.
  const rfc3339 = ajv.formats['date-time'] as { validate: (value: string) => boolean; compare?: (a: string, b: string) => number | undefined };
  ajv.addFormat('date-time', { ...rfc3339, type: 'string', validate: (value: string) => rfc3339.validate(value) && !Number.isNaN(Date.parse(value)) });
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/** Deeper than any schema of ours goes; free-form objects (`additionalProperties`) stop here. */
export const MAX_INPUT_DEPTH = 32;
// eslint-disable-next-line no-control-regex -- NUL is exactly what PostgreSQL cannot store
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

function pointer(parent: string, key: string | number): string {
  return `${parent}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * What JSON Schema cannot say but the database needs: PostgreSQL stores no NUL character and no
 * unpaired UTF-16 surrogate (text refuses the first; jsonb refuses both), and nesting is bounded.
 * Applies to every part of every request, including free-form objects, keys as well as values.
 */
export function unstorableInput(data: unknown): ErrorObject[] {
  // Nearly every input is storable: a walk that builds no paths says so; only a refused one is walked again for its errors.
  return anyUnstorable(data, 0) ? unstorableErrors(data) : [];
}

/** Whether `value` holds anything `unstorableErrors` would report. */
function anyUnstorable(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return UNSTORABLE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (depth >= MAX_INPUT_DEPTH) return true;
  for (const key of Object.keys(value)) {
    if (UNSTORABLE.test(key) || anyUnstorable((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function unstorableErrors(data: unknown): ErrorObject[] {
  const errors: ErrorObject[] = [];
  const problem = (instancePath: string, keyword: string, message: string) =>
    errors.push({ keyword, instancePath, schemaPath: '#', params: {}, message });
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: data, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) problem(path, 'storableText', 'must not contain NUL characters or unpaired surrogates');
    } else if (typeof value === 'object' && value !== null) {
      if (depth >= MAX_INPUT_DEPTH) {
        problem(path, 'maxDepth', `must not nest more than ${MAX_INPUT_DEPTH} levels deep`);
        continue;
      }
      for (const [key, child] of Object.entries(value)) {
        // The reported name shows U+FFFD where the unstorable character was.
        const childPath = pointer(path, key.replace(UNSTORABLE_ALL, '\ufffd'));
        if (UNSTORABLE.test(key)) problem(childPath, 'storableText', 'must not have a name with NUL characters or unpaired surrogates');
        stack.push({ value: child, path: childPath, depth: depth + 1 });
      }
    }
  }
  return errors;
}

/** Bodies are checked strictly; querystring, params and headers are coerced from text. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
  const check = (data: unknown): boolean => {
    const unstorable = unstorableInput(data);
    // Schema checks recurse (uniqueItems compares deeply), so input nested too deep stops here.
    const valid = unstorable.some((e) => e.keyword === 'maxDepth') || validate(data);
    const errors = [...(valid ? [] : (validate.errors ?? [])), ...unstorable];
    check.errors = errors.length > 0 ? errors : null;
    return errors.length === 0;
  };
  check.errors = null as ErrorObject[] | null;
  return check as ReturnType<FastifySchemaCompiler<unknown>>;
};

function pathOf(instancePath: string, prefix: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [prefix, ...parts].filter((p) => p !== '').join('.');
}

function constraintOf(error: ErrorObject): FieldConstraint | undefined {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'format':
      return { format: String(params.format) };
    case 'pattern':
      return { pattern: String(params.pattern) };
    case 'enum':
      return { enum: (params.allowedValues as unknown[]).map(String) };
    case 'const':
      return { enum: [String(params.allowedValue)] };
    case 'minLength':
      return { minLength: Number(params.limit) };
    case 'maxLength':
      return { maxLength: Number(params.limit) };
    default:
      return undefined;
  }
}

function messageOf(error: ErrorObject, field: string): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'additionalProperties':
      return `${field} is not a known field`;
    case 'false schema':
      return `${field} is not allowed here`;
    case 'enum':
      return `${field} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `${field} must be a valid ${String(params.format)}`;
    case 'pattern':
      return `${field} must match the pattern ${String(params.pattern)}`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * Turns Ajv's errors into the spec's FieldErrors: one per field, dot paths, the JSON-Schema
 * constraint that failed. `prefix` names where a non-body field came from (for example `query`).
 */
export function toFieldErrors(errors: ErrorObject[], prefix = ''): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const error of errors) {
    if (error.keyword === 'if') continue; // the failing `then` branch reports the real problem
    const params = error.params as Record<string, unknown>;
    let field = pathOf(error.instancePath, prefix);
    if (error.keyword === 'required') field = [field, String(params.missingProperty)].filter(Boolean).join('.');
    if (error.keyword === 'additionalProperties') {
      field = [field, String(params.additionalProperty)].filter(Boolean).join('.');
    }
    if (field === '') field = prefix || 'body';
    if (byField.has(field)) continue;
    const constraint = constraintOf(error);
    byField.set(field, { field, ...(constraint ? { constraint } : {}), message: messageOf(error, field) });
  }
  return [...byField.values()];
}
