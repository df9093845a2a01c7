// Spreadsheets through the running service: a workbook is a page per sheet, so a hit names its sheet in
// canonical_metadata.location (page_number = the sheet's position, page_label = its name), a filter on
// location.page_label keeps one sheet's hits, and document.page_count counts the workbook's sheets. Real corpus
// workbooks: a small one of three sheets and a 30-sheet financial record layout. Each evidence item and text chunk
// of a sheet or a CSV file names the rows it holds (`rows`, an extension); one of a text file has none.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, api, KEYS, uploadFile, waitForJob } from '../helpers/server.ts';

const MULTI = { id: 'multi-sheet', path: '../shared/corpus/xlsx/poi_55906-MultiSheetRefs.xlsx' };
const KYC = { id: 'kyc-layout', path: '../shared/corpus/xlsx/tika_CVLKRA-KYC_Download_File_Structure_V3.1.xlsx' };
const COLUMNAR = { id: 'columnar-csv', path: '../shared/corpus/txt/tika_test-columnar.csv' };
const MARKDOWN = { id: 'markdown-note', path: '../shared/corpus/txt/tika_testMARKDOWN.md' };

const server = useTestServer({}, async (started) => {
  for (const file of [MULTI, KYC, COLUMNAR, MARKDOWN]) {
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

test('a hit on a sheet names the rows its chunk holds, counting the empty rows; a text route chunk the same', async () => {
  // Sheet1 of the workbook has text in rows 1, 3, 4, 5 and 6 (row 2 is empty): its chunk holds rows 1 to 6.
  const [first] = await search('Sh1 Sh2 Sh3', { document_id: MULTI.id, 'location.page_label': 'Sheet1' });
  assert.deepEqual(first.content_evidence.items.map((item: any) => item.rows), [{ first: 1, last: 6 }]);
  assert.deepEqual(Object.keys(first.canonical_metadata.location).sort(), ['chunk_index', 'page_label', 'page_number'], 'location keeps its SPEC keys');
  const [middle] = await search('Middle', { document_id: MULTI.id });
  assert.deepEqual(middle.content_evidence.items[0].rows, { first: 1, last: 1 });

  const text = await api(server.url, `/document/${MULTI.id}/text`, { key: KEYS.alpha });
  assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.rows), [{ first: 1, last: 6 }, { first: 1, last: 1 }, { first: 1, last: 1 }]);
  // Each text chunk names its page as the hit's location does (page_label, an extension): the sheet's name.
  assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.page_label), ['Sheet1', 'Sheet2', 'Sheet3']);
});

test('a hit on a CSV file names its records as rows; a hit on a text file has no rows', async () => {
  const [csv] = await search('Square of the Record Number', { document_id: COLUMNAR.id });
  assert.ok(csv, 'the CSV file is found');
  assert.deepEqual(csv.content_evidence.items.map((item: any) => item.rows), [{ first: 1, last: 12 }], 'its 12 records, the header being row 1');
  const [markdown] = await search('bold italic struck', { document_id: MARKDOWN.id });
  assert.ok(markdown, 'the Markdown file is found');
  assert.ok(markdown.content_evidence.items.every((item: any) => !('rows' in item)), JSON.stringify(markdown.content_evidence.items[0]));
  const text = await api(server.url, `/document/${MARKDOWN.id}/text`, { key: KEYS.alpha });
  assert.ok(text.json.chunks.every((chunk: any) => !('rows' in chunk)));
  assert.ok(text.json.chunks.every((chunk: any) => !('page_label' in chunk)), 'a pageless chunk has no page label');
});

test('POST /similar gives its evidence items the rows of their chunks', async () => {
  const similar = await api(server.url, '/similar', { key: KEYS.alpha, body: { document_id: KYC.id, limit: 5 } });
  assert.equal(similar.status, 200, JSON.stringify(similar.json));
  assert.ok(similar.json.results.length > 0);
  for (const row of similar.json.results) {
    const spreadsheet = row.document_version.document_id !== MARKDOWN.id;
    for (const item of row.content_evidence.items) assert.equal(item.rows !== undefined && item.rows.first <= item.rows.last, spreadsheet, JSON.stringify(item));
  }
});
