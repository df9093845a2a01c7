// What each route answers, status by status, as /openapi.json declares it: its success status (202 for the
// routes that queue a job) and every error status it can answer, each an error envelope naming the catalogue's
// codes for that status, with Retry-After where the catalogue or the rate limit sets one. Routes keep their own
// detailed success schemas (response-docs.ts); an onRoute hook (app.ts) adds what this table says to each.
// Responses are still sent as built: a route given response schemas here is serialized with documentationOnly.

import type { RouteOptions } from 'fastify';
import { ERROR_CATALOGUE, envelopeSchema } from './error-catalogue.ts';
import { documentationOnly } from './routes/response-docs.ts';

export interface RouteResponses {
  /** The route's success status and what it means. */
  success: { status: 200 | 202; description: string };
  /** Every error status the route can answer. */
  errors: readonly number[];
}

/** What a Client-key route can meet before its handler runs: a bad key, its rate limit, an internal failure. */
const CLIENT_ROUTE = [401, 429, 500] as const;
/** An operator route: a bad key, an internal failure (no rate limit applies). */
const OPERATOR_ROUTE = [401, 500] as const;
/** Reads of a Client's serving snapshot fail closed while publication cannot be proven (503, Retry-After). */
const SNAPSHOT_READ = 503;

/** Keyed by method and the route's path as registered (`:param`). */
export const ROUTE_RESPONSES: Readonly<Record<string, RouteResponses>> = {
  'GET /health': { success: { status: 200, description: 'Serving is safe; components and the publishing block.' }, errors: [503, 500] },
  'POST /search': { success: { status: 200, description: 'Ranked results of the requested page, with evidence.' }, errors: [...CLIENT_ROUTE, 400, 409, 422, SNAPSHOT_READ] },
  'POST /embed': { success: { status: 202, description: 'Accepted: the upload is queued; poll GET /status/{job_id}.' }, errors: [...CLIENT_ROUTE, 403, 413, 415, 422, 503] },
  'GET /status/:job_id': { success: { status: 200, description: 'The job, rendered by its state.' }, errors: [...CLIENT_ROUTE, 404, SNAPSHOT_READ] },
  'GET /documents': { success: { status: 200, description: 'A page of Document Version summaries.' }, errors: [...CLIENT_ROUTE, 400, 422, SNAPSHOT_READ] },
  'GET /document/:document_id/text': { success: { status: 200, description: 'The document text resource.' }, errors: [...CLIENT_ROUTE, 400, 404, 422, SNAPSHOT_READ] },
  'DELETE /document/:document_id': { success: { status: 200, description: 'The versions deleted (soft or hard).' }, errors: [...CLIENT_ROUTE, 400, 404, 422, 503] },
  'POST /document/:document_id/restore': { success: { status: 200, description: 'The versions restored.' }, errors: [...CLIENT_ROUTE, 400, 404, 422, 503] },
  'PATCH /update': { success: { status: 202, description: 'Accepted: the metadata update is queued; poll GET /status/{job_id}.' }, errors: [...CLIENT_ROUTE, 400, 422, 503] },
  'GET /metrics': { success: { status: 200, description: 'Prometheus text exposition of every process of the deployment.' }, errors: [...CLIENT_ROUTE] },
  'GET /discovery/readiness': { success: { status: 200, description: "The Client's Metadata Discovery readiness." }, errors: [...CLIENT_ROUTE, SNAPSHOT_READ] },
  'GET /admin/authority': { success: { status: 200, description: 'The publication authority record and this api process view.' }, errors: [...OPERATOR_ROUTE, 503] },
  'POST /admin/authority/mode': { success: { status: 200, description: 'The authority mode set.' }, errors: [...OPERATOR_ROUTE, 422, 503] },
  'POST /admin/backfill': { success: { status: 202, description: 'Accepted: the backfill is queued; the Client polls GET /status/{job_id}.' }, errors: [...OPERATOR_ROUTE, 404, 422, 503] },
  'GET /web-search/capabilities': { success: { status: 200, description: 'Whether web search is enabled, and its provider.' }, errors: [...CLIENT_ROUTE] },
  'POST /web-search': { success: { status: 200, description: 'Web results; provider failures answer 200 with meta.status (fail-open).' }, errors: [...CLIENT_ROUTE, 422] },
};

const RETRY_AFTER = { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before repeating the request.' } };

/** The envelope of one error status: its catalogue codes in the description, Retry-After where it applies. */
function errorResponse(status: number): object {
  const entries = Object.values(ERROR_CATALOGUE).filter((entry) => entry.status === status);
  const codes = [...new Set(entries.map((entry) => entry.errorCode))];
  const retries = status === 429 || entries.some((entry) => entry.retryAfterSeconds !== null);
  const envelope = envelopeSchema(`error_code ${codes.join(', ')}.${retries ? ' Retry-After says when to repeat the request.' : ''}`);
  return retries ? { ...envelope, headers: RETRY_AFTER } : envelope;
}

/**
 * onRoute hook: gives a route of the table its success status and error envelopes (keeping the response schemas
 * the route declares itself) and serializes it with documentationOnly, so answers are sent exactly as built.
 */
export function declareRouteResponses(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const declared = ROUTE_RESPONSES[`${methods[0]} ${route.url}`];
  if (!declared || methods.length !== 1) return;
  const schema = (route.schema ??= {});
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  response[declared.success.status] ??= { description: declared.success.description };
  for (const status of declared.errors) response[status] ??= errorResponse(status);
  schema.response = response;
  route.serializerCompiler ??= documentationOnly;
}
