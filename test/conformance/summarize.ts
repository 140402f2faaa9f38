/**
 * Turns a MONETA_CONFORMANCE=report file into a Markdown summary:
 *
 *   npx tsx test/conformance/summarize.ts [report.jsonl] [out.md] [served-routes.txt]
 *
 * Defaults: /tmp/moneta-conformance.jsonl, /tmp/conformance-report.md, and no served-routes list
 * (make one with `npx tsx test/conformance/served-routes.ts > /tmp/moneta-routes.txt`).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ReportLine } from './hook.js';
import FindMyWay from 'find-my-way';
import { matchRoute, referenceOperations } from './reference.js';

type ViolationLine = Extract<ReportLine, { t: 'violation' }>;
type HitLine = Extract<ReportLine, { t: 'hit' }>;

const [reportPath = '/tmp/moneta-conformance.jsonl', outPath = '/tmp/conformance-report.md', routesPath] = process.argv.slice(2);

const lines: ReportLine[] = readFileSync(reportPath, 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .flatMap((line) => {
    try {
      return [JSON.parse(line) as ReportLine];
    } catch {
      return [];
    }
  });
const violations = lines.filter((l): l is ViolationLine => l.t === 'violation');
const hits = lines.filter((l): l is HitLine => l.t === 'hit');
const errors = lines.filter((l) => l.t === 'error');

/** Concrete ids in a request path become `{id}`, so unknown routes group. */
function normalizePath(op: string): string {
  return op
    .split('/')
    .map((segment) => (/[:%]|^[0-9a-f-]{16,}$|^\d+$/i.test(segment) ? '{id}' : segment))
    .join('/');
}

function normalizePointer(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

function lastSegment(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
}

interface Group {
  key: string;
  rule: string;
  op: string;
  status: number;
  keyword: string;
  schemaPath: string;
  detail: string;
  count: number;
  pointers: Map<string, number>;
  tests: Set<string>;
  example: ViolationLine;
}

const groups = new Map<string, Group>();
for (const v of violations) {
  const bare = v.rule === 'unknown-route' || v.rule === 'error-shape' ? normalizePath(v.op) : v.op;
  // Which document the response departs from: the snapshot, today's, or both.
  const op = v.document ? `${bare} [${v.document}]` : bare;
  // Finer than the schema location where the fix differs: which property, which value.
  const detail = ['required', 'additionalProperties', 'unevaluatedProperties', 'error-shape'].includes(v.keyword)
    ? lastSegment(v.pointer)
    : ['enum', 'const'].includes(v.keyword)
      ? (v.value ?? '')
      : '';
  const key = [v.rule, op, v.status, v.keyword, v.schemaPath, detail].join('|');
  let group = groups.get(key);
  if (!group) {
    group = { key, rule: v.rule, op, status: v.status, keyword: v.keyword, schemaPath: v.schemaPath, detail, count: 0, pointers: new Map(), tests: new Set(), example: v };
    groups.set(key, group);
  }
  group.count += 1;
  const pointer = normalizePointer(v.pointer);
  group.pointers.set(pointer, (group.pointers.get(pointer) ?? 0) + 1);
  if (v.test) group.tests.add(v.test.split(' > ')[0] ?? v.test);
}
const sorted = [...groups.values()].sort((a, b) => b.count - a.count || a.op.localeCompare(b.op));

function allowedOf(message: string): string {
  const at = message.indexOf('is not one of: ');
  return at < 0 ? '' : message.slice(at + 'is not one of: '.length);
}

function suggest(g: Group): string {
  const field = g.pointers.size > 0 ? [...g.pointers.keys()][0]! : '';
  const m = g.example.message;
  switch (g.keyword) {
    case 'undocumented-status': {
      const documented = (m.match(/documents (.*)$/)?.[1] ?? '').split(', ');
      if (g.status < 400) {
        const success = documented.filter((s) => s[0] === String(g.status)[0]);
        if (success.length > 0) return `status ${g.status} not documented: reference says ${success.join(' or ')}`;
      }
      const errors = documented.filter((s) => Number(s) >= 400);
      return `status ${g.status} not documented for this operation (its errors: ${errors.join(', ')}): answer a documented one, or record the deviation in docs/decisions.md`;
    }
    case 'required':
      return `field \`${g.detail}\` missing at \`${field}\`: add it to the view (the reference requires it)`;
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return `field \`${g.detail}\` not allowed at \`${field}\` (closed schema): drop it from this view`;
    case 'enum': {
      const allowed = allowedOf(m);
      if (/\/Error\d+\/properties\/code$/.test(g.schemaPath)) return `error code ${g.detail} is not in the reference's list for ${g.status}: map it to one of ${allowed}`;
      if (/\/properties\/status$/.test(g.schemaPath) && g.schemaPath.includes('Error')) return `error body status ${g.detail} disagrees with the schema: fix the status`;
      return `enum value ${g.detail} not allowed at \`${field}\`: map it to one of ${allowed}`;
    }
    case 'const':
      return `value ${g.detail} at \`${field}\` must be the constant the reference names: ${m}`;
    case 'type':
      return g.example.value === 'null'
        ? `\`${field}\` is null where the reference has no null: omit the field instead`
        : `\`${field}\` has the wrong JSON type (${m}): serialize it as the reference's type`;
    case 'format':
      return `\`${field}\` ${m}: emit the reference's format`;
    case 'pattern':
    case 'minLength':
    case 'maxLength':
    case 'minimum':
    case 'maximum':
    case 'minItems':
      return `\`${field}\` breaks the reference's ${g.keyword} constraint: fix the value the view emits`;
    case 'error-shape':
      return `error body must be exactly {status, code, message, details?}: fix \`${g.detail || field}\``;
    case 'unknown-route':
      return `route not in the reference: add it to EXTENSIONS (with its reason) or PATH_ALIASES in test/conformance/aliases.ts, or serve the reference's path`;
    case 'unexpected-body':
      return `the reference documents no body for this status: answer with an empty body`;
    default:
      return `${g.keyword} failed at \`${field}\`: ${m}`;
  }
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

const out: string[] = [];
out.push('# Reference conformance report', '');
out.push(`Source: ${code(reportPath)} (${lines.length} lines: ${violations.length} violations, ${hits.length} first-seen (route, status) records, ${errors.length} checker errors), generated ${new Date().toISOString()}.`, '');
out.push(
  `Groups are keyed by operation + status + schema location + keyword, split further by the property (required / not allowed) or the value (enum) because those need different fixes. ${groups.size} distinct groups.`,
  '',
);

out.push('## Summary by kind', '');
const byKeyword = new Map<string, { groups: number; count: number }>();
for (const g of sorted) {
  const entry = byKeyword.get(g.keyword) ?? { groups: 0, count: 0 };
  entry.groups += 1;
  entry.count += g.count;
  byKeyword.set(g.keyword, entry);
}
out.push('| keyword / rule | groups | violations |', '|---|---:|---:|');
for (const [keyword, { groups: n, count }] of [...byKeyword.entries()].sort((a, b) => b[1].count - a[1].count)) out.push(`| ${keyword} | ${n} | ${count} |`);
out.push('');

out.push('## Violation groups, by count', '');
out.push('| # | count | operation | status | keyword | detail | schema | suggestion |', '|---:|---:|---|---:|---|---|---|---|');
sorted.forEach((g, i) => {
  const schema = g.schemaPath.replace('#/components/schemas/', '').replace(/^#\/paths\/.*/, '(responses)');
  out.push(`| ${i + 1} | ${g.count} | ${code(g.op)} | ${g.status} | ${g.keyword} | ${g.detail ? code(g.detail) : ''} | ${schema ? code(schema) : ''} | ${suggest(g).replace(/\|/g, '\\|')} |`);
});
out.push('');

out.push('## Groups in detail', '');
sorted.forEach((g, i) => {
  const pointers = [...g.pointers.entries()].sort((a, b) => b[1] - a[1]);
  out.push(`### ${i + 1}. ${g.op} → ${g.status}: ${g.keyword}${g.detail ? ` ${g.detail}` : ''} (${g.count}×, ${g.tests.size} test file${g.tests.size === 1 ? '' : 's'})`, '');
  if (g.schemaPath) out.push(`- schema: ${code(g.schemaPath)}`);
  out.push(`- pointer${pointers.length > 1 ? 's' : ''}: ${pointers.slice(0, 4).map(([p, n]) => `${code(p || '(body)')}${pointers.length > 1 ? ` ×${n}` : ''}`).join(', ')}${pointers.length > 4 ? `, … (${pointers.length})` : ''}`);
  out.push(`- example: ${g.example.message.replace(/\|/g, '\\|')}${g.example.test ? ` — in ${code(g.example.test)}` : ''}`);
  out.push(`- suggestion: ${suggest(g)}`, '');
});

// Coverage ----------------------------------------------------------------------------------
const allOps = referenceOperations();
const exercised = new Map<string, Set<number>>();
const aliasHits = new Set<string>();
const extensionHits = new Map<string, Set<number>>();
const unknownHits = new Map<string, Set<number>>();
for (const h of hits) {
  const bucket = h.kind === 'reference' ? exercised : h.kind === 'extension' ? extensionHits : h.kind === 'no-route' ? unknownHits : undefined;
  const op = h.kind === 'no-route' ? normalizePath(h.op) : h.op;
  if (bucket) {
    const set = bucket.get(op) ?? new Set<number>();
    set.add(h.status);
    bucket.set(op, set);
  }
  if (h.alias) aliasHits.add(h.alias);
}

let served: Set<string> | undefined;
const servedExtensions = new Set<string>();
const servedUnknown: string[] = [];
if (routesPath && existsSync(routesPath)) {
  served = new Set();
  for (const line of readFileSync(routesPath, 'utf8').split('\n')) {
    const [method, path] = line.trim().split(' ');
    if (!method || !path) continue;
    const match = matchRoute(method, path.replace(/:([A-Za-z0-9_]+)/g, 'X$1'));
    if (match.kind === 'reference') served.add(match.operation);
    else if (match.kind === 'extension') servedExtensions.add(`${method} ${path}`);
    else servedUnknown.push(`${method} ${path}`);
  }
}

out.push('## Coverage of the reference', '');
const fmt = (statuses: Set<number> | undefined) => [...(statuses ?? [])].sort().join(', ');
out.push(`- reference operations: ${allOps.length}`);
if (served) out.push(`- served by Moneta (route table): ${served.size}`);
out.push(`- exercised by the suite through the hooked helpers: ${exercised.size}`);
out.push(`- spec path aliases exercised: ${[...aliasHits].map(code).join(', ') || 'none'}`, '');

if (served) {
  const servedNotExercised = [...served].filter((op) => !exercised.has(op)).sort();
  out.push(`### Served but never exercised (${servedNotExercised.length})`, '');
  for (const op of servedNotExercised) out.push(`- ${code(op)}`);
  out.push('');
}
out.push(`### Exercised (${exercised.size}), with the statuses seen`, '');
for (const op of [...exercised.keys()].sort()) out.push(`- ${code(op)}: ${fmt(exercised.get(op))}${served && !served.has(op) ? ' (not in the route table?)' : ''}`);
out.push('');
const notExercised = allOps.filter((op) => !exercised.has(op) && !served?.has(op));
out.push(`### Reference operations ${served ? 'not served and ' : ''}never exercised (${notExercised.length})`, '');
const byArea = new Map<string, string[]>();
for (const op of notExercised) {
  const area = op.split(' ')[1]!.split('/')[1] ?? '';
  byArea.set(area, [...(byArea.get(area) ?? []), op]);
}
for (const [area, ops] of [...byArea.entries()].sort()) out.push(`- /${area} (${ops.length}): ${ops.map((op) => code(op)).join(', ')}`);
out.push('');

out.push(`### Extensions exercised (${extensionHits.size})`, '');
for (const op of [...extensionHits.keys()].sort()) out.push(`- ${code(op)}: ${fmt(extensionHits.get(op))}`);
if (served) {
  // Which served extension route each extension hit reached (hits carry the declared path).
  const router = FindMyWay();
  for (const route of servedExtensions) {
    const [method, path] = route.split(' ');
    router.on(method as 'GET', path!, () => undefined, { route });
  }
  const reached = new Set<string>();
  for (const hit of extensionHits.keys()) {
    const [method, path] = hit.split(' ');
    if (path!.endsWith('*')) {
      for (const route of servedExtensions) if (route.startsWith(`${method} ${path!.slice(0, -1)}`)) reached.add(route);
      continue;
    }
    const store = router.find(method as 'GET', path!.replace(/\{[^}]+\}/g, 'X'))?.store as { route?: string } | undefined;
    if (store?.route) reached.add(store.route);
  }
  const unused = [...servedExtensions].filter((route) => !reached.has(route));
  if (unused.length > 0) out.push('', `Served extensions never exercised: ${unused.map(code).join(', ')}`);
  if (servedUnknown.length > 0) out.push('', `Served routes neither in the reference nor in aliases.ts: ${servedUnknown.map(code).join(', ')}`);
}
out.push('');
if (unknownHits.size > 0) {
  out.push(`### Router "no such route" answers seen (${unknownHits.size})`, '');
  for (const op of [...unknownHits.keys()].sort()) out.push(`- ${code(op)}: ${fmt(unknownHits.get(op))}`);
  out.push('');
}
if (errors.length > 0) {
  out.push(`## Checker errors (${errors.length})`, '');
  for (const e of errors.slice(0, 20)) out.push(`- ${JSON.stringify(e)}`);
  out.push('');
}

writeFileSync(outPath, `${out.join('\n')}\n`);
process.stdout.write(`${outPath}: ${groups.size} groups from ${violations.length} violations; ${exercised.size}/${allOps.length} reference operations exercised\n`);
