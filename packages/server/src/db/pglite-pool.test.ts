import { afterAll, describe, expect, it } from 'vitest';
import { PGlitePool } from './pglite-pool.js';

const pool = await PGlitePool.open(undefined);
afterAll(() => pool.end());

describe('PGlite pool of one', () => {
  it('serves waiters in order, a priority waiter ahead of every ordinary one but never ahead of the holder', async () => {
    const order: string[] = [];
    const holder = await pool.connect();
    const take = (name: string, priority: boolean) =>
      pool.connect(priority).then((client) => {
        order.push(name);
        client.release();
      });
    const waiting = [take('a', false), take('b', false), take('p1', true), take('c', false), take('p2', true)];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([]);
    holder.release();
    await Promise.all(waiting);
    expect(order).toEqual(['p1', 'p2', 'a', 'b', 'c']);
    // And the connection is free again.
    const again = await pool.prioritized().connect();
    const { rows } = await again.query('select 1 as one', []);
    again.release();
    expect(rows).toEqual([{ one: 1 }]);
  });
});
