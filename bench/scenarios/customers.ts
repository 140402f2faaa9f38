/**
 * Customer scenarios: `POST /customers` (a new platformCustomerId per request) beside the bare
 * `GET /livez` route measured against the same server (HTTP, routing and serialization; no auth, no
 * database), and `GET /customers/{id}` beside the bare `GET /bench/customers/{id}` (the same indexed
 * read on the server's own pool, answered as the row: no credentials, scope, view or request log;
 * modules/customers/bench-ceiling.ts); then the client scenario on the same customer.
 */
import { randomBytes } from 'node:crypto';
import { measure, type Measurement, type Row } from '../lib/load.js';
import { call, type Server } from '../lib/server.js';
import { API, SECONDS } from '../lib/settings.js';
import { benchClient } from './client.js';

export async function benchCustomers(label: string, server: Server, livez: Measurement): Promise<Row[]> {
  const json = { authorization: server.authorization, 'content-type': 'application/json' };

  // The customer the read scenario fetches.
  const customer = await call<{ id: string }>(server, label, {
    method: 'POST',
    path: '/customers',
    body: { customerType: 'INDIVIDUAL', platformCustomerId: 'bench-read-target', fullName: 'Bench Reader', email: 'reader@example.com' },
    expect: 201,
  });

  const runTag = randomBytes(4).toString('hex');
  let sequence = 0;
  const create = await measure(label, `POST ${API}/customers`, SECONDS, {
    url: server.base,
    requests: [
      {
        method: 'POST',
        path: `${API}/customers`,
        headers: json,
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            customerType: 'INDIVIDUAL',
            platformCustomerId: `bench-${runTag}-${++sequence}`,
            fullName: 'Bench Customer',
            email: 'bench@example.com',
          }),
        }),
      },
    ],
  });

  const read = await measure(label, `GET ${API}/customers/{id}`, SECONDS, {
    url: `${server.base}${API}/customers/${customer.id}`,
    headers: { authorization: server.authorization },
  });

  const bareRead = await measure(label, 'GET /bench/customers/{id} (bare route, same indexed read)', SECONDS, { url: `${server.base}/bench/customers/${customer.id}` });

  return [{ ...create, ceiling: livez }, { ...read, ceiling: bareRead }, bareRead, ...(await benchClient(label, server, customer.id))];
}
