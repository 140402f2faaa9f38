import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

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
export function sandboxMentions(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) => `${fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`;
  const visit = (node: ts.Node): void => {
    if ((ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) && /sandbox/i.test(node.text)) found.push(`${at(node)} identifier ${node.text}`);
    if ((ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && /sandbox/i.test(node.text) && !/\s/.test(node.text.trim())) {
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
