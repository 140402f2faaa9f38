import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_SCHEMA, generateSchemaSource } from './schema-source.js';

describe('the SDK types', () => {
  it('are exactly what the server serves now (run `npm run sdk:generate` after changing a route)', async () => {
    const checkedIn = readFileSync(GENERATED_SCHEMA, 'utf8');
    const served = await generateSchemaSource();
    // Compare by line, so a drift names the first differing line instead of a 1 MB diff.
    const a = checkedIn.split('\n');
    const b = served.split('\n');
    const first = a.findIndex((line, i) => line !== b[i]);
    expect(first === -1 && a.length === b.length ? 'in sync' : `differs from line ${first === -1 ? Math.min(a.length, b.length) + 1 : first + 1}: ${JSON.stringify(a[first] ?? '')} vs ${JSON.stringify(b[first] ?? '')}`).toBe('in sync');
  });
});
