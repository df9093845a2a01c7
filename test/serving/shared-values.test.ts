// Served versions hold parts of their parsed JSON that equal other versions' once: the value read back is the
// same JSON, in the same key order, and what is shared is frozen.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHARED_VALUE_MAX_KEY, sharedValue } from '../../src/serving/shared-values.ts';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const metadataOf = (filename: string) =>
  JSON.parse(
    JSON.stringify({
      source: { filename, mime_type: 'text/markdown', extension: 'md' },
      location: { page_number: null, page_label: null, chunk_index: null },
      classification: { status: 'disabled', categories: [] },
      custom: { region: { name: 'north' }, tags: ['a', 'b'] },
    }),
  );

test('equal parts of two versions are one frozen object, and each version reads back as the JSON it was', () => {
  const first = metadataOf('one.md');
  const second = metadataOf('two.md');
  const [a, b] = [sharedValue(structuredClone(first)), sharedValue(structuredClone(second))];
  assert.equal(JSON.stringify(a), JSON.stringify(first));
  assert.equal(JSON.stringify(b), JSON.stringify(second));
  for (const part of ['location', 'classification', 'custom'] as const) {
    assert.equal(a[part], b[part], `${part} is held once`);
    assert.ok(Object.isFrozen(a[part]), `${part} is frozen`);
  }
  assert.equal(a.custom.tags, b.custom.tags, 'arrays too');
  assert.notEqual(a.source, b.source, 'parts that differ stay apart');
  assert.deepEqual(b.source, second.source);
  assert.throws(() => {
    (a.location as { page_number: number | null }).page_number = 3;
  }, TypeError);
});

test('key order, types and own "__proto__" keys are kept', () => {
  const ordered = sharedValue(JSON.parse('{"x":1,"y":2}'));
  const reversed = sharedValue(JSON.parse('{"y":2,"x":1}'));
  assert.notEqual(ordered, reversed, 'another key order is another answer body');
  assert.deepEqual(Object.keys(reversed), ['y', 'x']);
  assert.notEqual(sharedValue(JSON.parse('{"v":"1"}')), sharedValue(JSON.parse('{"v":1}')), 'a string is not a number');
  assert.notEqual(sharedValue(JSON.parse('{"v":null}')), sharedValue(JSON.parse('{"v":"null"}')));
  const hostile = sharedValue(JSON.parse('{"__proto__":{"polluted":true},"k":1}'));
  assert.equal(Object.getPrototypeOf(hostile), Object.prototype, 'the prototype is not set from data');
  assert.deepEqual(Object.keys(hostile), ['__proto__', 'k']);
  assert.equal(JSON.stringify(hostile), '{"__proto__":{"polluted":true},"k":1}');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('a part too large to look up is rebuilt from shared smaller parts', () => {
  const long = 'x'.repeat(SHARED_VALUE_MAX_KEY + 1);
  const make = () => JSON.parse(JSON.stringify({ text: long, location: { page_number: null } }));
  const a = sharedValue(make());
  const b = sharedValue(make());
  assert.notEqual(a, b, 'the large object is not shared');
  assert.ok(!Object.isFrozen(a));
  assert.equal(a.location, b.location, 'its small parts are');
  assert.equal(a.text, long);
});

test('the versions a snapshot serves share their equal parts', async () => {
  const generations = [loadedGeneration('doc-a', ['first text']), loadedGeneration('doc-b', ['second text'])];
  const snapshot = await applyChange(emptySnapshot('c', 8), { activated: generations });
  const [a, b] = snapshot.segments.flatMap((segment) => segment.versions);
  assert.equal(a.canonicalMetadata.location, b.canonicalMetadata.location);
  assert.equal(a.entities, b.entities);
  assert.equal(a.deletion, b.deletion);
  assert.notEqual(a.identity, b.identity);
  assert.deepEqual(a.canonicalMetadata, generations[0].canonicalMetadata);
  assert.deepEqual(a.leaves, generations[0].leaves);
});
