// The Fastify application: request ids, authentication, rate limits, validation, the error envelope,
// metrics and the routes. It calls services only; it never touches SQL or the serving index directly.

import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest, FastifyReply, FastifyError } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ServiceError } from '../domain/service-error.ts';
import { MAX_ID_LENGTH } from '../domain/identity.ts';
import { publicationAuditEvent } from './audit-event.ts';
import { jsonDecodeFailure, renderError, validationFailure } from './error-catalogue.ts';
import type { ErrorDescriptor } from './error-catalogue.ts';
import { RequestValidationError, schemaCompiler } from './validation.ts';
import { parseJsonBody } from './json-body.ts';
import { contentEncodingProblem, queryEncodingProblems } from './request-guards.ts';
import type { Services } from './services.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerSearchRoutes } from './routes/search.ts';
import { MAX_FORM_FIELD_BYTES, MAX_FORM_FIELDS, registerUploadRoutes } from './routes/upload.ts';
import { registerStatusRoutes } from './routes/status.ts';
import { registerDocumentRoutes, registerLifecycleRoutes } from './routes/documents.ts';
import { registerBackfillRoute, registerOperationalRoutes } from './routes/operational.ts';
import { registerWebSearchRoutes } from './routes/web-search.ts';

declare module 'fastify' {
  interface FastifyRequest {
    clientId: string | null;
    operator: boolean;
  }
}

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** Routes answered without any key. */
const PUBLIC_ROUTES = new Set(['/health']);
const ADMIN_PREFIX = '/admin/';

/** Sends the catalogue's rendering of an error: every error response of the app goes through here. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError | ErrorDescriptor): FastifyReply {
  const rendered = renderError(request.id, error);
  for (const [name, value] of Object.entries(rendered.headers)) reply.header(name, value);
  return reply.code(rendered.status).send(rendered.body);
}

export function sendServiceError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  return sendError(request, reply, error);
}

function handleError(services: Services) {
  return (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ServiceError) {
      const audit = publicationAuditEvent(request, error, services.auditSecret);
      if (audit) request.log.info(audit, 'publication_unavailable');
      return sendServiceError(request, reply, error);
    }
    if (error instanceof RequestValidationError || (error as FastifyError).validation) {
      // SPEC.md: 422 is for body parameters; query and path parameters are bad requests (400).
      return sendError(request, reply, validationFailure(error instanceof RequestValidationError ? error.details : []));
    }
    const code = (error as FastifyError).code;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE' || (error as FastifyError).statusCode === 413) {
      return sendServiceError(request, reply, new ServiceError('payload_too_large', `Request body exceeds ${services.config.maxUploadBytes} bytes`));
    }
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
      return sendServiceError(request, reply, new ServiceError('unsupported_media_type'));
    }
    // Only a request body is a client's JSON: stored JSON that does not parse is the service's fault, not a 422.
    if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      return sendError(request, reply, jsonDecodeFailure());
    }
    const status = (error as FastifyError).statusCode;
    if (status && status >= 400 && status < 500) {
      return sendError(request, reply, { code: 'invalid_request', detail: error.message, status });
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendServiceError(request, reply, new ServiceError('internal_error'));
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (raw non-ASCII bytes in the request line,
 * malformed headers, oversized headers, timeouts) still get the envelope and a request id.
 */
function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const detail = status === 408 ? 'Request timed out' : status === 431 ? 'Request headers are too large' : 'Malformed HTTP request';
    const requestId = randomUUID();
    const rendered = renderError(requestId, { code: 'invalid_request', detail, status });
    const body = JSON.stringify(rendered.body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: config.maxUploadBytes,
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
    // Ids may be up to MAX_ID_LENGTH characters, percent-encoded in the path.
    routerOptions: { maxParamLength: 4 * MAX_ID_LENGTH },
    clientErrorHandler,
    // Router-level failures (malformed escapes, over-long parameters) still get the envelope and a request id.
    frameworkErrors: (error, request, reply) => {
      // Set here as well: these may be answered before the request reaches the hooks.
      (reply as FastifyReply).header('X-Request-Id', request.id);
      sendError(request as FastifyRequest, reply as FastifyReply, { code: 'invalid_request', detail: error.message, status: error.statusCode });
    },
  });
  app.setValidatorCompiler(schemaCompiler);
  app.setErrorHandler(handleError(services));
  app.decorateRequest('clientId', null);
  app.decorateRequest('operator', false);
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

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    return payload;
  });

  app.addHook('onRequest', async (request) => {
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

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    services.metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    services.metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, { code: 'not_found' });
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Hybrid document search', version: services.version },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes, files: 1, fields: MAX_FORM_FIELDS, fieldSize: MAX_FORM_FIELD_BYTES },
    throwFileSizeLimit: true,
  });

  registerHealthRoutes(app, services);
  registerSearchRoutes(app, services);
  registerUploadRoutes(app, services);
  registerStatusRoutes(app, services);
  registerDocumentRoutes(app, services);
  registerLifecycleRoutes(app, services);
  registerOperationalRoutes(app, services);
  registerBackfillRoute(app, services);
  registerWebSearchRoutes(app, services);
  return app;
}
