// Who may call what: GET /health is public, /admin/ routes take an operator key, every other route a
// Client's key, which resolves the Client and draws on its rate-limit budget (shared by every api process).

import type { FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/service-error.ts';
import type { Services } from './services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    clientId: string | null;
    operator: boolean;
  }
}

/** Routes answered without any key. */
const PUBLIC_ROUTES = new Set(['/health']);
const ADMIN_PREFIX = '/admin/';

/** The onRequest hook: authenticates the key, resolves the Client, and takes its rate-limit slots. */
export function authenticate(services: Pick<Services, 'config' | 'rateLimiter'>): (request: FastifyRequest) => Promise<void> {
  const { config } = services;
  return async (request) => {
    const path = request.url.split('?')[0];
    if (PUBLIC_ROUTES.has(path) && request.method === 'GET') return;
    const key = request.headers['x-api-key'];
    const apiKey = typeof key === 'string' ? key : undefined;
    if (path.startsWith(ADMIN_PREFIX)) {
      if (!apiKey || !config.operatorApiKeys.has(apiKey)) throw new ServiceError('auth_failed');
      request.operator = true;
      return;
    }
    const clientId = apiKey ? config.apiKeyClients.get(apiKey) : undefined;
    if (!clientId) throw new ServiceError('auth_failed');
    request.clientId = clientId;
    // Every key of one Client shares one budget in the store, whichever api process answers.
    const buckets = path === '/search' && request.method === 'POST' ? (['all', 'search'] as const) : (['all'] as const);
    const decision = await services.rateLimiter.take(clientId, ...buckets);
    if (!decision.allowed) throw new ServiceError('rate_limited', 'Rate limit exceeded', { retryAfterSeconds: decision.retryAfterSeconds });
  };
}
