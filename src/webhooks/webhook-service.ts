// Registering, listing and removing a Client's webhooks, and reading their delivery logs: what the routes call. A
// receiver's address is checked here at registration (the sender checks it again at every delivery); the secret is
// stored to sign with and never shown again.

import { randomUUID } from 'node:crypto';
import { ServiceError } from '../domain/service-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';
import { DELIVERY_LOG_LIMIT, MAX_WEBHOOKS_PER_CLIENT } from '../domain/webhooks.ts';
import type { DeliveryRecord, WebhookEvent, WebhookRecord } from '../domain/webhooks.ts';
import type { WebhookRepository } from '../storage/port.ts';
import { assertPublicHost, hostOf, RefusedAddress } from './address-guard.ts';

/** The schemes a receiver may be reached by. */
export const WEBHOOK_SCHEMES = new Set(['http:', 'https:']);

export interface WebhookRegistration {
  url: string;
  events: WebhookEvent[];
  secret: string;
}

/** A webhook as its routes answer it. */
export interface WebhookView {
  webhook_id: string;
  url: string;
  events: WebhookEvent[];
  created_at: string;
}

/** A delivery as the log answers it. */
export interface DeliveryView {
  delivery_id: string;
  job_id: string;
  event: WebhookEvent;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

function viewOf(webhook: WebhookRecord): WebhookView {
  return { webhook_id: webhook.webhookId, url: webhook.url, events: webhook.events, created_at: webhook.createdAt };
}

function deliveryViewOf(delivery: DeliveryRecord): DeliveryView {
  return {
    delivery_id: delivery.deliveryId,
    job_id: delivery.jobId,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    next_attempt_at: delivery.nextAttemptAt,
    created_at: delivery.createdAt,
    delivered_at: delivery.deliveredAt,
  };
}

/** A 422 on one body field, its detail saying what is wrong in words. */
function invalid(field: string, message: string, input: unknown): ServiceError {
  const detail: ValidationDetail = { type: 'value_error', loc: ['body', field], msg: message, input };
  return new ServiceError('validation_error', `${field}: ${message}`, { details: [detail] });
}

export class WebhookService {
  private readonly webhooks: WebhookRepository;
  private readonly allowPrivateNetworks: boolean;

  constructor(webhooks: WebhookRepository, options: { allowPrivateNetworks: boolean }) {
    this.webhooks = webhooks;
    this.allowPrivateNetworks = options.allowPrivateNetworks;
  }

  /** The address as it will be sent to, or a 422 naming why it may not be. */
  private async checkedUrl(text: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw invalid('url', 'must be an absolute http or https URL', text);
    }
    if (!WEBHOOK_SCHEMES.has(url.protocol)) throw invalid('url', 'must use http or https', text);
    // Credentials in the address would be stored and logged with it: the secret is what authenticates a delivery.
    if (url.username !== '' || url.password !== '') throw invalid('url', 'must not carry a user name or password', text);
    if (!this.allowPrivateNetworks) {
      try {
        await assertPublicHost(hostOf(url));
      } catch (error) {
        if (error instanceof RefusedAddress) throw invalid('url', `${error.message}; such addresses are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`, text);
        throw invalid('url', `the host ${hostOf(url)} does not resolve`, text);
      }
    }
    return url.href;
  }

  async register(clientId: string, registration: WebhookRegistration): Promise<WebhookView> {
    const url = await this.checkedUrl(registration.url);
    const created = await this.webhooks.create(
      { webhookId: randomUUID(), clientId, url, events: registration.events, secret: registration.secret, createdAt: new Date().toISOString() },
      MAX_WEBHOOKS_PER_CLIENT,
    );
    if (!created) throw new ServiceError('validation_error', `A Client holds at most ${MAX_WEBHOOKS_PER_CLIENT} webhooks: delete one first`);
    return viewOf(created);
  }

  async list(clientId: string): Promise<{ webhooks: WebhookView[] }> {
    return { webhooks: (await this.webhooks.list(clientId)).map(viewOf) };
  }

  /** Another Client's webhook is the same 404 as none. */
  async remove(clientId: string, webhookId: string): Promise<{ webhook_id: string; deleted: true }> {
    if (!(await this.webhooks.remove(clientId, webhookId))) throw new ServiceError('not_found', 'Webhook not found');
    return { webhook_id: webhookId, deleted: true };
  }

  async deliveries(clientId: string, webhookId: string): Promise<{ webhook_id: string; deliveries: DeliveryView[] }> {
    const found = await this.webhooks.deliveries(clientId, webhookId, DELIVERY_LOG_LIMIT);
    if (!found) throw new ServiceError('not_found', 'Webhook not found');
    return { webhook_id: webhookId, deliveries: found.map(deliveryViewOf) };
  }
}
