/** JSON text of a value, with bigint written as a JSON integer (exact, no quotes). */
export function toJson(value: unknown): string {
  const marked = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `\u0000big:${v}` : v));
  return marked === undefined ? 'null' : marked.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

/** Canonical JSON: keys sorted at every depth, so equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  return toJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}
