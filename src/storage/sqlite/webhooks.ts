// The SQLite webhook repository, in the control database beside the jobs: registrations, the delivery log, and the
// outbox a sender leases from. The outbox rows are written by the job repository's finish, in its transaction (writeOutbox).

import type { Database } from './database.ts';
import { cachedStatement, transaction } from './database.ts';
import type { DeliveryRecord, LeasedDelivery, SigningWebhook, WebhookRecord } from '../../domain/webhooks.ts';
import type { DeliveryAttempt, WebhookRepository } from '../port.ts';
import { attemptState, dueDeliveries, eventsColumn, toDeliveryRecord, toLeasedDelivery, toWebhookRecord } from '../shared/webhook-rows.ts';
import type { DeliveryRow, LeasedDeliveryRow, OutboxRow, WebhookRow } from '../shared/webhook-rows.ts';

/** ?1 is now (ms), ?2 the limit. */
const DUE_DELIVERIES_NOW = dueDeliveries('?1', '?2');

export class SqliteWebhookRepository implements WebhookRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  async create(webhook: SigningWebhook, max: number): Promise<WebhookRecord | null> {
    return transaction(this.db, () => {
      const held = cachedStatement(this.db, 'SELECT COUNT(*) AS count FROM webhooks WHERE client_id = ?').get(webhook.clientId) as { count: number };
      if (held.count >= max) return null;
      const row = cachedStatement(
          this.db,
          'INSERT INTO webhooks (webhook_id, client_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING webhook_id, client_id, url, events, created_at',
        )
        .get(webhook.webhookId, webhook.clientId, webhook.url, eventsColumn(webhook.events), webhook.secret, webhook.createdAt) as unknown as WebhookRow;
      return toWebhookRecord(row);
    });
  }

  async list(clientId: string): Promise<WebhookRecord[]> {
    const rows = cachedStatement(this.db, 'SELECT webhook_id, client_id, url, events, created_at FROM webhooks WHERE client_id = ? ORDER BY seq').all(clientId) as unknown as WebhookRow[];
    return rows.map(toWebhookRecord);
  }

  async remove(clientId: string, webhookId: string): Promise<boolean> {
    return transaction(this.db, () => {
      const owned = cachedStatement(this.db, 'SELECT 1 FROM webhooks WHERE webhook_id = ? AND client_id = ?').get(webhookId, clientId);
      if (!owned) return false;
      cachedStatement(this.db, 'DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(webhookId);
      cachedStatement(this.db, 'DELETE FROM webhooks WHERE webhook_id = ?').run(webhookId);
      return true;
    });
  }

  async deliveries(clientId: string, webhookId: string, limit: number): Promise<DeliveryRecord[] | null> {
    const owned = cachedStatement(this.db, 'SELECT 1 FROM webhooks WHERE webhook_id = ? AND client_id = ?').get(webhookId, clientId);
    if (!owned) return null;
    const rows = cachedStatement(this.db, 'SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?').all(webhookId, limit) as unknown as DeliveryRow[];
    return rows.map(toDeliveryRecord);
  }

  /** Each lease counts an attempt: a delivery whose sender dies mid-attempt was perhaps received, and is sent again. */
  async lease(owner: string, leaseMs: number, limit: number): Promise<LeasedDelivery[]> {
    const now = this.now();
    return transaction(this.db, () => {
      const due = cachedStatement(this.db, DUE_DELIVERIES_NOW).all(now, limit) as { seq: number }[];
      return due.map((row) => {
        const leased = cachedStatement(
            this.db,
            `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE seq = ?
             RETURNING delivery_id, body, attempts, created_at_ms, (SELECT url FROM webhooks w WHERE w.webhook_id = webhook_deliveries.webhook_id) AS url,
               (SELECT secret FROM webhooks w WHERE w.webhook_id = webhook_deliveries.webhook_id) AS secret`,
          )
          .get(owner, now + leaseMs, row.seq) as unknown as LeasedDeliveryRow;
        return toLeasedDelivery(leased);
      });
    });
  }

  async recordAttempt(deliveryId: string, owner: string, attempt: DeliveryAttempt): Promise<boolean> {
    const now = this.now();
    const at = new Date(now).toISOString();
    const changes = cachedStatement(
        this.db,
        `UPDATE webhook_deliveries SET status = ?, last_status_code = ?, last_error = ?, next_attempt_at = ?, lease_owner = NULL, lease_expires_at = NULL,
           delivered_at = CASE WHEN ? THEN ? ELSE delivered_at END
         WHERE delivery_id = ? AND lease_owner = ? AND status = 'pending'`,
      )
      .run(attemptState(attempt), attempt.statusCode, attempt.error, now + (attempt.retryInMs ?? 0), attempt.delivered ? 1 : 0, at, deliveryId, owner).changes;
    return Number(changes) === 1;
  }
}

/** Writes the outbox rows of a final outcome, inside the caller's transaction (SqliteJobRepository.finish). */
export function writeOutbox(db: Database, clientId: string, documentId: string, jobId: string, rows: readonly OutboxRow[], nowMs: number): void {
  const at = new Date(nowMs).toISOString();
  for (const row of rows) {
    cachedStatement(
        db,
        `INSERT INTO webhook_deliveries (delivery_id, webhook_id, client_id, job_id, document_id, event, body, status, next_attempt_at, created_at, created_at_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(row.deliveryId, row.webhookId, clientId, jobId, documentId, row.event, row.body, nowMs, at, nowMs);
  }
}
