import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  /** The request's path (and query). */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Answer = { status: number; body?: string; headers?: Record<string, string>; hangMs?: number };

/**
 * A real webhook receiver on loopback, as a platform would run one: it records every request with
 * its raw body, and answers from a script (default 200).
 */
export async function startReceiver(): Promise<{ url: string; received: Received[]; answer: (next: (r: Received) => Answer) => void; close: () => Promise<void> }> {
  const received: Received[] = [];
  let respond: (r: Received) => Answer = () => ({ status: 200, body: 'ok' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = respond(entry);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? '');
      };
      if (answer.hangMs) setTimeout(send, answer.hangMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer: (next) => (respond = next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
