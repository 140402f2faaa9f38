import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The browser code of the pages (TypeScript under `modules/<name>/browser/`, type-checked by
 * tsconfig.browser.json), bundled by esbuild into one ES module per entry: in memory, once per
 * process, when the pages are registered. A bundle that does not build stops the start, rather
 * than a page failing later in someone's browser.
 *
 * `external` names imports left as they are (the wallet page resolves those with its import map).
 */
const bundles = new Map<string, Promise<string>>();

export function browserBundle(entry: URL, options: { external?: string[] } = {}): Promise<string> {
  const path = fileURLToPath(entry);
  const external = options.external ?? [];
  const key = `${path}\n${external.join('\n')}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = build({
      entryPoints: [path],
      bundle: true,
      write: false,
      format: 'esm',
      target: 'es2020',
      minify: false,
      sourcemap: false,
      charset: 'utf8',
      logLevel: 'silent',
      external,
    }).then((result) => {
      const [output] = result.outputFiles;
      if (!output) throw new Error(`esbuild produced no output for ${path}`);
      return output.text;
    });
    // A failed build is not cached: the next start (or test app) tries again and reports the error.
    bundle.catch(() => bundles.delete(key));
    bundles.set(key, bundle);
  }
  return bundle;
}
