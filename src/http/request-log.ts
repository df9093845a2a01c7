// One log line per answered request, written when its answer has gone (Fastify's own two lines, "incoming
// request" and "request completed", are turned off). It names the request, never what it carried: the path
// without its query string (a documents listing's query holds metadata filter values), the route, the status
// and the time taken, the Client that asked. Its level is REQUEST_LOG_LEVEL, so an operator can keep requests
// out of a log that still holds job outcomes and audit events; an answer the service failed to give (5xx) is
// logged whatever that setting says: a 503 (a retryable refusal with Retry-After: maintenance, recovery, a store
// away for a moment) as a warning, any other as an error.

import type { FastifyReply, FastifyRequest } from 'fastify';

export const REQUEST_LOG_MESSAGE = 'request completed';
/** Answers from this status on are the service's own failure, logged whatever REQUEST_LOG_LEVEL is. */
export const SERVER_ERROR_STATUS = 500;
export const SERVER_ERROR_LOG_LEVEL = 'error';
/** SPEC.md's retryable refusal: the caller is told when to come back, so it is a warning, not an error. */
export const RETRYABLE_REFUSAL_STATUS = 503;
export const RETRYABLE_REFUSAL_LOG_LEVEL = 'warn';

type RequestLogLevel = 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** The level of one answer's line, or null when REQUEST_LOG_LEVEL is silent and the answer below 500. */
export function requestLogLevel(status: number, configured: string): RequestLogLevel | null {
  if (status === RETRYABLE_REFUSAL_STATUS) return RETRYABLE_REFUSAL_LOG_LEVEL;
  if (status >= SERVER_ERROR_STATUS) return SERVER_ERROR_LOG_LEVEL;
  return configured === 'silent' ? null : (configured as RequestLogLevel);
}

/** The path a request named, without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function logAnsweredRequest(request: FastifyRequest, reply: FastifyReply, route: string, configured: string): void {
  const level = requestLogLevel(reply.statusCode, configured);
  if (level === null) return;
  request.log[level](
    {
      method: request.method,
      path: pathOf(request.url),
      route,
      status: reply.statusCode,
      response_time_ms: Math.round(reply.elapsedTime * 10) / 10,
      client_id: request.clientId ?? undefined,
      operator: request.operator || undefined,
    },
    REQUEST_LOG_MESSAGE,
  );
}
