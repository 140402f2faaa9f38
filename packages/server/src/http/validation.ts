import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isCountryCode } from '../lib/countries.js';
import type { FieldConstraint, FieldError } from '../lib/errors.js';

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
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/** Bodies are checked strictly; querystring, params and headers are coerced from text. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const validate: ValidateFunction = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object);
  return validate as ReturnType<FastifySchemaCompiler<unknown>>;
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
