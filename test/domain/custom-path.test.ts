import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CUSTOM_PATH_PREFIX, customPath, quotedCustomKey } from '../../src/domain/custom-path.ts';

test('updated_fields paths: a plain key follows the prefix, a dotted or empty key is quoted as one key', () => {
  assert.equal(customPath('team'), 'metadata.custom.team');
  assert.equal(customPath('cost centre'), 'metadata.custom.cost centre');
  assert.equal(customPath('cost.centre'), 'metadata.custom."cost.centre"');
  assert.equal(customPath(''), 'metadata.custom.""');
});

test('a quoted path part names the key it quotes; an unquoted or malformed one names none', () => {
  for (const key of ['cost.centre', '', 'a."quoted".key']) {
    assert.equal(quotedCustomKey(customPath(key).slice(CUSTOM_PATH_PREFIX.length)), key, key);
  }
  for (const part of ['team', '"', '"unclosed', 'x"y"', '"a"b"']) assert.equal(quotedCustomKey(part), null, part);
});
