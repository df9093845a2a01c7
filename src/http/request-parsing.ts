// How a request's body and query are read before validation: JSON through the guarded parser (json-body.ts),
// also when no Content-Type is given; compressed or falsely labelled bodies refused before they are read;
// malformed query escapes refused; a route that takes no body ignores one.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseJsonBody } from './json-body.ts';
import { contentEncodingProblem, queryEncodingProblems } from './request-guards.ts';
import { RequestValidationError } from './validation.ts';

/** Routes that read their body themselves instead of through a body schema (POST /embed: multipart or JSON). */
const OWN_BODY_ROUTES: ReadonlySet<string> = new Set(['/embed']);

/** Whether the route takes a body at all: DELETE and restore do not, and ignore one (SPEC lists no 415 or 422 for them). */
function takesBody(request: FastifyRequest): boolean {
  return request.routeOptions.schema?.body !== undefined || OWN_BODY_ROUTES.has(request.routeOptions.url ?? '');
}

function parseJson(request: FastifyRequest, body: Buffer, done: (error: Error | null, value?: unknown) => void): void {
  if (!takesBody(request)) return done(null, undefined);
  try {
    done(null, parseJsonBody(body));
  } catch (error) {
    done(error as Error, undefined);
  }
}

/** Installs the JSON parser and the encoding guards; after authentication, before validation. */
export function installRequestParsing(app: FastifyInstance): void {
  // JSON bodies: bounded depth, no duplicate or prototype keys, UTF-8 and well-formed strings (json-body.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => parseJson(request, body as Buffer, done));
  // Any other type no parser claims. A body sent without a Content-Type is read as JSON, as JSON APIs do (curl -d
  // without -H). A body under another type is read as text: a JSON route's validation refuses it as not an object
  // (422, one of the codes SPEC lists), and POST /embed answers it with its own 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (request.headers['content-type'] === undefined) return parseJson(request, body as Buffer, done);
    done(null, takesBody(request) ? (body as Buffer).toString('utf8') : undefined);
  });

  // After authentication: a compressed (or falsely labelled) body is refused before it is read.
  app.addHook('preParsing', async (request, _reply, payload) => {
    const problem = contentEncodingProblem(request.headers);
    if (problem) throw problem;
    return payload;
  });

  // A query string with malformed or non-UTF-8 escapes is a bad request, not a literal value.
  app.addHook('preValidation', async (request) => {
    const problems = queryEncodingProblems(request.url);
    if (problems.length > 0) throw new RequestValidationError(problems);
  });
}
