// Test helper: a real node:http server on a random local port that plays an embedding or rerank provider,
// recording every request so tests can check what the client sent.

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest { method: string; url: string; headers: IncomingHttpHeaders; body: unknown }
/** `destroy`: drop the connection without an answer (a reset socket). */
export interface FakeAnswer { status?: number; body?: unknown; headers?: Record<string, string>; rawBody?: string; destroy?: boolean }
export type FakeHandler = (request: RecordedRequest, index: number) => FakeAnswer | Promise<FakeAnswer>;

/** An answer that never comes (a provider that hangs): only the client's own timeout ends its wait. */
export const NEVER_ANSWERED: Promise<FakeAnswer> = new Promise(() => {});

export interface FakeProvider {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeProvider(handler: FakeHandler): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : null };
      requests.push(recorded);
      const answer = await handler(recorded, requests.length - 1);
      if (res.destroyed) return;
      if (answer.destroy) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.rawBody ?? JSON.stringify(answer.body ?? null));
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    }),
  };
}
