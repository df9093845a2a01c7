// Who may call what: GET /health, the console's files and the API reference page's are public, /admin/ routes and /metrics take an operator key, every
// other route a Client's key, which resolves the Client and draws on its rate-limit budget (shared by every api process).
// A Client's key is one of API_KEY_CLIENTS (every right) or one issued at runtime (access/client-registry.ts): that
// one needs the route's scope (key-scopes.ts, 403 otherwise) and may carry a confinement every read applies.

import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/service-error.ts';
import type { Services } from './services.ts';
import type { Confinement } from '../search/key-filter.ts';
import { scopeOfRoute } from './key-scopes.ts';
import { isConsoleRoute } from './routes/console.ts';
import { isReferenceRoute } from './routes/reference.ts';
import { rateLimitDetails } from './rate-limit-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    clientId: string | null;
    operator: boolean;
    /** The versions the key's reads are confined to (a runtime key issued with a filter), or null. */
    confinement: Confinement | null;
  }
}

/** Routes answered without any key, for GET (and the HEAD Fastify answers beside it, as monitors send). */
const PUBLIC_ROUTES = new Set(['/health']);
const PUBLIC_METHODS = new Set(['GET', 'HEAD']);
const ADMIN_PREFIX = '/admin/';
/**
 * Operator routes outside /admin/: /metrics shows every Client's and process's figures (jobs by operation, serving
 * sizes), so no Client's key reads it, and a scrape spends no Client's budget.
 */
const OPERATOR_ROUTES = new Set(['/metrics']);

/** Whether the route takes an operator key (OPERATOR_API_KEYS) and refuses every Client's, as /admin/ routes do. */
function isOperatorRoute(path: string): boolean {
  return path.startsWith(ADMIN_PREFIX) || OPERATOR_ROUTES.has(path);
}

/**
 * The route a request reached (its pattern, as routed), or for a request that matches none its decoded path.
 * Never the raw URL: the router decodes `/%61dmin/...` to an admin route, so a check of the raw text would
 * let a Client key through to it, and `/%73earch` past the search counter.
 */
function routeOf(request: FastifyRequest): string {
  const matched = request.routeOptions.url;
  if (matched !== undefined) return matched;
  const raw = request.url.split('?')[0];
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The onRequest hook: authenticates the key, resolves the Client, and takes its rate-limit slots. */
export function authenticate(services: Pick<Services, 'config' | 'rateLimiter' | 'clientRegistry'>): (request: FastifyRequest) => Promise<void> {
  const { config } = services;
  return async (request) => {
    const path = routeOf(request);
    if (PUBLIC_ROUTES.has(path) && PUBLIC_METHODS.has(request.method)) return;
    // The console's files: a page and its assets, no data (it sends a key with each API call it makes).
    if (isConsoleRoute(request.routeOptions.url) && PUBLIC_METHODS.has(request.method)) return;
    // The API reference page's files likewise: the page reads /openapi.json with the key a person enters.
    if (isReferenceRoute(request.routeOptions.url) && PUBLIC_METHODS.has(request.method)) return;
    const key = request.headers['x-api-key'];
    const apiKey = typeof key === 'string' ? key : undefined;
    if (isOperatorRoute(path)) {
      if (!apiKey || !config.operatorApiKeys.has(apiKey)) throw new ServiceError('auth_failed');
      request.operator = true;
      return;
    }
    const access = apiKey ? await services.clientRegistry.resolve(apiKey) : null;
    if (!access) throw new ServiceError('auth_failed');
    const { clientId } = access;
    // A route that matched none answers 404 whatever the key's scopes.
    if (access.scopes !== null && request.routeOptions.url !== undefined && !access.scopes.has(scopeOfRoute(request.method, path))) {
      throw new ServiceError('forbidden', `This key lacks the ${scopeOfRoute(request.method, path)} scope this route needs`);
    }
    request.clientId = clientId;
    request.confinement = access.confinement;
    // Every key of one Client shares one budget in the store, whichever api process answers.
    const buckets = path === '/search' && request.method === 'POST' ? (['all', 'search'] as const) : (['all'] as const);
    const decision = await services.rateLimiter.take(clientId, ...buckets);
    // Counted while the route runs; the answer waits for it only as it goes out (rate-limit-headers.ts).
    request.rateBudget = services.rateLimiter.budget(clientId, buckets, decision);
    if (!decision.allowed) {
      // A budget the store could not count leaves the envelope as SPEC.md shows it, without details.
      const budget = await request.rateBudget;
      throw new ServiceError('rate_limited', 'Rate limit exceeded', { retryAfterSeconds: decision.retryAfterSeconds, details: budget === null ? undefined : rateLimitDetails(budget) });
    }
  };
}
