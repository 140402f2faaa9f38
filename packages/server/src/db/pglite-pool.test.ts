import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBytea, PGlitePool, serializeBytea } from './pglite-pool.js';

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

describe('bytea on PGlite', () => {
  it('round-trips bytes through its hex form, a view into a larger buffer sending only its own bytes', async () => {
    const client = await pool.connect();
    try {
      const whole = Buffer.from([0xde, 0xad, 0x00, 0xbe, 0xef, 0xff]);
      const view = whole.subarray(1, 5);
      const { rows } = await client.query('select $1::bytea as a, $2::bytea as b, length($1::bytea) as n, $3::bytea as empty', [view, new Uint8Array([1, 2, 255]), Buffer.alloc(0)]);
      const row = rows[0] as { a: Buffer; b: Buffer; n: number; empty: Buffer };
      expect(row.n).toBe(4);
      expect(Buffer.from(row.a).toString('hex')).toBe('ad00beef');
      expect(Buffer.from(row.b).toString('hex')).toBe('0102ff');
      expect(row.empty.length).toBe(0);
      // Stored and read back unchanged, as PostgreSQL's own hex text says.
      const { rows: text } = await client.query("select encode($1::bytea, 'hex') as hex", [view]);
      expect((text[0] as { hex: string }).hex).toBe('ad00beef');
    } finally {
      client.release();
    }
  });

  it('sends the bytes themselves (in binary format), refuses what is not bytes, and reads the hex form', () => {
    const bytes = Buffer.from([1, 2, 3]);
    expect(serializeBytea(bytes)).toBe(bytes);
    expect(() => serializeBytea('not bytes')).toThrow('Invalid input for bytea type');
    expect(parseBytea('\\x00ff')).toEqual(Buffer.from([0, 255]));
  });

  it('stores a 1 MiB value and reads it back byte for byte', async () => {
    const client = await pool.connect();
    try {
      const big = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 7919) & 0xff;
      await client.query('create temporary table blobs (id int primary key, data bytea not null)', []);
      await client.query('insert into blobs (id, data) values ($1, $2)', [1, big]);
      const { rows } = await client.query('select data, md5(data) as md5 from blobs where id = $1', [1]);
      const row = rows[0] as { data: Buffer; md5: string };
      expect(Buffer.compare(Buffer.from(row.data), big)).toBe(0);
      expect(row.md5).toBe(createHash('md5').update(big).digest('hex'));
    } finally {
      client.release();
    }
  });
});
