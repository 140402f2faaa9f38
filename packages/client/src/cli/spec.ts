import type { HttpMethod } from './api.js';
import type { FieldSpec, Payload, ValueType } from './fields.js';
import type { Column } from './output.js';

/**
 * One command = one API operation, described as data; `commands.ts` turns each into a commander
 * command. Path parameters are positional arguments; query and body fields are options.
 */
export interface OperationSpec {
  name: string;
  aliases?: readonly string[];
  summary: string;
  method: HttpMethod;
  path: string;
  /** The `{name}`s of `path`, in order: the command's positional arguments. */
  args?: readonly { name: string; description: string }[];
  query?: readonly FieldSpec[];
  /** Present (even empty) when the operation takes a JSON body: then --data and --field fill it too. */
  body?: readonly FieldSpec[];
  /** Fixed parts of the body (under --data, the options and --field). */
  baseBody?: Payload;
  /** Options sent as request headers. */
  headers?: readonly { flag: string; header: string; description: string }[];
  /** Columns of a list in table output. */
  columns?: readonly Column[];
  /** A note for stderr after a successful answer (e.g. what to do with a 202). */
  hint?: (answer: { status: number; json: unknown }) => string | undefined;
}

export interface ResourceSpec {
  name: string;
  summary: string;
  operations: readonly OperationSpec[];
}

export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** A field whose option is named after it: `field('customerId', '…')` is `--customer-id`. */
export function field(target: string, description: string, more: Partial<FieldSpec> & { type?: ValueType } = {}): FieldSpec {
  return { flag: kebabCase(target.split('.').join('-')), target, description, ...more };
}

export const PAGE: readonly FieldSpec[] = [
  field('limit', 'page size, 1-100 (default 20)', { type: 'integer' }),
  field('cursor', 'the nextCursor of the previous page'),
  field('sortOrder', 'asc or desc (default desc)', { choices: ['asc', 'desc'] }),
];

export const CREATED_RANGE: readonly FieldSpec[] = [field('createdAfter', 'ISO 8601 time'), field('createdBefore', 'ISO 8601 time')];
