import { sql, type Compilable, type RawBuilder } from 'kysely';
import type { Executor } from './schema.js';

const SLOT = Symbol('statement-shape slot');
type Slot = { readonly [SLOT]: string };

function isSlot(value: unknown): value is Slot {
  return typeof value === 'object' && value !== null && SLOT in value;
}

interface Compiled {
  fragments: TemplateStringsArray;
  /** Per placeholder, in order: the argument it takes, or a value the builder fixed. */
  slots: ({ arg: string } | { value: unknown })[];
}

function compileShape(query: { sql: string; parameters: readonly unknown[] }): Compiled {
  const parts = query.sql.split(/\$(\d+)/);
  const fragments = parts.filter((_, i) => i % 2 === 0);
  const numbers = parts.filter((_, i) => i % 2 === 1).map(Number);
  // Kysely numbers its parameters $1..$n in order, each once; anything else is not a shape.
  if (numbers.length !== query.parameters.length || numbers.some((n, i) => n !== i + 1)) {
    throw new Error(`not a statement shape (placeholders ${numbers.join(',')} for ${query.parameters.length} parameters): ${query.sql}`);
  }
  const slots = query.parameters.map((p) => (isSlot(p) ? { arg: p[SLOT] } : { value: p }));
  return { fragments: Object.assign([...fragments], { raw: [...fragments] }), slots };
}

/**
 * A statement whose text never changes, only its values: Kysely builds and compiles it once (the
 * arguments stand in as placeholders), and each call only fills in its values. On the money path a
 * statement built and compiled by Kysely costs 5-10 µs of the one core per call, a tenth of a money
 * move's CPU over its statements, for a text that is the same every time; a statement from this is
 * a template of the compiled text, as cheap as `sql`. `build` must make the same text whatever the
 * values (no optional columns or clauses, no lists): those stay ordinary builders.
 *
 * The result runs like any Kysely query (`.execute(executor)`) and embeds in `sql` (the unit of
 * work's combined writes, `readWithNext`, `writeWithNext`).
 */
export function statementShape<Args extends Record<string, unknown>, Row>(build: (executor: Executor, args: Args) => Compilable<Row>): (executor: Executor, args: Args) => RawBuilder<Row> {
  let compiled: Compiled | undefined;
  return (executor, args) => {
    if (!compiled) {
      const placeholders = new Proxy({}, { get: (_, name) => ({ [SLOT]: String(name) }) }) as Args;
      compiled = compileShape(build(executor, placeholders).compile());
    }
    const values = compiled.slots.map((slot) => {
      if (!('arg' in slot)) return slot.value;
      const value = args[slot.arg];
      if (value === undefined) throw new Error(`statement shape: no value for ${slot.arg} (pass null for NULL)`);
      return value;
    });
    return sql<Row>(compiled.fragments, ...values);
  };
}

/** Shapes one `rowsShape` keeps (row counts and column sets). */
const MAX_ROWS_SHAPES = 64;

/**
 * An INSERT of a list of rows as statement shapes: one text per row count (and set of columns),
 * built and compiled once for each (a unit of work writes its 1-3 events and 2-3 postings this way
 * on every money move). Every row of one call has the first row's columns (pass null for NULL), and
 * every value is a value, not an SQL expression.
 */
export function rowsShape<Row extends Record<string, unknown>, Result>(build: (executor: Executor, rows: readonly Row[]) => Compilable<Result>): (executor: Executor, rows: readonly Row[]) => RawBuilder<Result> {
  const byCountAndColumns = new Map<string, { fragments: TemplateStringsArray; slots: ({ row: number; column: string } | { value: unknown })[] }>();
  return (executor, rows) => {
    if (rows.length === 0) throw new Error('rows shape: no rows to insert');
    const columns = Object.keys(rows[0]!);
    const key = `${rows.length}:${columns.join(',')}`;
    let shape = byCountAndColumns.get(key);
    if (!shape) {
      const standIns = rows.map((_, row) => Object.fromEntries(columns.map((column) => [column, { [SLOT]: JSON.stringify([row, column]) }])) as Row);
      const { fragments, slots } = compileShape(build(executor, standIns).compile());
      shape = {
        fragments,
        slots: slots.map((slot) => {
          if (!('arg' in slot)) return slot;
          const [row, column] = JSON.parse(slot.arg) as [number, string];
          return { row, column };
        }),
      };
      // A caller inserting lists of many sizes keeps the first shapes; the rest are compiled each time.
      if (byCountAndColumns.size < MAX_ROWS_SHAPES) byCountAndColumns.set(key, shape);
    }
    // A row with a column the first lacks would lose it silently (the text has no place for it).
    for (let i = 1; i < rows.length; i++) {
      if (Object.keys(rows[i]!).length !== columns.length) throw new Error(`rows shape: row ${i} has other columns than the first (${columns.join(', ')})`);
    }
    const values = shape.slots.map((slot) => {
      if (!('row' in slot)) return slot.value;
      const value = rows[slot.row]![slot.column];
      if (value === undefined) throw new Error(`rows shape: no value for ${slot.column} of row ${slot.row} (pass null for NULL)`);
      return value;
    });
    return sql<Result>(shape.fragments, ...values);
  };
}
