// SPEC.md "Events": the info-level publication_unavailable audit event, emitted on publication read failures
// only. A failed search carries a keyed fingerprint of its query (HMAC-SHA-256 with a per-deployment secret),
// never the query text, so account numbers or names cannot be recovered from logs by brute force.

import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ServiceError } from '../domain/service-error.ts';
import { ERROR_CATALOGUE } from './error-catalogue.ts';

/** The reads of the contract: their publication failures are audited; writes (DELETE, restore, ...) are not. */
export const AUDITED_READ_ROUTES: ReadonlySet<string> = new Set([
  'POST /search',
  'GET /documents',
  'GET /document/:document_id/text',
  'GET /status/:job_id',
  'GET /discovery/readiness',
]);

/** Hex characters of the HMAC kept in the event: enough to correlate failures, too few to be a stable id. */
export const QUERY_FINGERPRINT_HEX_CHARS = 32;

export function queryFingerprint(secret: string, query: string): string {
  return createHmac('sha256', secret).update(query, 'utf8').digest('hex').slice(0, QUERY_FINGERPRINT_HEX_CHARS);
}

export function publicationAuditEvent(request: FastifyRequest, error: ServiceError, secret: string): Record<string, unknown> | null {
  const entry = ERROR_CATALOGUE[error.code];
  if (entry.status !== 503 || !entry.errorCode.startsWith('publication_')) return null;
  const route = request.routeOptions.url;
  if (!route || !AUDITED_READ_ROUTES.has(`${request.method} ${route}`)) return null;
  const event: Record<string, unknown> = {
    event: 'publication_unavailable',
    error_code: entry.errorCode,
    route,
    method: request.method,
    client_id: request.clientId,
    request_id: request.id,
  };
  const query = (request.body as { query?: unknown } | undefined)?.query;
  if (route === '/search' && typeof query === 'string') event.query_fingerprint = queryFingerprint(secret, query);
  return event;
}
