// The Fastify application: request ids, then authentication and rate limits (access.ts), body and query
// parsing (request-parsing.ts), validation, the routes, metrics, and every error in its envelope
// (error-replies.ts). It calls services only; it never touches SQL or the serving index directly.

import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { MAX_ID_LENGTH } from '../domain/identity.ts';
import { schemaCompiler } from './validation.ts';
import { responseSerializer } from './serialization.ts';
import { authenticate } from './access.ts';
import { sendRateLimitHeaders } from './rate-limit-headers.ts';
import { clientErrorHandler, frameworkErrorReply, handleError, sendError } from './error-replies.ts';
import { installRequestParsing } from './request-parsing.ts';
import { logAnsweredRequest } from './request-log.ts';
import { declareRouteResponses } from './route-responses.ts';
import { ROUTE_EXAMPLES } from './route-examples.ts';
import { shapeDocument } from './openapi-document.ts';
import type { Services } from './services.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerSearchRoutes } from './routes/search.ts';
import { MAX_FORM_FIELD_BYTES, MAX_FORM_FIELDS, registerUploadRoutes, UPLOAD_REQUEST_BODY } from './routes/upload.ts';
import { registerStatusRoutes } from './routes/status.ts';
import { registerSettingsRoutes } from './routes/settings.ts';
import { registerSimilarRoutes } from './routes/similar.ts';
import { registerDocumentRoutes, registerLifecycleRoutes } from './routes/documents.ts';
import { registerBackfillRoute, registerOperationalRoutes } from './routes/operational.ts';
import { registerWebSearchRoutes } from './routes/web-search.ts';
import { registerClientTransferRoutes } from './routes/client-transfer.ts';
import { registerClientAdminRoutes } from './routes/admin-clients.ts';
import { registerWebhookRoutes } from './routes/webhooks.ts';
import { registerConsoleRoutes } from './routes/console.ts';
import { registerReferenceRoutes } from './routes/reference.ts';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    // pino's own fields, and this process's label as its metrics carry it (api-0, api-1, ...).
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel, base: { pid: process.pid, hostname: hostname(), process: services.metrics.process } },
    // One line per request, written by the onResponse hook below (request-log.ts), instead of Fastify's two.
    disableRequestLogging: true,
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
    frameworkErrors: frameworkErrorReply,
    // A request that comes on a connection already open while the process stops is answered in full (with
    // Connection: close), not with Fastify's bare 503: a graceful stop answers every request it receives.
    return503OnClosing: false,
  });
  app.setValidatorCompiler(schemaCompiler);
  app.setSerializerCompiler(responseSerializer);
  app.setErrorHandler(handleError(services));
  app.decorateRequest('clientId', null);
  app.decorateRequest('operator', false);
  app.decorateRequest('rateBudget', null);
  app.decorateRequest('confinement', null);
  installRequestParsing(app);

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    return payload;
  });

  app.addHook('onSend', sendRateLimitHeaders);

  if (services.connections) {
    services.connections.attach(app.server);
    app.addHook('onSend', services.connections.onSend);
  }

  app.addHook('onRequest', authenticate(services));

  app.addHook('onResponse', async (request, reply) => {
    // A 202 recorded a job: the store had room for a write again (health stops reporting it full).
    if (reply.statusCode === 202) services.storeRefusals.writeAccepted();
    const route = request.routeOptions.url ?? 'unmatched';
    services.metrics.requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    services.metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    logAnsweredRequest(request, reply, route, config.requestLogLevel);
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, { code: 'not_found' });
  });

  // Before swagger's own hook reads the routes: every route declares each status it answers (route-responses.ts).
  app.addHook('onRoute', declareRouteResponses);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Hybrid document search', version: services.version },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ apiKey: [] }],
    },
    // POST /embed reads its two body forms itself (no Fastify body schema): the document still declares them.
    // Then the document is shaped for generators: shared components, error responses, field descriptions.
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      const { openapiObject } = documentObject;
      const upload = openapiObject.paths?.['/embed']?.post;
      if (upload) {
        const body = structuredClone(UPLOAD_REQUEST_BODY) as unknown as { content: Record<string, { schema: object; examples?: object }> };
        body.content['application/json'].examples = { text: { value: ROUTE_EXAMPLES['POST /embed'].request } };
        upload.requestBody = body as unknown as typeof upload.requestBody;
      }
      return shapeDocument(openapiObject) as typeof openapiObject;
    },
  });
  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes, files: 1, fields: MAX_FORM_FIELDS, fieldSize: MAX_FORM_FIELD_BYTES },
    throwFileSizeLimit: true,
  });

  registerHealthRoutes(app, services);
  registerSearchRoutes(app, services);
  registerSettingsRoutes(app, services);
  registerSimilarRoutes(app, services);
  registerUploadRoutes(app, services);
  registerStatusRoutes(app, services);
  registerDocumentRoutes(app, services);
  registerLifecycleRoutes(app, services);
  registerOperationalRoutes(app, services);
  registerBackfillRoute(app, services);
  registerClientTransferRoutes(app, services);
  registerClientAdminRoutes(app, services);
  registerWebSearchRoutes(app, services);
  registerWebhookRoutes(app, services);
  await registerConsoleRoutes(app);
  await registerReferenceRoutes(app);
  return app;
}
