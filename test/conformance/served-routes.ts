/**
 * Prints every route the app registers, one `METHOD /path` per line (HEAD omitted), for
 * summarize.ts's coverage table: `npx tsx test/conformance/served-routes.ts > /tmp/moneta-routes.txt`.
 */
import { createTestApp } from '../harness.js';

const t = await createTestApp();
try {
  const routes = new Set(t.routes.entries.filter((e) => e.method !== 'HEAD').map((e) => `${e.method} ${e.url}`));
  process.stdout.write(`${[...routes].join('\n')}\n`);
} finally {
  await t.close();
}
