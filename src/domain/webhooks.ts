// Webhooks for job outcomes as DESIGN.md "Webhooks" names them: the events, what a delivery says (identities and
// states only: never a document's text or a custom metadata value), the states a delivery moves through and the
// limits of a registration and of the retries. Pure data and rules; storage keeps them, the worker sends them.

import type { JobOperation, JobState } from './job-states.ts';
import { versionIdFromKey } from './identity.ts';

export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.partial_failed', 'job.superseded'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** A delivery waits for an attempt (pending), reached its receiver (delivered), or was given up (failed). */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** The event a job's final state raises; null for a state that is not final (no event). */
export function eventOfJobState(state: JobState): WebhookEvent | null {
  switch (state) {
    case 'completed':
      return 'job.completed';
    case 'failed':
      return 'job.failed';
    case 'partial_failed':
      return 'job.partial_failed';
    case 'superseded':
      return 'job.superseded';
    default:
      return null;
  }
}

/** Webhooks one Client may hold at once: each final outcome writes one delivery per matching webhook. */
export const MAX_WEBHOOKS_PER_CLIENT = 20;
/** A receiver's address, at most this long (the longest a browser or proxy is sure to carry). */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** The signing secret: long enough that it cannot be guessed, short enough to be a setting. */
export const MIN_WEBHOOK_SECRET_LENGTH = 16;
export const MAX_WEBHOOK_SECRET_LENGTH = 256;
/** GET /webhooks/{id}/deliveries answers the newest this many. */
export const DELIVERY_LOG_LIMIT = 100;
/** A delivery is retried for about an hour from when its outcome was recorded, then given up (failed). */
export const DELIVERY_RETRY_WINDOW_MS = 60 * 60_000;
/** The backoff doubles from WEBHOOK_RETRY_BASE_MS up to this delay between two attempts. */
export const DELIVERY_MAX_BACKOFF_MS = 10 * 60_000;
/** The header that carries the signature: `sha256=` and the hex HMAC-SHA256 of the raw body with the secret. */
export const SIGNATURE_HEADER = 'X-Webhook-Signature';
export const SIGNATURE_PREFIX = 'sha256=';

/** A registered webhook as its owner sees it (the secret is never shown again). */
export interface WebhookRecord {
  webhookId: string;
  clientId: string;
  url: string;
  events: WebhookEvent[];
  createdAt: string;
}

/** A webhook as the sender needs it: with its secret, to sign. */
export interface SigningWebhook extends WebhookRecord {
  secret: string;
}

/** One delivery of one event to one webhook, as its log shows it. */
export interface DeliveryRecord {
  deliveryId: string;
  webhookId: string;
  jobId: string;
  event: WebhookEvent;
  status: DeliveryState;
  attempts: number;
  /** The receiver's HTTP status of the last attempt, or null (no attempt yet, or no answer: timeout, refused). */
  lastStatusCode: number | null;
  lastError: string | null;
  /** When the next attempt is due (ISO), or null once delivered or given up. */
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

/** A delivery taken by a sender under a lease: its raw body (what is signed) and where it goes. */
export interface LeasedDelivery {
  deliveryId: string;
  url: string;
  secret: string;
  body: string;
  attempts: number;
  /** When its outcome was recorded (ms): the retry window counts from it. */
  createdAtMs: number;
}

/** What a delivery's body says, exactly these fields (DESIGN.md "Webhooks"). */
export interface DeliveryBody {
  event: WebhookEvent;
  delivery_id: string;
  job_id: string;
  operation: JobOperation;
  status: JobState;
  document_id: string;
  version_id: string | null;
  occurred_at: string;
}

/** The job whose final outcome raises an event: identities and states, nothing the job read or wrote. */
export interface JobOutcomeIdentity {
  jobId: string;
  operation: JobOperation;
  documentId: string;
  versionKey: string | null;
}

/** The raw body of one delivery, built once when the outcome is recorded: the same bytes are signed at every attempt. */
export function deliveryBody(deliveryId: string, event: WebhookEvent, job: JobOutcomeIdentity, status: JobState, occurredAt: string): string {
  const body: DeliveryBody = {
    event,
    delivery_id: deliveryId,
    job_id: job.jobId,
    operation: job.operation,
    status,
    document_id: job.documentId,
    version_id: job.versionKey === null ? null : versionIdFromKey(job.versionKey),
    occurred_at: occurredAt,
  };
  return JSON.stringify(body);
}

/**
 * The delay before the attempt after `attempts` failed ones (base, doubling, capped), or null when it would fall
 * past the retry window counted from `createdAtMs`: the delivery is then given up.
 */
export function nextAttemptDelay(attempts: number, baseMs: number, createdAtMs: number, nowMs: number): number | null {
  const delay = Math.min(DELIVERY_MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempts - 1));
  return nowMs + delay - createdAtMs > DELIVERY_RETRY_WINDOW_MS ? null : delay;
}
