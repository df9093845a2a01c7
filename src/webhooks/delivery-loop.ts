// The delivery loop of a worker process: leases due deliveries from the outbox, sends each, and records the attempt:
// delivered on a 2xx answer, else retried with exponential backoff until about an hour has passed (then failed).
// A delivery is leased before it is sent, so a worker that dies mid-delivery leaves it to be taken again once its
// lease expires: every outcome is delivered at least once, and a receiver may see one twice (delivery_id tells).

import { randomUUID } from 'node:crypto';
import type { DeliveryAttempt, WebhookRepository } from '../storage/port.ts';
import type { LeasedDelivery } from '../domain/webhooks.ts';
import { nextAttemptDelay } from '../domain/webhooks.ts';
import { sendDelivery } from './delivery-sender.ts';
import type { SendOptions, SendResult } from './delivery-sender.ts';

/** Deliveries one loop sends at once. */
export const DELIVERIES_AT_ONCE = 8;
/**
 * A lease outlasts the send it covers (which the timeout bounds) by this much, so that a busy process records its
 * attempt before another takes the delivery; a lease lost anyway only means a second delivery, never none.
 */
export const DELIVERY_LEASE_MARGIN_MS = 10_000;

export interface DeliveryLoopOptions extends SendOptions {
  pollMs: number;
  retryBaseMs: number;
  onAttempt?: (delivery: LeasedDelivery, attempt: DeliveryAttempt) => void;
  onError?: (error: unknown) => void;
}

/** What an attempt's result means for the delivery: delivered, retried later, or given up. */
export function attemptOf(delivery: LeasedDelivery, result: SendResult, retryBaseMs: number, nowMs: number): DeliveryAttempt {
  const delivered = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const error = delivered ? null : (result.error ?? `Answered ${result.statusCode}`);
  return { delivered, statusCode: result.statusCode, error, retryInMs: delivered ? null : nextAttemptDelay(delivery.attempts, retryBaseMs, delivery.createdAtMs, nowMs) };
}

export class DeliveryLoop {
  readonly owner = `webhooks-${randomUUID()}`;
  private readonly webhooks: WebhookRepository;
  private readonly options: DeliveryLoopOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopping = false;
  /** Whether the last lease failed: a store that stays down is reported once, not at every poll. */
  private failing = false;

  constructor(webhooks: WebhookRepository, options: DeliveryLoopOptions) {
    this.webhooks = webhooks;
    this.options = options;
  }

  start(): void {
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.sendDue()
        .then((sent) => {
          this.failing = false;
          return sent;
        })
        .catch((error) => {
          if (!this.failing) this.options.onError?.(error);
          this.failing = true;
          return 0;
        })
        .then((sent) => {
          this.running = null;
          // A full batch may have more behind it: look again at once; otherwise at the next poll.
          this.schedule(sent === DELIVERIES_AT_ONCE ? 0 : this.options.pollMs);
        });
    }, delayMs);
  }

  /** Leases a batch, sends it, records every attempt; returns how many were leased. */
  private async sendDue(): Promise<number> {
    const leased = await this.webhooks.lease(this.owner, this.options.timeoutMs + DELIVERY_LEASE_MARGIN_MS, DELIVERIES_AT_ONCE);
    await Promise.all(leased.map((delivery) => this.attempt(delivery)));
    return leased.length;
  }

  private async attempt(delivery: LeasedDelivery): Promise<void> {
    const result = await sendDelivery(delivery, this.options);
    const attempt = attemptOf(delivery, result, this.options.retryBaseMs, Date.now());
    // False: the lease was lost (this process was too slow) or the webhook removed; the next holder sends it again.
    await this.webhooks.recordAttempt(delivery.deliveryId, this.owner, attempt);
    this.options.onAttempt?.(delivery, attempt);
  }

  /** Stops leasing and waits for the batch in flight (each send ends by its timeout). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }
}
