// The PostgreSQL webhook repository, in the shared tables beside the jobs: registrations, the delivery log, and the
// outbox a sender leases from (FOR UPDATE SKIP LOCKED, so senders on any host never wait for each other). Lease and
// backoff times are milliseconds of the database's clock. The outbox rows are written by PgJobRepository.finish.

import type pg from 'pg';
import { sharedTransaction } from './database.ts';
import type { Sql } from './database.ts';
import type { DeliveryRecord, LeasedDelivery, SigningWebhook, WebhookRecord } from '../../domain/webhooks.ts';
import type { DeliveryAttempt, WebhookRepository } from '../port.ts';
import { attemptState, dueDeliveries, eventsColumn, toDeliveryRecord, toLeasedDelivery, toWebhookRecord } from '../shared/webhook-rows.ts';
import type { DeliveryRow, LeasedDeliveryRow, OutboxRow, WebhookRow } from '../shared/webhook-rows.ts';

/** A Client's webhooks are counted under this advisory lock (with the Client's hash), so two registrations cannot both pass the limit. */
const WEBHOOK_REGISTRATION_LOCK = 1_504;

export class PgWebhookRepository implements WebhookRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  async create(webhook: SigningWebhook, max: number): Promise<WebhookRecord | null> {
    return sharedTransaction(this.pool, async (sql) => {
      await sql.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [WEBHOOK_REGISTRATION_LOCK, webhook.clientId]);
      const { rows: held } = await sql.query<{ count: number }>('SELECT count(*) AS count FROM webhooks WHERE client_id = $1', [webhook.clientId]);
      if (Number(held[0].count) >= max) return null;
      const { rows } = await sql.query<WebhookRow>(
        'INSERT INTO webhooks (webhook_id, client_id, url, events, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING webhook_id, client_id, url, events, created_at',
        [webhook.webhookId, webhook.clientId, webhook.url, eventsColumn(webhook.events), webhook.secret, webhook.createdAt],
      );
      return toWebhookRecord(rows[0]);
    });
  }

  async list(clientId: string): Promise<WebhookRecord[]> {
    const { rows } = await this.pool.query<WebhookRow>('SELECT webhook_id, client_id, url, events, created_at FROM webhooks WHERE client_id = $1 ORDER BY seq', [clientId]);
    return rows.map(toWebhookRecord);
  }

  /** The deliveries go with their webhook (ON DELETE CASCADE). */
  async remove(clientId: string, webhookId: string): Promise<boolean> {
    return (await this.pool.query('DELETE FROM webhooks WHERE webhook_id = $1 AND client_id = $2', [webhookId, clientId])).rowCount === 1;
  }

  async deliveries(clientId: string, webhookId: string, limit: number): Promise<DeliveryRecord[] | null> {
    return sharedTransaction(this.pool, async (sql) => {
      const { rowCount } = await sql.query('SELECT 1 FROM webhooks WHERE webhook_id = $1 AND client_id = $2', [webhookId, clientId]);
      if (rowCount !== 1) return null;
      const { rows } = await sql.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq DESC LIMIT $2', [webhookId, limit]);
      return rows.map(toDeliveryRecord);
    }, 'REPEATABLE READ');
  }

  /** Each lease counts an attempt: a delivery whose sender dies mid-attempt was perhaps received, and is sent again. */
  async lease(owner: string, leaseMs: number, limit: number): Promise<LeasedDelivery[]> {
    const { rows } = await this.pool.query<LeasedDeliveryRow>(
      `WITH due AS (${dueDeliveries('db_now_ms()', '$3', 'FOR UPDATE OF d SKIP LOCKED')})
       UPDATE webhook_deliveries d SET lease_owner = $1, lease_expires_at = db_now_ms() + $2, attempts = d.attempts + 1
       FROM due, webhooks w WHERE d.seq = due.seq AND w.webhook_id = d.webhook_id
       RETURNING d.delivery_id, d.body, d.attempts, d.created_at_ms, w.url, w.secret`,
      [owner, leaseMs, limit],
    );
    return rows.map(toLeasedDelivery);
  }

  async recordAttempt(deliveryId: string, owner: string, attempt: DeliveryAttempt): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE webhook_deliveries SET status = $1, last_status_code = $2, last_error = $3, next_attempt_at = db_now_ms() + $4, lease_owner = NULL, lease_expires_at = NULL,
         delivered_at = CASE WHEN $5 THEN db_now() ELSE delivered_at END
       WHERE delivery_id = $6 AND lease_owner = $7 AND status = 'pending'`,
      [attemptState(attempt), attempt.statusCode, attempt.error, attempt.retryInMs ?? 0, attempt.delivered, deliveryId, owner],
    );
    return rowCount === 1;
  }
}

/** Writes the outbox rows of a final outcome inside the caller's transaction (PgJobRepository.finish). */
export async function writeOutbox(sql: Sql, clientId: string, documentId: string, jobId: string, rows: readonly OutboxRow[]): Promise<void> {
  for (const row of rows) {
    await sql.query(
      `INSERT INTO webhook_deliveries (delivery_id, webhook_id, client_id, job_id, document_id, event, body, status, next_attempt_at, created_at, created_at_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', db_now_ms(), db_now(), db_now_ms())`,
      [row.deliveryId, row.webhookId, clientId, jobId, documentId, row.event, row.body],
    );
  }
}
