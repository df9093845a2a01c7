import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ENTITY_TYPES, emptyEntities } from '../../src/domain/entities.ts';
import { aggregateEntities } from '../../src/ingest/entities/aggregate.ts';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import { MAX_DOCUMENT_ENTITIES_PER_TYPE } from '../../src/ingest/entities/limits.ts';
import { MT940_FILE, readCorpusText } from './corpus.ts';

test('a document is the union of its chunks, in first-seen order, without case duplicates', () => {
  const first = extractEntities('Encik Ahmad bin Abdullah paid RM 1,000 on 31 Disember 2010 to BANK NEGARA MALAYSIA.');
  const second = extractEntities('Bank Negara Malaysia confirmed RM 1,000 and RM 2,000 to Encik Ahmad bin Abdullah.');
  const document = aggregateEntities([first, second]);
  assert.deepEqual(document.monetary_amounts, ['RM 1,000', 'RM 2,000']);
  assert.deepEqual(document.persons, ['Ahmad bin Abdullah']);
  assert.equal(document.organizations.filter((o) => o.toLowerCase() === 'bank negara malaysia').length, 1);
  assert.deepEqual(document.dates, ['31 Disember 2010']);
});

test('document-level entities are bounded per type', () => {
  const chunks = Array.from({ length: 40 }, (_, c) => {
    const entities = emptyEntities();
    entities.transaction_refs = Array.from({ length: 20 }, (_, i) => `REF-${c}-${i}`);
    return entities;
  });
  const document = aggregateEntities(chunks);
  assert.equal(document.transaction_refs.length, MAX_DOCUMENT_ENTITIES_PER_TYPE);
  assert.equal(document.transaction_refs[0], 'REF-0-0');
  assert.equal(aggregateEntities(chunks, 5).transaction_refs.length, 5);
});

test('aggregating the chunks of the MT940 statement finds what the whole text finds', () => {
  const text = readCorpusText(MT940_FILE);
  const chunks = text.split(/(?=\{1:)/).map((block) => extractEntities(block));
  const document = aggregateEntities(chunks);
  const whole = extractEntities(text);
  for (const type of ENTITY_TYPES) {
    assert.deepEqual(new Set(document[type]), new Set(whole[type]), type);
  }
});

test('empty and whitespace-only text yields empty groups for every type', () => {
  for (const text of ['', '   \n\t ']) {
    const entities = extractEntities(text);
    for (const type of ENTITY_TYPES) assert.deepEqual(entities[type], []);
  }
});
