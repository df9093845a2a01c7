// Spreadsheets through the running service: a workbook is a page per sheet, so a hit names its sheet in
// canonical_metadata.location (page_number = the sheet's position, page_label = its name), a filter on
// location.page_label keeps one sheet's hits, and document.page_count counts the workbook's sheets. Real corpus
// workbooks: a small one of three sheets and a 30-sheet financial record layout.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, api, KEYS, uploadFile, waitForJob } from '../helpers/server.ts';

const MULTI = { id: 'multi-sheet', path: '../shared/corpus/xlsx/poi_55906-MultiSheetRefs.xlsx' };
const KYC = { id: 'kyc-layout', path: '../shared/corpus/xlsx/tika_CVLKRA-KYC_Download_File_Structure_V3.1.xlsx' };

const server = useTestServer({}, async (started) => {
  for (const file of [MULTI, KYC]) {
    const upload = await uploadFile(started.url, KEYS.alpha, { document_id: file.id }, { name: file.path.split('/').pop()!, bytes: readFileSync(file.path) });
    assert.equal(upload.status, 202, JSON.stringify(upload.json));
    const job = await waitForJob(started.url, KEYS.alpha, upload.json.job_id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
  }
});

async function search(query: string, filters: Record<string, unknown> = {}) {
  const answer = await api(server.url, '/search', { key: KEYS.alpha, body: { query, scope: 'content', alpha: 0, filters } });
  assert.equal(answer.status, 200, JSON.stringify(answer.json));
  return answer.json.results as any[];
}

test('a hit on a workbook names its sheet: page_number is its position, page_label its name; page_count counts the sheets', async () => {
  const [hit] = (await search('Middle', { document_id: MULTI.id }));
  assert.ok(hit, 'the second sheet is found');
  assert.deepEqual(hit.canonical_metadata.location, { page_number: 2, page_label: 'Sheet2', chunk_index: hit.canonical_metadata.location.chunk_index });
  assert.equal(hit.content_evidence.items[0].page, 2);
  assert.match(hit.content_evidence.items[0].text, /Middle!/);
  assert.doesNotMatch(hit.content_evidence.items[0].text, /Hello!|Bye!/, 'a chunk never spans two sheets');
  assert.equal(hit.canonical_metadata.document.page_count, 3);

  const [kyc] = await search('Income Slab', { document_id: KYC.id });
  assert.equal(kyc.canonical_metadata.location.page_label, 'Income Slab');
  assert.equal(kyc.canonical_metadata.document.page_count, 30);
});

test('a filter on location.page_label keeps the hits of one sheet', async () => {
  const everywhere = await search('Sh1 Sh2 Sh3', { document_id: MULTI.id });
  assert.equal(everywhere.length, 1, 'one Evidence Result per version');
  const pages = new Set(everywhere[0].content_evidence.items.map((item: any) => item.page));
  assert.ok(pages.size > 1, `evidence from several sheets: ${[...pages]}`);

  const third = await search('Sh1 Sh2 Sh3', { document_id: MULTI.id, 'location.page_label': 'Sheet3' });
  assert.equal(third.length, 1);
  assert.equal(third[0].canonical_metadata.location.page_label, 'Sheet3');
  assert.deepEqual(third[0].content_evidence.items.map((item: any) => item.page), [3]);
  assert.match(third[0].content_evidence.items[0].text, /Bye!/);

  // A sheet name the workbook has not, or one of another workbook: nothing.
  assert.deepEqual(await search('Sh1 Sh2 Sh3', { document_id: MULTI.id, 'location.page_label': 'Income Slab' }), []);
  const kycOnly = await search('Code Description', { 'location.page_label': ['Gender', 'Marital Status'] });
  assert.deepEqual(kycOnly.map((row) => row.document_version.document_id), [KYC.id]);
  assert.ok(['Gender', 'Marital Status'].includes(kycOnly[0].canonical_metadata.location.page_label));
});

test('the text route gives each sheet\'s chunks their page, in sheet order', async () => {
  const text = await api(server.url, `/document/${MULTI.id}/text`, { key: KEYS.alpha });
  assert.equal(text.status, 200);
  assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.page), [1, 2, 3]);
  assert.match(text.json.chunks[0].text, /^Sheet1\n\n/);
});
