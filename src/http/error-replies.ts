// Every error answer of the app: the catalogue's envelope with a request id, whether the error came from a
// service, from validation, from Fastify's parsers and router, or from Node's HTTP parser before Fastify.

import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ServiceError } from '../domain/service-error.ts';
import { storeRefusal } from '../domain/store-failure.ts';
import { publicationAuditEvent } from './audit-event.ts';
import { jsonDecodeFailure, renderError, validationFailure } from './error-catalogue.ts';
import type { ErrorDescriptor } from './error-catalogue.ts';
import { RequestValidationError } from './validation.ts';
import type { Services } from './services.ts';

/** Sends the catalogue's rendering of an error: every error response of the app goes through here. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError | ErrorDescriptor): FastifyReply {
  const rendered = renderError(request.id, error);
  for (const [name, value] of Object.entries(rendered.headers)) reply.header(name, value);
  return reply.code(rendered.status).send(rendered.body);
}

export function sendServiceError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  return sendError(request, reply, error);
}

/** The app's error handler: services' errors, validation failures and Fastify's own, each in its envelope. */
export function handleError(services: Pick<Services, 'auditSecret' | 'config' | 'storeFailure'>) {
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
    // The store itself failed (down, unreadable, full): a retryable refusal naming it, not a defect's 500.
    const failure = services.storeFailure(error);
    if (failure) {
      request.log.warn({ err: error, storage: failure.storage, kind: failure.kind }, 'store failure');
      return sendServiceError(request, reply, storeRefusal(failure));
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendServiceError(request, reply, new ServiceError('internal_error'));
  };
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (raw non-ASCII bytes in the request line,
 * malformed headers, oversized headers, timeouts) still get the envelope and a request id.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
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

/** Router-level failures (malformed escapes, over-long parameters) still get the envelope and a request id. */
export function frameworkErrorReply(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  // Set here as well: these may be answered before the request reaches the hooks.
  reply.header('X-Request-Id', request.id);
  sendError(request, reply, { code: 'invalid_request', detail: error.message, status: error.statusCode });
}
