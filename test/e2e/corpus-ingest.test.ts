// A sample of the shared corpus that reaches every path of the service (see serviceSample) uploaded through POST
// /embed to the running service: each job ends as expected (completed with text, or failed with its legible
// message), and the service stays up throughout. Every corpus file is parsed and chunked by
// test/ingest/corpus.test.ts.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, api, KEYS, removeDir, uploadFile, waitForJob, untilHealthy } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { CORPUS, EXPECTATIONS, PEAK_RSS_LIMIT_BYTES, TESSERACT, listCorpus } from '../helpers/corpus-expectations.ts';

/** Files the tests below read back by name. */
const NAMED = new Set([
  'docx/msd_malay_Farish_A_Noor_Rekonstruksi_Semula_Sejarah.docx',
  'images/tess_phototest.tif',
  'pdf/msd_malay_Isu_isu_pelaksanaan_kutipan_zakat.pdf',
  'pdf/pdfjs_tracemonkey.pdf',
  'txt/msd_bnm_public_notice_malay.csv',
  'txt/mt940_ASNB_0708271685_09022020_164516.940.txt',
]);

/**
 * Every hostile file, the files read back below, and the first file of each other folder: each format and each
 * way a job fails. Parsing every file again here (OCR included) would repeat test/ingest/corpus.test.ts at
 * several minutes of the suite's CPU.
 */
function serviceSample(files: readonly string[]): string[] {
  const firstOfFolder = new Set<string>();
  const seen = new Set<string>();
  for (const path of files) {
    const folder = path.split('/')[0]!;
    if (!seen.has(folder)) firstOfFolder.add(path);
    seen.add(folder);
  }
  return files.filter((path) => path.startsWith('hostile/') || NAMED.has(path) || firstOfFolder.has(path));
}

const FILES = serviceSample(listCorpus());
const documentIdOf = (path: string) => path.replace(/[^A-Za-z0-9._-]/g, '_');
const jobs = new Map<string, any>();
let server: TestServer;

before(async () => {
  server = await startTestServer({ WORKER_CONCURRENCY: '2', OCR_MAX_PAGES: '2', OCR_PDF_DPI: '150' });
  const accepted = new Map<string, string>();
  for (const path of FILES) {
    const bytes = readFileSync(new URL(path, CORPUS));
    const response = await uploadFile(server.url, KEYS.alpha, { document_id: documentIdOf(path) }, { name: path.split('/').pop()!, bytes });
    assert.equal(response.status, 202, `${path}: ${JSON.stringify(response.json)}`);
    accepted.set(path, response.json.job_id);
  }
  for (const [path, jobId] of accepted) jobs.set(path, await waitForJob(server.url, KEYS.alpha, jobId, { timeoutMs: 400_000 }));
});

after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

test('every corpus file ends with its expected job outcome', () => {
  const problems: string[] = [];
  for (const path of FILES) {
    const expected = EXPECTATIONS[path];
    const job = jobs.get(path);
    if (!expected) {
      problems.push(`${path}: no expectation`);
      continue;
    }
    if (expected.status === 'completed') {
      if (job.status !== 'completed' || !(job.chunks_created > 0)) problems.push(`${path}: expected completed, got ${job.status} ${job.error ?? ''}`);
    } else if (job.status !== 'failed') {
      problems.push(`${path}: expected failed (${expected.code}), got ${job.status}`);
    } else if (typeof job.error !== 'string' || job.error.length < 10 || (expected.message && !expected.message.test(job.error))) {
      problems.push(`${path}: unexpected error "${job.error}"`);
    }
  }
  assert.deepEqual(problems, []);
});

test('hostile files fail with distinct legible messages, and the service stays up', async () => {
  const archive = jobs.get('hostile/zb_zbsm.zip').error;
  const malformed = jobs.get('hostile/poi_xlsx-corrupted.xlsx').error;
  const nodeSize = jobs.get('hostile/poi_poc-shared-strings.xlsx').error;
  const generic = jobs.get('hostile/poi_truncated62886.docx').error;
  assert.match(archive, /decompression guard/);
  assert.match(malformed, /Malformed XML/);
  assert.match(nodeSize, /XML node size limit/);
  assert.equal(new Set([archive, malformed, nodeSize, generic]).size, 4);
  const health = await untilHealthy(server.url);
  assert.equal(health.status, 200, health.text);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  assert.ok(peakRss < PEAK_RSS_LIMIT_BYTES, `peak RSS ${Math.round(peakRss / 1048576)} MiB`);
});

test('Malay documents are searchable by their own words', async () => {
  const zakat = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'pelaksanaan kutipan zakat pendapatan', limit: 3 } });
  assert.equal(zakat.json.results[0].document_version.document_id, documentIdOf('pdf/msd_malay_Isu_isu_pelaksanaan_kutipan_zakat.pdf'));
  const essay = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'Rekonstruksi Semula Sejarah Farish', limit: 3 } });
  assert.equal(essay.json.results[0].document_version.document_id, documentIdOf('docx/msd_malay_Farish_A_Noor_Rekonstruksi_Semula_Sejarah.docx'));
});

test('a multi-page PDF keeps page numbers on its chunks and evidence', async () => {
  const id = documentIdOf('pdf/pdfjs_tracemonkey.pdf');
  const text = await api(server.url, `/document/${id}/text`, { key: KEYS.alpha });
  assert.equal(text.json.metadata.document.page_count, 14);
  const pages = new Set(text.json.chunks.map((chunk: any) => chunk.page));
  assert.ok(pages.has(1) && pages.has(2) && pages.has(14));
  const onPage2 = text.json.chunks.filter((chunk: any) => chunk.page === 2).map((chunk: any) => chunk.text).join(' ');
  assert.match(onPage2, /recording and compiling a trace speculates/);
  const search = await api(server.url, '/search', {
    key: KEYS.alpha,
    body: { query: 'recording and compiling a trace speculates', filters: { document_id: id, 'location.page_number': 2 } },
  });
  assert.equal(search.json.results[0].content_evidence.items[0].page, 2);
});

test('OCR text from a scanned image is indexed and marked as OCR (or fails legibly without tesseract)', async () => {
  const id = documentIdOf('images/tess_phototest.tif');
  if (!TESSERACT) {
    // Without the OCR engine the upload ends failed with a legible reason (the expectation table checks it).
    assert.equal(jobs.get('images/tess_phototest.tif').status, 'failed');
    assert.match(jobs.get('images/tess_phototest.tif').error, /OCR is unavailable/);
    return;
  }
  const text = await api(server.url, `/document/${id}/text`, { key: KEYS.alpha });
  assert.equal(text.json.metadata.quality.text_extraction, 'ocr');
  assert.equal(text.json.metadata.quality.ocr_used, true);
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'quick brown dog jumped', filters: { 'quality.ocr_used': true } } });
  assert.ok(search.json.results.some((row: any) => row.document_version.document_id === id));
});

test('entities and classification come out of real statements and notices', async () => {
  const mt940 = jobs.get('txt/mt940_ASNB_0708271685_09022020_164516.940.txt');
  assert.ok(mt940.entities_extracted.account_numbers.length > 0);
  assert.ok(mt940.entities_extracted.dates.length > 0);
  assert.ok(mt940.categories.includes('bank_statement'));
  const notices = jobs.get('txt/msd_bnm_public_notice_malay.csv');
  assert.ok(notices.entities_extracted.organizations.some((org: string) => /Bank Negara Malaysia/i.test(org)));
  assert.equal(notices.classification_status, 'completed');
  const filtered = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'NL81ASNB9999999999', filters: { 'classification.categories': 'bank_statement' } } });
  assert.ok(filtered.json.results.some((row: any) => row.document_version.document_id === documentIdOf('txt/mt940_ASNB_0708271685_09022020_164516.940.txt')));
});
