// How a refusal's message repeats the envelope's details: validation entries by field, a 503's own message only
// when it says more than the detail, any other object as JSON cut short, and nothing when there is nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeDetails, SearchServiceError } from '../../clients/typescript/src/index.ts';

test('validation entries read as field: message, body fields by their own name, query parameters with their place', () => {
  const details = [
    { type: 'less_than_equal', loc: ['body', 'limit'], msg: 'Input should be less than or equal to 100', input: 1000 },
    { type: 'extra_forbidden', loc: ['body', 'filters', 'colour'], msg: 'Extra inputs are not permitted', input: 'red' },
    { type: 'int_parsing', loc: ['query', 'offset'], msg: 'Input should be a valid integer', input: 'x' },
  ];
  assert.equal(describeDetails(details), 'limit: Input should be less than or equal to 100; filters.colour: Extra inputs are not permitted; query.offset: Input should be a valid integer');
});

test("a 503's details message shows only when it is not the detail again", () => {
  const envelope = { detail: 'Publication is busy', error_code: 'publication_busy', request_id: 'r-1', details: { code: 'publication_busy', message: 'Publication is busy' } };
  assert.equal(new SearchServiceError(503, envelope, '1').message, '503 publication_busy: Publication is busy');
  const own = { ...envelope, details: { code: 'publication_busy', message: 'the fence on memo-1 is held' } };
  assert.equal(new SearchServiceError(503, own, '1').message, '503 publication_busy: Publication is busy (the fence on memo-1 is held)');
});

test('other details objects are shown as JSON, a long one cut short; absent or empty ones add nothing', () => {
  assert.equal(describeDetails({ code: 'METADATA_DISCOVERY_NOT_READY', state: 'pending' }), '{"code":"METADATA_DISCOVERY_NOT_READY","state":"pending"}');
  const long = describeDetails({ paths: Array.from({ length: 100 }, (_, i) => `metadata.custom.field_${i}`) })!;
  assert.equal(long.length, 301);
  assert.ok(long.endsWith('…'));
  assert.equal(describeDetails(undefined), null);
  assert.equal(describeDetails({}), null);
  assert.equal(describeDetails([]), null);
  assert.equal(new SearchServiceError(404, { detail: 'Document not found' }, null).message, '404 error: Document not found');
});
