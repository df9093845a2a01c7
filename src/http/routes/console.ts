// The web console (console/, built by `npm install` into console/dist) at /console/: static files any browser
// may fetch without a key; the page itself asks for one and sends it with each API call. Its answers carry a
// Content-Security-Policy that admits scripts and styles from this origin only, so document text that reached
// the page could never run as code.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ServiceError } from '../../domain/service-error.ts';

export const CONSOLE_PREFIX = '/console/';
const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));
const CONSOLE_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** Whether a matched route pattern is one of the console's (public: the files hold no data). */
export function isConsoleRoute(pattern: string | undefined): boolean {
  return pattern !== undefined && (pattern === '/console' || pattern.startsWith(CONSOLE_PREFIX));
}

export async function registerConsoleRoutes(app: FastifyInstance): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect(CONSOLE_PREFIX));
  if (!existsSync(CONSOLE_DIST)) {
    // A checkout whose install did not build the console (npm install runs `prepare`, which does): say how.
    app.get('/console/*', { schema: { hide: true } }, async () => {
      throw new ServiceError('not_found', 'The console is not built: run `npm run build:console` (npm install does it)');
    });
    return;
  }
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('Content-Security-Policy', CONSOLE_POLICY);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      return payload;
    });
    await scope.register(fastifyStatic, { root: CONSOLE_DIST, prefix: CONSOLE_PREFIX, redirect: false, index: 'index.html', cacheControl: true, maxAge: 0 });
  });
}
