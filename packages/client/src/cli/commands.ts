import { Command, Option } from 'commander';
import type { ApiRequest } from './api.js';
import { apiOf, modeOf } from './context.js';
import { UsageError } from './errors.js';
import { buildPayload, camelCase, parseAssignment, toQuery, type FieldSpec } from './fields.js';
import { print, renderAnswer } from './output.js';
import type { OperationSpec, ResourceSpec } from './spec.js';

/** Builds commander commands from the declarative operation tables. */

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function optionFor(spec: FieldSpec): Option {
  const placeholder = spec.type === 'integer' ? '<n>' : spec.type === 'json' ? '<json>' : spec.type === 'list' ? '<a,b,…>' : '<value>';
  const notes = [spec.required ? 'required' : '', spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : ''].filter(Boolean).join('; ');
  const option = new Option(spec.type === 'boolean' ? `--${spec.flag}` : `--${spec.flag} ${placeholder}`, `${spec.description}${notes ? ` (${notes})` : ''}`);
  if (spec.choices) option.choices(spec.choices);
  return option;
}

interface OperationOptions {
  data?: string;
  field?: string[];
  [key: string]: unknown;
}

/** The request an operation's command makes, from its positional arguments and options. Pure. */
export function requestFor(spec: OperationSpec, positional: readonly string[], options: OperationOptions): ApiRequest {
  const pathParams: Record<string, string> = {};
  (spec.args ?? []).forEach((arg, i) => {
    const value = positional[i];
    if (value === undefined || value === '') throw new UsageError(`missing <${arg.name}> (${arg.description})`);
    pathParams[arg.name] = value;
  });
  const takesBody = spec.body !== undefined;
  const query = toQuery(buildPayload({ specs: spec.query ?? [], values: options, fields: takesBody ? undefined : options.field }));
  if (!takesBody && options.data !== undefined) throw new UsageError(`${spec.name} takes no body (--data)`);
  const headers: Record<string, string> = {};
  for (const h of spec.headers ?? []) {
    const value = options[camelCase(h.flag)];
    if (typeof value === 'string') headers[h.header] = value;
  }
  return {
    method: spec.method,
    path: spec.path,
    pathParams,
    query,
    ...(takesBody ? { body: buildPayload({ specs: spec.body ?? [], values: options, data: options.data, fields: options.field, base: spec.baseBody }) } : {}),
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
  };
}

export function addOperation(parent: Command, spec: OperationSpec): Command {
  const command = parent.command(spec.name).description(`${spec.summary}  [${spec.method} ${spec.path}]`);
  for (const alias of spec.aliases ?? []) command.alias(alias);
  for (const arg of spec.args ?? []) command.argument(`<${arg.name}>`, arg.description);
  for (const f of [...(spec.query ?? []), ...(spec.body ?? [])]) command.addOption(optionFor(f));
  for (const h of spec.headers ?? []) command.option(`--${h.flag} <value>`, h.description);
  if (spec.body !== undefined) command.option('-d, --data <json>', 'the request body as JSON (or @file.json); options and --field override it');
  command.option('-f, --field <key=value>', `a ${spec.body !== undefined ? 'body' : 'query'} field (repeatable; key:=<json> for non-strings, dots nest)`, collect);
  command.action(async () => {
    const request = requestFor(spec, command.args, command.opts<OperationOptions>());
    const answer = await apiOf(command).call(request);
    print(renderAnswer(answer, modeOf(command), spec.columns));
    const hint = spec.hint?.(answer);
    if (hint) process.stderr.write(`${hint}\n`);
  });
  return command;
}

export function addResource(program: Command, spec: ResourceSpec): Command {
  const command = program.command(spec.name).description(spec.summary);
  for (const operation of spec.operations) addOperation(command, operation);
  return command;
}

/** `moneta api <METHOD> <path>`: any operation, for what the table does not cover. */
export function apiRequest(method: string, path: string, options: OperationOptions & { query?: string[] }): ApiRequest {
  const upper = method.toUpperCase();
  if (!['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].includes(upper)) throw new UsageError(`unknown method ${method}: use GET, POST, PATCH, PUT or DELETE`);
  if (!path.startsWith('/')) throw new UsageError(`the path starts with / (e.g. /customers), got ${path}`);
  const [pathname, search] = path.split('?', 2) as [string, string | undefined];
  const query: Record<string, string> = Object.fromEntries(new URLSearchParams(search ?? ''));
  for (const q of options.query ?? []) {
    const { path: key, value } = parseAssignment(q);
    query[key.join('.')] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  const hasBody = options.data !== undefined || (options.field ?? []).length > 0;
  if (upper === 'GET' && hasBody) {
    Object.assign(query, toQuery(buildPayload({ specs: [], values: {}, fields: options.field })));
    return { method: 'GET', path: pathname, query };
  }
  return {
    method: upper as ApiRequest['method'],
    path: pathname,
    query,
    ...(hasBody ? { body: buildPayload({ specs: [], values: {}, data: options.data, fields: options.field }) } : {}),
  };
}
