// The scope each Client route needs of a runtime key (DESIGN.md "Clients and keys at runtime"): search for the
// searches, read for the GET routes, write for everything that changes the Client's documents. A key of
// API_KEY_CLIENTS has every scope. A route not named here takes read for GET and HEAD, write otherwise, so a
// route added later is never open to a key that was not meant to reach it.

import type { KeyScope } from '../domain/api-keys.ts';

/** Keyed by method and the route's path as registered (`:param`). */
export const ROUTE_SCOPES: Readonly<Record<string, KeyScope>> = {
  'POST /search': 'search',
  'POST /similar': 'search',
  'POST /web-search': 'search',
  'GET /web-search/capabilities': 'search',
  'GET /documents': 'read',
  'GET /settings/synonyms': 'read',
  'GET /document/:document_id/text': 'read',
  'GET /status/:job_id': 'read',
  'GET /discovery/readiness': 'read',
  'GET /openapi.json': 'read',
  'POST /embed': 'write',
  'PUT /settings/synonyms': 'write',
  'PATCH /update': 'write',
  'DELETE /document/:document_id': 'write',
  'POST /document/:document_id/restore': 'write',
  // Webhooks are the write scope's, reading them too (DESIGN.md): a delivery log names documents and jobs of the
  // whole Client, which a key confined by a filter (never given write) must not see.
  'POST /webhooks': 'write',
  'GET /webhooks': 'write',
  'DELETE /webhooks/:webhook_id': 'write',
  'GET /webhooks/:webhook_id/deliveries': 'write',
};

/** The scope a request to this route needs. */
export function scopeOfRoute(method: string, route: string): KeyScope {
  const named = ROUTE_SCOPES[`${method === 'HEAD' ? 'GET' : method} ${route}`];
  if (named) return named;
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}
