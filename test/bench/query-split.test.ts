// bench/query-split.ts: the development / held-out split of judged queries that synonym sets are chosen and
// measured on. It must be fixed by ids alone, keep every question on one passage in one half, and lose none.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { DEV_BYTE_LIMIT, groupHalf, queryGroup, selectHalf } from '../../bench/query-split.ts';
import type { Dataset } from '../../bench/datasets.ts';

function judged(...documentIds: string[]): Map<string, number> {
  return new Map(documentIds.map((id) => [id, 1]));
}

function datasetOf(qrels: Map<string, Map<string, number>>): Dataset {
  const documents = [...new Set([...qrels.values()].flatMap((relevant) => [...relevant.keys()]))].map((id) => ({ id, title: '', text: id }));
  return { name: 'split', documents, queries: new Map([...qrels.keys()].map((id) => [id, `question ${id}`])), qrels };
}

test('a group goes to dev exactly when the first byte of its SHA-256 is below DEV_BYTE_LIMIT', () => {
  for (const group of ['squad-0-0', 'squad-0-2', 'p1', 'p2', 'passage-with-a-long-id', 'ünïcödé']) {
    const firstByte = createHash('sha256').update(group, 'utf8').digest()[0];
    assert.equal(groupHalf(group), firstByte < DEV_BYTE_LIMIT ? 'dev' : 'heldout', group);
  }
  // Fixed values: a change to the rule shows here, not only as moved figures.
  assert.equal(groupHalf('squad-0-0'), 'dev');
  assert.equal(groupHalf('squad-0-2'), 'heldout');
});

test('a query is grouped by its smallest judged passage, or by itself when it has none', () => {
  assert.equal(queryGroup('q1', judged('p9', 'p2', 'p5')), 'p2');
  assert.equal(queryGroup('q1', judged('p3')), 'p3');
  assert.equal(queryGroup('q-alone', new Map()), 'q-alone');
});

test('the two halves partition the judged queries, questions on one passage stay together, documents are kept', () => {
  const qrels = new Map<string, Map<string, number>>();
  for (let passage = 0; passage < 40; passage++) {
    for (let question = 0; question < 3; question++) qrels.set(`doc-${passage}-q${question}`, judged(`doc-${passage}`));
  }
  const dataset = datasetOf(qrels);
  const dev = selectHalf(dataset, 'dev');
  const heldout = selectHalf(dataset, 'heldout');
  assert.ok(dev.qrels.size > 0 && heldout.qrels.size > 0, 'both halves hold questions');
  assert.equal(dev.qrels.size + heldout.qrels.size, qrels.size);
  for (const queryId of dev.qrels.keys()) assert.ok(!heldout.qrels.has(queryId), queryId);
  for (const [half, selected] of [['dev', dev], ['heldout', heldout]] as const) {
    for (const [queryId, relevant] of selected.qrels) {
      assert.equal(groupHalf(queryGroup(queryId, relevant)), half, queryId);
      for (const sibling of [0, 1, 2].map((question) => `${[...relevant.keys()][0]}-q${question}`)) assert.ok(selected.qrels.has(sibling), sibling);
    }
    assert.deepEqual(selected.documents, dataset.documents, 'every passage stays searchable');
    assert.equal(selected.queries, dataset.queries);
  }
});
