// The worker's lanes thread builds exactly the lane data and manifest the inline builder does, for several
// documents in flight at once, and is replaced after it is closed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inlineLanesBuilder, LanesThread } from '../../src/jobs/threaded-lanes.ts';
import { decodeLanes } from '../../src/codec/lanes-encoding.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { extractEntities } from '../../src/ingest/entities/extract.ts';
import type { MetadataLeaf } from '../../src/domain/generation.ts';

const embedder = createHashingEmbedder();
const DOCUMENTS = [
  ['Penyata akaun simpanan bulan Mac.', 'Faedah dikreditkan ke akaun.'],
  ['Invoice INV-1007 for consulting services, due 30 April 2024.', 'Payment by bank transfer to account 0012345.'],
  ['Surat pemberitahuan kenaikan kadar sewa.'],
];

async function inputs(texts: string[], index: number) {
  const vectors = await embedder.embed(texts);
  const chunks = texts.map((text, chunkIndex) => ({ chunkIndex, page: null, pageLabel: null, text, vector: vectors[chunkIndex], language: null }));
  const leaves: MetadataLeaf[] = [{ path: ['doc_type'], value: `type-${index}`, valueType: 'string' }];
  return { ref: { documentId: `d${index}`, versionId: null, jobId: `job-${index}` }, chunks, leaves, title: `Title ${index}` };
}

test('the lanes thread builds what the inline builder builds, several documents at once, and starts again after close', async () => {
  const thread = new LanesThread();
  try {
    const all = await Promise.all(DOCUMENTS.map(inputs));
    const threaded = await Promise.all(all.map(({ ref, chunks, leaves, title }) => thread.build(ref, chunks, leaves, title)));
    for (const [i, { ref, chunks, leaves, title }] of all.entries()) {
      const inline = await inlineLanesBuilder(ref, chunks, leaves, title);
      assert.deepEqual(threaded[i].lanes, inline.lanes, `lanes of document ${i}`);
      assert.deepEqual(threaded[i].manifest, inline.manifest, `manifest of document ${i}`);
      assert.equal(decodeLanes(threaded[i].lanes).chunkCount, DOCUMENTS[i].length);
    }
    await thread.close();
    const again = await thread.build(all[0].ref, all[0].chunks, all[0].leaves, all[0].title);
    assert.deepEqual(again.lanes, threaded[0].lanes, 'a closed thread is replaced on next use');
  } finally {
    await thread.close();
  }
});

test("the lanes thread extracts each chunk's entities exactly as the inline extractor does, beside lane builds", async () => {
  const thread = new LanesThread();
  try {
    const all = await Promise.all(DOCUMENTS.map(inputs));
    const [entities] = await Promise.all([
      Promise.all(DOCUMENTS.map((texts) => thread.extractEntities(texts))),
      Promise.all(all.map(({ ref, chunks, leaves, title }) => thread.build(ref, chunks, leaves, title))),
    ]);
    assert.deepEqual(entities, DOCUMENTS.map((texts) => texts.map((text) => extractEntities(text))));
    assert.ok(entities[1][0].transaction_refs.length > 0 && entities[1][0].dates.length > 0, 'the invoice chunk has entities to compare');
  } finally {
    await thread.close();
  }
});
