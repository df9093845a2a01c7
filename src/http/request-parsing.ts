// How a request's body and query are read before validation: JSON through the guarded parser (json-body.ts),
// compressed or falsely labelled bodies refused before they are read, malformed query escapes refused.

import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from './json-body.ts';
import { contentEncodingProblem, queryEncodingProblems } from './request-guards.ts';
import { RequestValidationError } from './validation.ts';

/** Installs the JSON parser and the encoding guards; after authentication, before validation. */
export function installRequestParsing(app: FastifyInstance): void {
  // JSON bodies: bounded depth, no duplicate or prototype keys, UTF-8 and well-formed strings (json-body.ts).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // A route that takes no body (DELETE, restore) ignores an empty one, whatever Content-Type a client sends on every request.
    if ((body as Buffer).length === 0 && !request.routeOptions.schema?.body) return done(null, undefined);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
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
