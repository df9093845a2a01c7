// One Client's SQLite database as its repositories share it: connected on first use, released (closing its
// page cache and prepared statements) when the process keeps too many open, connected again when next used.

import type { Database } from './database.ts';

/**
 * How a Client's database is reached: `open` connects (again after `release`), `used` tells the owner which
 * connections are in use, so that it can keep only a bounded number open (sqlite-storage.ts), and `refit`, when given,
 * is run on the open connection once every `refit.every` uses (a page cache sized to a file that grows).
 */
export interface ClientConnection {
  open(): Database;
  used?(database: ClientDatabase): void;
  refit?: { every: number; run(db: Database): void };
}

export class ClientDatabase {
  readonly clientId: string;
  private readonly connection: ClientConnection;
  private openDb: Database | null = null;
  private closed = false;
  private usesSinceRefit = 0;
  private readonly now: () => number;

  constructor(clientId: string, connection: ClientConnection, now: () => number = Date.now) {
    this.clientId = clientId;
    this.connection = connection;
    this.now = now;
  }

  /**
   * The open connection, connected on first use after `release`. Every statement of a repository method runs
   * synchronously on it (no method awaits between statements), so a release between two calls never splits
   * a transaction or a consistent read.
   */
  get db(): Database {
    if (this.closed) throw new Error(`the store of Client ${this.clientId} is closed`);
    this.openDb ??= this.connection.open();
    this.connection.used?.(this);
    const refit = this.connection.refit;
    if (refit && ++this.usesSinceRefit >= refit.every) {
      this.usesSinceRefit = 0;
      refit.run(this.openDb);
    }
    return this.openDb;
  }

  /** Whether a connection is open now. */
  get isConnected(): boolean {
    return this.openDb !== null;
  }

  /** Closes the connection; the next statement connects again. */
  release(): void {
    const db = this.openDb;
    this.openDb = null;
    db?.close();
  }

  close(): void {
    this.release();
    this.closed = true;
  }

  /** Now, as the ISO time the Client's rows record. */
  at(): string {
    return new Date(this.now()).toISOString();
  }
}
