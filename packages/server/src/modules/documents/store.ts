import { createHash, randomUUID } from 'node:crypto';
import type { Executor, Tx } from '../../db/schema.js';
import type { PlatformId } from '../../core/ids.js';

export interface StoredContent {
  key: string;
  size: number;
  /** Lowercase hex SHA-256 of the bytes, computed as they streamed through. */
  sha256: string;
}

/**
 * Where documents' bytes live. The default keeps them in the database (chunked rows), so every API
 * process sees them and they commit or roll back with the document's row. An operator can point
 * this at an object store by implementing it: `put` is then not transactional, and the service
 * calls `discard` for content whose document did not commit.
 */
export interface DocumentStore {
  /** Streams the content in (never holding all of it); fails if the source fails. */
  put(tx: Tx, platformId: PlatformId, source: AsyncIterable<Uint8Array>): Promise<StoredContent>;
  get(executor: Executor, platformId: PlatformId, key: string): AsyncIterable<Buffer>;
  delete(tx: Tx, platformId: PlatformId, key: string): Promise<void>;
  /** Removes content written outside the transaction that failed (object stores only). */
  discard?(platformId: PlatformId, key: string): Promise<void>;
}

const CHUNK_BYTES = 256 * 1024;

/** The default store: chunks of 256 KiB in `document_contents`, written in the caller's transaction as they arrive. */
export function createDatabaseDocumentStore(): DocumentStore & { countRows(executor: Executor, platformId: PlatformId): Promise<number> } {
  return {
    async put(tx, platformId, source) {
      const key = randomUUID();
      const hash = createHash('sha256');
      let size = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async (final: boolean) => {
        while (pendingBytes >= CHUNK_BYTES || (final && pendingBytes > 0)) {
          const all = Buffer.concat(pending);
          const data = all.subarray(0, Math.min(CHUNK_BYTES, all.length));
          const rest = all.subarray(data.length);
          await tx.insertInto('document_contents').values({ content_key: key, platform_id: platformId, seq: seq++, data }).execute();
          pending = rest.length > 0 ? [Buffer.from(rest)] : [];
          pendingBytes = rest.length;
        }
      };
      for await (const chunk of source) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        hash.update(bytes);
        size += bytes.length;
        pending.push(bytes);
        pendingBytes += bytes.length;
        await flush(false);
      }
      await flush(true);
      return { key, size, sha256: hash.digest('hex') };
    },

    async *get(executor, platformId, key) {
      // One chunk at a time, so reading a document holds no more than a chunk.
      for (let seq = 0; ; seq++) {
        const row = await executor.selectFrom('document_contents').select('data').where('platform_id', '=', platformId).where('content_key', '=', key).where('seq', '=', seq).executeTakeFirst();
        if (!row) return;
        yield Buffer.from(row.data);
      }
    },

    async delete(tx, platformId, key) {
      await tx.deleteFrom('document_contents').where('platform_id', '=', platformId).where('content_key', '=', key).execute();
    },

    async countRows(executor, platformId) {
      const row = await executor.selectFrom('document_contents').select((eb) => eb.fn.countAll<string | number | bigint>().as('n')).where('platform_id', '=', platformId).executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
