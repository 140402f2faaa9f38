import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { uuidv7 } from './uuid7.js';

describe('uuidv7', () => {
  it('makes valid version-7 ids, each later one sorting after the one before (many per millisecond), none twice', () => {
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    for (const id of ids.slice(0, 100)) {
      expect(validate(id)).toBe(true);
      expect(version(id)).toBe(7);
      expect(id[19]).toMatch(/[89ab]/); // the RFC 9562 variant
    }
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries the time it was made in its first 48 bits', () => {
    const before = Date.now();
    const id = uuidv7();
    const msecs = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
    // The same millisecond's overflow may carry it at most a few milliseconds ahead.
    expect(msecs).toBeGreaterThanOrEqual(before);
    expect(msecs).toBeLessThanOrEqual(Date.now() + 5);
  });

  it('draws fresh random bits across refills of its pool (no 16 bytes handed out twice)', () => {
    const tails = new Set(Array.from({ length: 5_000 }, () => uuidv7().slice(24)));
    expect(tails.size).toBe(5_000);
  });
});
