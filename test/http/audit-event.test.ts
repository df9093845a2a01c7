import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { publicationAuditEvent, queryFingerprint } from '../../src/http/audit-event.ts';
import { ServiceError } from '../../src/domain/service-error.ts';

const SECRET = 'deployment-secret';

function request(method: string, url: string, body?: unknown): FastifyRequest {
  return { routeOptions: { url }, url, method, body, clientId: 'client-a', id: 'req-1' } as unknown as FastifyRequest;
}

test('a failed search emits publication_unavailable with a keyed fingerprint of the query, never the query', () => {
  const event = publicationAuditEvent(request('POST', '/search', { query: 'secret customer name' }), new ServiceError('publication_busy'), SECRET)!;
  assert.equal(event.event, 'publication_unavailable');
  assert.equal(event.error_code, 'publication_busy');
  assert.equal(event.query_fingerprint, createHmac('sha256', SECRET).update('secret customer name').digest('hex').slice(0, 32));
  assert.equal(JSON.stringify(event).includes('secret customer'), false);
  const again = publicationAuditEvent(request('POST', '/search', { query: 'secret customer name' }), new ServiceError('publication_unavailable'), SECRET)!;
  assert.equal(again.query_fingerprint, event.query_fingerprint, 'the same query gives the same fingerprint');
});

test('the fingerprint depends on the deployment secret: without it a guessed query cannot be confirmed', () => {
  assert.notEqual(queryFingerprint(SECRET, '1234567890'), queryFingerprint('another-deployment', '1234567890'));
});

test('only publication failures of reads are audited', () => {
  assert.equal(publicationAuditEvent(request('POST', '/search', { query: 'x' }), new ServiceError('invalid_filter'), SECRET), null);
  assert.equal(publicationAuditEvent(request('POST', '/search', { query: 'x' }), new ServiceError('search_connection_dropped'), SECRET), null);
  const list = publicationAuditEvent(request('GET', '/documents'), new ServiceError('publication_unavailable'), SECRET)!;
  assert.equal(list.route, '/documents');
  assert.equal('query_fingerprint' in list, false);
  assert.equal(publicationAuditEvent(request('DELETE', '/document/:document_id'), new ServiceError('publication_busy'), SECRET), null, 'a write is not a read');
  assert.equal(publicationAuditEvent(request('POST', '/document/:document_id/restore'), new ServiceError('publication_busy'), SECRET), null);
});
