/**
 * Customer scenarios: `POST /customers` (a new platformCustomerId per request) and
 * `GET /customers/{id}`, each beside the bare `GET /livez` route measured against the same server
 * (HTTP, routing and serialization; no auth, no database); then the client scenario on the same customer.
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

  return [{ ...create, ceiling: livez }, { ...read, ceiling: livez }, ...(await benchClient(label, server, customer.id))];
}
