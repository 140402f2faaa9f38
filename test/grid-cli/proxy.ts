/**
 * A recording pass-through in front of the test app: the reference CLI talks to it over loopback and
 * it forwards every request, byte for byte, to the app's real socket. Each exchange is kept (method,
 * path, status, body) so a test can check what the CLI was answered: its status, and the body
 * against the reference documents (the same conformance hook every harness call goes through).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface Exchange {
  method: string;
  url: string;
  status: number;
  contentType?: string;
  body: unknown;
  text: string;
}

export interface RecordingProxy {
  baseUrl: string;
  /** Exchanges since the last `take()`, oldest first; empties the list. */
  take(): Exchange[];
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding']);

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  let exchanges: Exchange[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const answer = await fetch(`${target}${url}`, { method, headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) });
      const text = await answer.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      const contentType = answer.headers.get('content-type') ?? undefined;
      exchanges.push({ method, url, status: answer.status, ...(contentType ? { contentType } : {}), body: parsed, text });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
      });
      res.writeHead(answer.status, out);
      res.end(text);
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy error: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    take() {
      const taken = exchanges;
      exchanges = [];
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
