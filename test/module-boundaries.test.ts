import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { foreignTables, TABLE_CALLS, tableOwners } from '../tools/table-owners.js';

/**
 * No service asks whether it runs in the sandbox: sandbox behaviour is an implementation of a port
 * (providers/, sandbox/), chosen once in providers/index.ts. Inside modules/, only composition may
 * know the mode: a module's declaration (index.ts) registering sandbox routes or sandbox-only pages,
 * the route, schema and page files themselves (the sandbox routes' bodies are wire formats), test
 * fixtures and browser assets.
 */

const MODULES = join(import.meta.dirname, '../packages/server/src/modules');

/** Composition, HTTP (routes and their schemas) and page files, fixtures: they may name the sandbox. */
const COMPOSITION_FILES = new Set(['index.ts', 'routes.ts', 'sandbox-routes.ts', 'schemas.ts', 'fixtures.ts', 'page.ts', 'pages.ts', 'demo-page.ts']);

/**
 * Files another change is reworking, with what is left in them; the last test fails once an entry
 * is no longer needed, so the list only shrinks.
 */
const PENDING: Record<string, string> = {};

function moduleSourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    // Browser code (browser/) and the styles served with it (assets/) run in the user's browser, not in a service.
    if (entry.isDirectory()) return entry.name === 'assets' || entry.name === 'browser' ? [] : moduleSourceFiles(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts') || entry.name.endsWith('.d.ts')) return [];
    if (COMPOSITION_FILES.has(entry.name)) return [];
    return [path];
  });
}

/**
 * Where code names the sandbox: an identifier (`sandbox`, `SANDBOX_OTP`, `sandboxRoutes`) or a
 * string that is a token rather than prose (`'sandbox'`, `'sandbox-valid-signature'`). Comments
 * never reach the syntax tree; a message or description in words ("the sandbox clock may run...")
 * is text for people, not a branch, and passes.
 */
export function sandboxMentions(fileName: string, source: string, word: RegExp = /sandbox/i): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && word.test(node.text)) found.push(`${at(node)} identifier ${node.text}`);
    if ((ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && word.test(node.text) && !/\s/.test(node.text.trim())) {
      found.push(`${at(node)} string '${node.text}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('module boundaries', () => {
  const files = moduleSourceFiles(MODULES);

  it('finds the services to check', () => {
    const names = files.map((path) => relative(MODULES, path));
    expect(names).toContain('signatures/service.ts');
    expect(names).toContain('wallets/login.ts');
    expect(names).toContain('wallets/otp.ts');
    expect(names).not.toContain('wallets/index.ts');
  });

  it('no service, repository or rule file names the sandbox in code', () => {
    const offending = files
      .filter((path) => !(relative(MODULES, path) in PENDING))
      .flatMap((path) => sandboxMentions(relative(MODULES, path), readFileSync(path, 'utf8')));
    expect(offending).toEqual([]);
  });

  it('tells code from comments and prose', () => {
    const source = [
      '// the sandbox accepts a stand-in signature',
      '/* sandbox */ const a = 1;',
      "const message = 'The sandbox clock may run at most 50 years ahead';",
      "const b = 'http://example.test/sandbox-free'; // a URL",
    ].join('\n');
    expect(sandboxMentions('prose.ts', source)).toEqual(["prose.ts:4 string 'http://example.test/sandbox-free'"]);
    expect(sandboxMentions('flag.ts', 'export function f(deps: { sandbox: boolean }) { return deps.sandbox; }')).toHaveLength(2);
    expect(sandboxMentions('token.ts', "const accepted = new Set(['sandbox-valid-signature']);")).toEqual(["token.ts:1 string 'sandbox-valid-signature'"]);
    expect(sandboxMentions('type.ts', "type Mode = 'sandbox' | 'production';")).toHaveLength(1);
    expect(sandboxMentions('constant.ts', 'export const SANDBOX_OTP = 1;')).toHaveLength(1);
  });

  it('each pending exception is still needed (remove it from PENDING once its file is clean)', () => {
    for (const [name, what] of Object.entries(PENDING)) {
      expect(sandboxMentions(name, readFileSync(join(MODULES, name), 'utf8')), `${name}: ${what}`).not.toEqual([]);
    }
  });
});

/**
 * Where a module's code names a table it does not own: a query builder call's table argument
 * (`selectFrom('customers as c')`) or a table after FROM, JOIN, INTO or UPDATE in raw SQL.
 */
function foreignTableMentions(moduleName: string, name: string, source: string, foreign: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile(name, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && TABLE_CALLS.includes(node.expression.name.text)) {
      const first = node.arguments[0];
      if (first && ts.isStringLiteralLike(first)) {
        const table = first.text.split(/\s+as\s+/)[0]!;
        if (foreign.has(table)) found.push(`${moduleName}/${name}:${at(node)} ${node.expression.name.text}('${table}')`);
      }
    }
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const match of node.text.matchAll(/\b(?:from|join|into|update)\s+([a-z_]+)/gi)) {
        if (foreign.has(match[1]!)) found.push(`${moduleName}/${name}:${at(node)} SQL ${match[0]}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every non-test source file of a module, composition and HTTP included (a route may not query another module's table either). */
function allModuleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'assets' || entry.name === 'browser' ? [] : allModuleFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'fixtures.ts' ? [path] : [];
  });
}

describe('table ownership', () => {
  it('every table belongs to one module or to the infrastructure', () => {
    const { modules, infrastructure } = tableOwners();
    const all = [...Object.values(modules).flat(), ...infrastructure];
    expect(new Set(all).size).toBe(all.length);
    expect(modules.cards).toEqual(expect.arrayContaining(['cards', 'card_transactions']));
    expect(modules.customers).toEqual(['customers']);
    expect(infrastructure).toEqual(expect.arrayContaining(['ledger_accounts', 'events', 'jobs']));
  });

  it("no module's code names another module's tables, in the query builder or in raw SQL", () => {
    const { modules } = tableOwners();
    const offending = Object.keys(modules).flatMap((moduleName) => {
      const foreign = new Set(foreignTables(moduleName));
      return allModuleFiles(join(MODULES, moduleName)).flatMap((path) => foreignTableMentions(moduleName, relative(join(MODULES, moduleName), path), readFileSync(path, 'utf8'), foreign));
    });
    expect(offending).toEqual([]);
  });

  it('finds both kinds of mention', () => {
    const source = "const a = db.selectFrom('customers as c').selectAll();\nconst b = sql`select 1 from ledger_accounts where x`;\nconst ok = db.selectFrom('cards');";
    expect(foreignTableMentions('cards', 'x.ts', source, new Set(foreignTables('cards')))).toEqual(["cards/x.ts:1 selectFrom('customers')", 'cards/x.ts:2 SQL from ledger_accounts']);
  });
});

describe('the transactions hub', () => {
  it('knows no kind of payment by name: listed kinds bring their schema, id type and statuses (ModuleDefinition.listings)', () => {
    const dir = join(MODULES, 'transactions');
    const offending = allModuleFiles(dir).flatMap((path) => sandboxMentions(relative(MODULES, path), readFileSync(path, 'utf8'), /card/i));
    expect(offending).toEqual([]);
  });
});
