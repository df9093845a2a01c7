// Webhooks and their deliveries as both adapters store them, read as the domain's records, and the outbox rule as
// SQL both dialects read alike: which delivery a sender may take next. No driver here: each adapter runs its own
// statements around these.

import { randomUUID } from 'node:crypto';
import type { JobState } from '../../domain/job-states.ts';
import { deliveryBody, eventOfJobState, WEBHOOK_EVENTS } from '../../domain/webhooks.ts';
import type { DeliveryRecord, DeliveryState, JobOutcomeIdentity, LeasedDelivery, WebhookEvent, WebhookRecord } from '../../domain/webhooks.ts';

export interface WebhookRow {
  webhook_id: string;
  client_id: string;
  url: string;
  /** The events as a JSON array of their names. */
  events: string;
  created_at: string;
}

export interface DeliveryRow {
  delivery_id: string;
  webhook_id: string;
  job_id: string;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** A leased delivery joined with its webhook's address and secret. */
export interface LeasedDeliveryRow {
  delivery_id: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
  created_at_ms: number;
}

export function toWebhookRecord(row: WebhookRow): WebhookRecord {
  const named = JSON.parse(row.events) as string[];
  return { webhookId: row.webhook_id, clientId: row.client_id, url: row.url, events: WEBHOOK_EVENTS.filter((event) => named.includes(event)), createdAt: row.created_at };
}

export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  const status = row.status as DeliveryState;
  return {
    deliveryId: row.delivery_id,
    webhookId: row.webhook_id,
    jobId: row.job_id,
    event: row.event as WebhookEvent,
    status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: status === 'pending' ? new Date(Number(row.next_attempt_at)).toISOString() : null,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

export function toLeasedDelivery(row: LeasedDeliveryRow): LeasedDelivery {
  return { deliveryId: row.delivery_id, url: row.url, secret: row.secret, body: row.body, attempts: row.attempts, createdAtMs: Number(row.created_at_ms) };
}

/** The events column of a webhook: a JSON array, in the order WEBHOOK_EVENTS lists them. */
export function eventsColumn(events: readonly WebhookEvent[]): string {
  return JSON.stringify(WEBHOOK_EVENTS.filter((event) => events.includes(event)));
}

/** A LIKE pattern that matches an events column naming `event` (names hold no % and no quote; `_` matches itself too). */
export function eventPattern(event: WebhookEvent): string {
  return `%${JSON.stringify(event)}%`;
}

/** A Client's webhooks that want a job's outcome, given the placeholders of the Client and of the event's pattern (eventPattern). */
export const subscribedWebhooks = (client: string, pattern: string) => `SELECT webhook_id FROM webhooks WHERE client_id = ${client} AND events LIKE ${pattern} ORDER BY seq`;

/** One outbox row to insert: a delivery of the outcome's event to one webhook, its body built now and signed as is. */
export interface OutboxRow {
  deliveryId: string;
  webhookId: string;
  event: WebhookEvent;
  body: string;
}

/** The outbox rows a final outcome writes, one per subscribed webhook; none for a state that raises no event. */
export function outboxRows(job: JobOutcomeIdentity, status: JobState, webhookIds: readonly string[], occurredAt: string): OutboxRow[] {
  const event = eventOfJobState(status);
  if (event === null) return [];
  return webhookIds.map((webhookId) => {
    const deliveryId = randomUUID();
    return { deliveryId, webhookId, event, body: deliveryBody(deliveryId, event, job, status, occurredAt) };
  });
}

/**
 * The deliveries a sender may take at `now` (an SQL expression, ms), at most `limit`: pending, due, not under a live
 * lease, and first among the pending deliveries of their webhook and document, so that a document's outcomes reach a
 * receiver in the order they were recorded; a later one waits until the earlier is delivered or given up.
 * `lock` ends the statement (PostgreSQL's row locks).
 */
export const dueDeliveries = (now: string, limit: string, lock = '') => `SELECT d.seq FROM webhook_deliveries d
  WHERE d.status = 'pending' AND d.next_attempt_at <= ${now} AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ${now})
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries earlier
      WHERE earlier.webhook_id = d.webhook_id AND earlier.document_id = d.document_id AND earlier.seq < d.seq AND earlier.status = 'pending')
  ORDER BY d.next_attempt_at, d.seq LIMIT ${limit} ${lock}`;

/** The columns an attempt sets: the state it leaves, the answer's status code and error. */
export function attemptState(attempt: { delivered: boolean; retryInMs: number | null }): DeliveryState {
  return attempt.delivered ? 'delivered' : attempt.retryInMs === null ? 'failed' : 'pending';
}
