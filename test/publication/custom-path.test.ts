import { test } from 'node:test';
import assert from 'node:assert/strict';
import { customPath } from '../../src/publication/update-service.ts';

test('updated_fields paths: a plain key follows the prefix, a dotted or empty key is quoted as one key', () => {
  assert.equal(customPath('team'), 'metadata.custom.team');
  assert.equal(customPath('cost centre'), 'metadata.custom.cost centre');
  assert.equal(customPath('cost.centre'), 'metadata.custom."cost.centre"');
  assert.equal(customPath(''), 'metadata.custom.""');
});
