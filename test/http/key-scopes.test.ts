// The scope each Client route needs of a runtime key: every Client route the service declares is named in the
// table (a route added later must be given its scope on purpose), and the fallback for one that is not keeps
// writes away from keys without `write`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTE_RESPONSES } from '../../src/http/route-responses.ts';
import { ROUTE_SCOPES, scopeOfRoute } from '../../src/http/key-scopes.ts';

/** Routes that take no Client key: public, or the operator's. */
const NOT_CLIENT_ROUTES = (route: string) => route === 'GET /health' || route === 'GET /metrics' || route.split(' ')[1].startsWith('/admin/');

test('every Client route the service declares has its scope named', () => {
  const unnamed = Object.keys(ROUTE_RESPONSES).filter((route) => !NOT_CLIENT_ROUTES(route) && !(route in ROUTE_SCOPES));
  assert.deepEqual(unnamed, []);
});

test('searches need search, reads read, changes write; an unnamed route falls back by its method', () => {
  assert.equal(scopeOfRoute('POST', '/search'), 'search');
  assert.equal(scopeOfRoute('POST', '/web-search'), 'search');
  assert.equal(scopeOfRoute('GET', '/documents'), 'read');
  assert.equal(scopeOfRoute('HEAD', '/documents'), 'read');
  assert.equal(scopeOfRoute('POST', '/embed'), 'write');
  assert.equal(scopeOfRoute('DELETE', '/document/:document_id'), 'write');
  assert.equal(scopeOfRoute('GET', '/some/later/route'), 'read');
  assert.equal(scopeOfRoute('PUT', '/some/later/route'), 'write');
});
