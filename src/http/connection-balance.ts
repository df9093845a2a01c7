// Keeps keep-alive connections spread over the api processes. node:cluster hands each new connection to an api
// process in turn, but a keep-alive client holds its connections for as long as it runs: after an api process
// restarts, every connection is on the processes that survived and the replacement serves nothing. Each api
// process tells the supervisor how many of its connections carried an answer lately (`active`); the supervisor
// asks one that holds more than its share to shed the excess (runtime/connection-shares.ts), and this process
// answers each connection it sheds with `Connection: close` on its next answer: the client reads that answer
// whole and opens a new connection, which the cluster deals out again. No request is cut: a connection closes only
// after an answer, and an idle one is neither counted nor shed (it carries no load).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

export class ConnectionBalance {
  private readonly open = new Set<Socket>();
  /** Connections that carried an answer since the last count (`active`). */
  private answered = new Set<Socket>();
  /** Those of the last count: the connections a shed picks from. */
  private counted: Socket[] = [];
  /** Connections to close after their next answer. */
  private readonly shedding = new WeakSet<Socket>();
  private closedForBalance = 0;

  /** Follows the server's connections. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.open.delete(socket);
        this.answered.delete(socket);
      });
    });
  }

  /** How many connections carried an answer since the last call; they are the ones a shed then picks from. */
  active(): number {
    this.counted = [...this.answered].filter((socket) => this.open.has(socket) && !this.shedding.has(socket));
    this.answered = new Set();
    return this.counted.length;
  }

  /** Closes `count` of the counted connections, each after its next answer. */
  shed(count: number): void {
    let marked = 0;
    for (const socket of this.counted) {
      if (marked >= count) break;
      if (!this.open.has(socket) || this.shedding.has(socket)) continue;
      this.shedding.add(socket);
      marked++;
    }
  }

  /** The onSend hook: an answer on a connection being shed closes it; any other answer counts it as active. */
  readonly onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const socket = request.raw.socket;
    if (this.shedding.has(socket)) {
      this.shedding.delete(socket);
      reply.header('Connection', 'close');
      this.closedForBalance++;
    } else {
      this.answered.add(socket);
    }
    return payload;
  };

  /** Connections open on this process now. */
  openConnections(): number {
    return this.open.size;
  }

  /** Connections this process has closed after an answer so that the cluster deals them out again. */
  connectionsClosedForBalance(): number {
    return this.closedForBalance;
  }
}
