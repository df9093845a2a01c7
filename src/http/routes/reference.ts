// The rendered API reference at /reference/: a page (reference/ in the checkout) that asks for a key, reads
// /openapi.json with it and renders it with Scalar's standalone bundle (@scalar/api-reference), served from the
// installed package at /reference/scalar.js. Public files like the console's: they hold no data, and the document
// itself still answers to a key. A Content-Security-Policy keeps the page to this origin, so the viewer fetches
// nothing elsewhere at run time (fonts, telemetry, its hosted services).

import { createReadStream, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { ServiceError } from '../../domain/service-error.ts';

export const REFERENCE_PREFIX = '/reference/';
const REFERENCE_PAGE = fileURLToPath(new URL('../../../reference/', import.meta.url));
/** The viewer's one-file browser build, as the package ships it (not among its exports, so read by path). */
export const SCALAR_BUNDLE = fileURLToPath(new URL('../../../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url));
/**
 * Scripts from this origin only; inline styles, which the viewer injects for its themes; connections to this
 * origin only (the document, and "try it" requests to this service).
 */
const REFERENCE_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/** Whether a matched route pattern is one of the reference page's (public: the files hold no data). */
export function isReferenceRoute(pattern: string | undefined): boolean {
  return pattern !== undefined && (pattern === '/reference' || pattern.startsWith(REFERENCE_PREFIX));
}

export async function registerReferenceRoutes(app: FastifyInstance): Promise<void> {
  app.get('/reference', { schema: { hide: true } }, async (_request, reply) => reply.redirect(REFERENCE_PREFIX));
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_request, reply, payload) => {
      reply.header('Content-Security-Policy', REFERENCE_POLICY);
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Referrer-Policy', 'no-referrer');
      return payload;
    });
    scope.get(`${REFERENCE_PREFIX}scalar.js`, { schema: { hide: true } }, async (_request, reply) => {
      // The package is a dependency: a checkout installed before it was added has no bundle until npm install.
      if (!existsSync(SCALAR_BUNDLE)) throw new ServiceError('not_found', 'The API reference viewer is not installed: run `npm install` (@scalar/api-reference)');
      return reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=0').send(createReadStream(SCALAR_BUNDLE));
    });
    await scope.register(fastifyStatic, { root: REFERENCE_PAGE, prefix: REFERENCE_PREFIX, redirect: false, index: 'index.html', cacheControl: true, maxAge: 0, decorateReply: false });
  });
}
