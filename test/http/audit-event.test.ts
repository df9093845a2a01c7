import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { publicationAuditEvent } from '../../src/http/app.ts';
import { ServiceError } from '../../src/domain/service-error.ts';

function request(url: string, body: unknown): FastifyRequest {
  return { routeOptions: { url }, url, method: 'POST', body, clientId: 'client-a', id: 'req-1' } as unknown as FastifyRequest;
}

test('a failed search emits publication_unavailable with a query fingerprint, never the query', () => {
  const event = publicationAuditEvent(request('/search', { query: 'secret customer name' }), new ServiceError('publication_busy'))!;
  assert.equal(event.event, 'publication_unavailable');
  assert.equal(event.error_code, 'publication_busy');
  assert.match(String(event.query_fingerprint), /^[0-9a-f]{16}$/);
  assert.equal(JSON.stringify(event).includes('secret'), false);
  const again = publicationAuditEvent(request('/search', { query: 'secret customer name' }), new ServiceError('publication_unavailable'))!;
  assert.equal(again.query_fingerprint, event.query_fingerprint, 'the same query gives the same fingerprint');
});

test('only publication read failures are audited', () => {
  assert.equal(publicationAuditEvent(request('/search', { query: 'x' }), new ServiceError('invalid_filter')), null);
  assert.equal(publicationAuditEvent(request('/search', { query: 'x' }), new ServiceError('search_connection_dropped')), null);
  const list = publicationAuditEvent(request('/documents', undefined), new ServiceError('publication_unavailable'))!;
  assert.equal(list.route, '/documents');
  assert.equal('query_fingerprint' in list, false);
});
