// Announcements of publications over PostgreSQL's LISTEN/NOTIFY: every transaction that appends to a Client's
// publication log notifies PUBLICATION_CHANNEL with the Client id (delivered at commit, never for a rolled
// back one), and a watch listens on one dedicated connection. A lost connection is opened again after a
// pause, and its listener is told that announcements may have been missed. Nothing here decides what a read
// sees: followers wake early on an announcement, reads still read the log head.

import pg from 'pg';
import type { Sql } from './database.ts';
import type { PublicationWatch } from '../port.ts';

/** The channel publications are announced on. */
export const PUBLICATION_CHANNEL = 'hds_publication';
/** Pause before a lost listening connection is opened again (doubling up to the maximum). */
export const WATCH_RECONNECT_MIN_MS = 100;
export const WATCH_RECONNECT_MAX_MS = 5_000;

/** Inside the appending transaction: announces the Client's publication once the transaction commits. */
export async function announcePublication(sql: Sql, clientId: string): Promise<void> {
  await sql.query('SELECT pg_notify($1, $2)', [PUBLICATION_CHANNEL, clientId]);
}

export class PublicationNotices implements PublicationWatch {
  readonly listening: Promise<void>;
  private readonly url: string;
  private readonly onPublished: (clientId: string | null) => void;
  private connection: pg.Client | null = null;
  private stopped = false;
  private retryMs = WATCH_RECONNECT_MIN_MS;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(url: string, onPublished: (clientId: string | null) => void) {
    this.url = url;
    this.onPublished = onPublished;
    // A first connection that fails is retried like a lost one; `listening` settles with the first success.
    this.listening = this.listen(false);
  }

  private async listen(reconnected: boolean): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const connection = new pg.Client({ connectionString: this.url });
      connection.on('error', () => {});
      try {
        await connection.connect();
        connection.on('notification', (message) => {
          if (message.channel === PUBLICATION_CHANNEL && message.payload) this.onPublished(message.payload);
        });
        connection.on('end', () => this.lost(connection));
        await connection.query(`LISTEN ${PUBLICATION_CHANNEL}`);
        if (this.stopped) {
          await connection.end().catch(() => {});
          return;
        }
        this.connection = connection;
        this.retryMs = WATCH_RECONNECT_MIN_MS;
        if (reconnected) this.onPublished(null);
        return;
      } catch {
        await connection.end().catch(() => {});
        await this.pause();
        reconnected = true;
      }
    }
  }

  private pause(): Promise<void> {
    const ms = this.retryMs;
    this.retryMs = Math.min(WATCH_RECONNECT_MAX_MS, this.retryMs * 2);
    return new Promise((resolve) => {
      this.retryTimer = setTimeout(resolve, ms);
      this.retryTimer.unref();
    });
  }

  private lost(connection: pg.Client): void {
    if (this.stopped || this.connection !== connection) return;
    this.connection = null;
    void this.pause().then(() => this.listen(true));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const connection = this.connection;
    this.connection = null;
    await connection?.end().catch(() => {});
  }
}
