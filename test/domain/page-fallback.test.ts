import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageOfRecord } from '../../src/domain/canonical-metadata.ts';

test('page comes from metadata.location.page_number, then processing, then flat metadata, then the root', () => {
  assert.equal(pageOfRecord({ metadata: { location: { page_number: 4 }, processing: { page_number: 9 }, page_number: 8 }, page_number: 7 }), 4);
  assert.equal(pageOfRecord({ metadata: { processing: { page_number: 9 }, page_number: 8 }, page_number: 7 }), 9);
  assert.equal(pageOfRecord({ metadata: { page_number: 8 }, page_number: 7 }), 8);
  assert.equal(pageOfRecord({ metadata: {}, page_number: 7 }), 7);
  assert.equal(pageOfRecord({ page_number: 7 }), 7);
});

test('a genuinely pageless record has page null; non-integers never count as pages', () => {
  assert.equal(pageOfRecord({ metadata: { location: { page_number: null } } }), null);
  assert.equal(pageOfRecord({}), null);
  assert.equal(pageOfRecord({ metadata: { location: { page_number: '3' } }, page_number: 2.5 }), null);
  assert.equal(pageOfRecord({ metadata: { location: { page_number: 'x' }, processing: { page_number: 5 } } }), 5);
});
