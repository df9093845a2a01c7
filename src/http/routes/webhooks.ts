// POST /webhooks, GET /webhooks, DELETE /webhooks/{webhook_id}, GET /webhooks/{webhook_id}/deliveries (DESIGN.md
// "Webhooks"): Client-key routes under the Client's rate limit. A body's unknown keys are a 422 as everywhere.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { MAX_WEBHOOK_SECRET_LENGTH, MAX_WEBHOOK_URL_LENGTH, MIN_WEBHOOK_SECRET_LENGTH, WEBHOOK_EVENTS } from '../../domain/webhooks.ts';
import type { WebhookRegistration } from '../../webhooks/webhook-service.ts';

export const WEBHOOK_BODY_SCHEMA = {
  title: 'WebhookRegistration',
  type: 'object',
  additionalProperties: false,
  required: ['url', 'events', 'secret'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: 'Where deliveries are POSTed: http or https, a public address unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.' },
    events: { type: 'array', minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true, items: { type: 'string', enum: WEBHOOK_EVENTS }, description: 'The job outcomes to deliver.' },
    secret: { type: 'string', minLength: MIN_WEBHOOK_SECRET_LENGTH, maxLength: MAX_WEBHOOK_SECRET_LENGTH, description: 'Key of the X-Webhook-Signature HMAC; stored to sign with, never shown again.' },
  },
} as const;

const WEBHOOK_ID_PARAMS = { type: 'object', properties: { webhook_id: { type: 'string', minLength: 1, maxLength: 128, description: 'The webhook, as POST /webhooks named it.' } }, required: ['webhook_id'] } as const;

export function registerWebhookRoutes(app: FastifyInstance, services: Services): void {
  app.post<{ Body: WebhookRegistration }>('/webhooks', { schema: { tags: ['webhooks'], body: WEBHOOK_BODY_SCHEMA } }, async (request, reply) => {
    reply.code(201);
    return services.webhooks.register(request.clientId!, request.body);
  });
  app.get('/webhooks', { schema: { tags: ['webhooks'] } }, async (request) => services.webhooks.list(request.clientId!));
  app.delete<{ Params: { webhook_id: string } }>('/webhooks/:webhook_id', { schema: { tags: ['webhooks'], params: WEBHOOK_ID_PARAMS } }, async (request) =>
    services.webhooks.remove(request.clientId!, request.params.webhook_id),
  );
  app.get<{ Params: { webhook_id: string } }>('/webhooks/:webhook_id/deliveries', { schema: { tags: ['webhooks'], params: WEBHOOK_ID_PARAMS } }, async (request) =>
    services.webhooks.deliveries(request.clientId!, request.params.webhook_id),
  );
}
