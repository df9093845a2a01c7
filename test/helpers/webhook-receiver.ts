// A webhook receiver for the tests: a real HTTP server on a random local port that records every delivery it is
// sent (raw body, signature header, the status it answered) and answers as the test says, at once or when the test
// lets it (a held answer). waitFor resolves on the event, bounded, never after a fixed sleep.

import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import type { Socket } from 'node:net';

export interface ReceivedDelivery {
  /** The body as the bytes arrived (what the signature covers). */
  raw: string;
  json: Record<string, unknown>;
  signature: string | undefined;
  /** The status answered; null while the answer is held (or when the sender went away first). */
  answered: number | null;
}

/** What to answer a delivery: a status now, or a promise of one (a held answer); `null` answers nothing at all. */
export type Answer = (delivery: ReceivedDelivery, index: number, request: IncomingMessage) => number | null | Promise<number | null>;

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Resolves with the deliveries once `done` holds of them; rejects naming `what` after `timeoutMs`. */
  waitFor(what: string, done: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const changes = new EventEmitter();
  const sockets = new Set<Socket>();
  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(raw);
    } catch {
      // recorded as sent; the test's assertions on json fail
    }
    const header = request.headers['x-webhook-signature'];
    const delivery: ReceivedDelivery = { raw, json, signature: typeof header === 'string' ? header : undefined, answered: null };
    const index = received.push(delivery) - 1;
    changes.emit('change');
    const status = await answer(delivery, index, request);
    if (status === null || response.destroyed) return;
    delivery.answered = status;
    response.writeHead(status, { 'Content-Type': 'text/plain' }).end('ok');
    changes.emit('change');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor(what, done, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done(received)) return;
          clearTimeout(timer);
          changes.off('change', check);
          resolve(received);
        };
        const timer = setTimeout(() => {
          changes.off('change', check);
          reject(new Error(`the receiver did not see ${what} within ${timeoutMs} ms; it saw ${JSON.stringify(received.map((entry) => ({ ...entry.json, answered: entry.answered })))}`));
        }, timeoutMs);
        changes.on('change', check);
        check();
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Whether a delivery carries the signature DESIGN.md names, computed here independently of the service's code. */
export function signedWith(secret: string, delivery: ReceivedDelivery): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(Buffer.from(delivery.raw, 'utf8')).digest('hex')}`);
  const given = Buffer.from(delivery.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
