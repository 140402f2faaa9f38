import type { FastifyInstance } from 'fastify';
import type { CustomerId } from '../../core/ids.js';
import type { Db, Executor } from '../../db/schema.js';
import { statementShape } from '../../db/statement-shape.js';
import { customerNotFound } from './errors.js';

/** The read, as cheap as the service's own (a compiled text, only its value filled in per call). */
const customerRow = statementShape((executor: Executor, { id }: { id: CustomerId }) => executor.selectFrom('customers').selectAll().where('id', '=', id));

/**
 * The bench's bare read (MONETA_BENCH_CEILINGS=on, sandbox only): the indexed read of
 * GET /customers/{id} on the server's own pool, the row answered as it comes, with no credentials,
 * no platform scope, no clock, no view and no request log. `npm run bench` measures the API route
 * beside it, so the ratio is what everything but the read costs.
 */
export function registerBenchCeiling(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { id: string } }>('/bench/customers/:id', { schema: { hide: true }, config: { public: true } }, async (request) => {
    const [row] = (await customerRow(db, { id: request.params.id as CustomerId }).execute(db)).rows;
    if (!row) throw customerNotFound();
    return row;
  });
}
