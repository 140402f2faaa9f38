import { sql, type SelectQueryBuilder } from 'kysely';
import { invalidInput } from '../core/errors.js';

export interface PageParams {
  limit?: number | undefined;
  cursor?: string | undefined;
  sortOrder?: string | undefined;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor?: string;
  totalCount: number;
}

interface CursorPosition {
  t: string;
  id: string;
}

function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** What encodeCursor writes: `toISOString()` of a time the database can hold, and an id. */
const CURSOR_TIME = /^(?:\d{4}|\+\d{6})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CURSOR_ID = /^[A-Za-z]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function decodeCursor(cursor: string): CursorPosition {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPosition>;
    // Anything else reached the database as a parameter it refuses (a NUL, a year it cannot store).
    if (typeof value.t === 'string' && typeof value.id === 'string' && CURSOR_TIME.test(value.t) && CURSOR_ID.test(value.id) && !Number.isNaN(Date.parse(value.t))) {
      return { t: value.t, id: value.id };
    }
  } catch {
    // fall through to the error below
  }
  throw invalidInput([{ field: 'cursor', message: 'cursor is not a cursor this list returned' }], 'cursor is not a cursor this list returned');
}

/**
 * The one way every list pages: keyset on (created_at, id), never OFFSET. `query` must already be
 * scoped to the platform and filtered; the table's alias is `t`. Counts the filtered total too.
 */
export async function paginate<Row extends { created_at: Date; id: string }, Out>(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table aliased `t`
  query: SelectQueryBuilder<any, any, Row>,
  params: PageParams,
  toItem: (row: Row) => Out,
): Promise<Page<Out>> {
  const limit = params.limit ?? 20;
  const descending = params.sortOrder !== 'asc';
  let pageQuery = query;
  if (params.cursor) {
    const position = decodeCursor(params.cursor);
    const comparison = descending ? sql`<` : sql`>`;
    pageQuery = pageQuery.where(
      sql<boolean>`(t.created_at, t.id) ${comparison} (${new Date(position.t)}, ${position.id})`,
    );
  }
  const direction = descending ? 'desc' : 'asc';
  const [rows, total] = await Promise.all([
    pageQuery
      .orderBy(sql`t.created_at`, direction)
      .orderBy(sql`t.id`, direction)
      .limit(limit + 1)
      .execute() as Promise<Row[]>,
    query
      .clearSelect()
      .select(sql<string | number | bigint>`count(*)`.as('count'))
      .executeTakeFirstOrThrow() as Promise<{ count: string | number | bigint }>,
  ]);
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(toItem),
    hasMore,
    ...(hasMore && last ? { nextCursor: encodeCursor({ t: last.created_at.toISOString(), id: last.id }) } : {}),
    totalCount: Number(total.count),
  };
}
