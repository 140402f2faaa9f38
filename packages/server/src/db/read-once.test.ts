import { describe, expect, it } from 'vitest';
import { readOnce } from './read-once.js';
import type { Tx } from './schema.js';

describe('readOnce', () => {
  it('answers a transaction\'s second read of a key from its first, and each transaction and key on its own', async () => {
    const first = {} as Tx;
    const second = {} as Tx;
    let reads = 0;
    const read = async () => ({ n: ++reads });
    const a = await readOnce(first, 'k', read);
    expect(await readOnce(first, 'k', read)).toBe(a);
    expect(await readOnce(first, 'other', read)).toEqual({ n: 2 });
    expect(await readOnce(second, 'k', read)).toEqual({ n: 3 });
    expect(reads).toBe(3);
  });

  it('does not keep a failed read: the next ask reads again', async () => {
    const tx = {} as Tx;
    await expect(readOnce(tx, 'k', async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await readOnce(tx, 'k', async () => 'read again')).toBe('read again');
  });
});
