/** Regenerates packages/client/src/generated/schema.ts from the server's OpenAPI document. */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GENERATED_SCHEMA, generateSchemaSource } from './schema-source.js';

const source = await generateSchemaSource();
let before = '';
try {
  before = readFileSync(GENERATED_SCHEMA, 'utf8');
} catch {
  // first generation
}
writeFileSync(GENERATED_SCHEMA, source);
process.stdout.write(`${fileURLToPath(GENERATED_SCHEMA)}: ${before === source ? 'unchanged' : 'updated'} (${source.length} characters)\n`);
