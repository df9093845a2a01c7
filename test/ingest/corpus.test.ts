// Every file of the shared corpus through isolated parsing, each against its expected outcome, within memory and time.
// The directory is listed at test time: a new corpus file without an expectation fails this test.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDocumentIsolated } from '../../src/ingest/parse.ts';
import { parseChildPeakRssBytes } from '../../src/ingest/parse-isolated.ts';
import { IngestError } from '../../src/ingest/parsed-document.ts';
import type { ParsedDocument } from '../../src/ingest/parsed-document.ts';
import { parsePdf } from '../../src/ingest/parsers/pdf.ts';
import { chunkPages } from '../../src/ingest/chunk.ts';
import { createContext, resolveParseOptions } from '../../src/ingest/parse-options.ts';
import { CONCURRENCY, CORPUS, EXPECTATIONS, PEAK_RSS_LIMIT_BYTES, listCorpus } from '../helpers/corpus-expectations.ts';
import type { Completed, Failed } from '../helpers/corpus-expectations.ts';


type Outcome = { doc: ParsedDocument; error: null; ms: number } | { doc: null; error: unknown; ms: number };


const FILES = listCorpus();
const outcomes = new Map<string, Outcome>();
let corpusMs = 0;

async function parseOne(path: string): Promise<Outcome> {
  const bytes = readFileSync(new URL(path, CORPUS));
  const started = performance.now();
  try {
    const doc = await parseDocumentIsolated(bytes, path.split('/').pop()!, EXPECTATIONS[path]?.options ?? {});
    return { doc, error: null, ms: performance.now() - started };
  } catch (error) {
    return { doc: null, error, ms: performance.now() - started };
  }
}

before(async () => {
  const started = performance.now();
  const queue = [...FILES];
  const runners = Array.from({ length: CONCURRENCY }, async () => {
    for (let path = queue.shift(); path !== undefined; path = queue.shift()) outcomes.set(path, await parseOne(path));
  });
  await Promise.all(runners);
  corpusMs = performance.now() - started;
});

function textOf(doc: ParsedDocument): string {
  return doc.pages.map((page) => page.text).join('\n\n');
}

function checkCompleted(path: string, outcome: Outcome, expected: Completed): void {
  assert.equal(outcome.error, null, `${path} failed: ${outcome.error instanceof Error ? `${(outcome.error as IngestError).code} ${outcome.error.message}` : ''}`);
  const doc = outcome.doc!;
  const text = textOf(doc);
  assert.equal(doc.extension, expected.extension);
  assert.ok(text.trim().length >= expected.minChars, `${path}: ${text.trim().length} chars < ${expected.minChars}`);
  for (const phrase of expected.phrases ?? []) {
    if (typeof phrase === 'string') assert.ok(text.includes(phrase), `${path}: missing "${phrase}"`);
    else assert.match(text, phrase);
  }
  if (expected.pageCount !== undefined) assert.equal(doc.pageCount, expected.pageCount);
  if (expected.extraction) assert.equal(doc.textExtraction, expected.extraction);
  if (expected.ocrUsed !== undefined) assert.equal(doc.ocrUsed, expected.ocrUsed);
  if (expected.warning) assert.ok(doc.warnings.some((w) => expected.warning!.test(w)), `${path}: warnings ${JSON.stringify(doc.warnings)}`);
  expected.check?.(doc);
}

function checkFailed(path: string, outcome: Outcome, expected: Failed): void {
  assert.ok(outcome.error instanceof IngestError, `${path} should fail with ${expected.code}, got ${outcome.doc ? 'a document' : String(outcome.error)}`);
  assert.equal(outcome.error.code, expected.code, `${path}: ${outcome.error.message}`);
  if (expected.message) assert.match(outcome.error.message, expected.message);
}

test('every corpus file has an expectation and every expectation a file', () => {
  assert.deepEqual(FILES.filter((path) => !(path in EXPECTATIONS)), [], 'corpus files without an expectation');
  assert.deepEqual(Object.keys(EXPECTATIONS).filter((path) => !FILES.includes(path)), [], 'expectations without a corpus file');
});

// The corpus's wall time is shown, not bounded: a runaway parse is stopped by its own deadline (parse_timeout) and
// fails its file's expectation, and the bombs have their own bounds (BOMB_LIMIT_MS).
// Parses run in child processes: the bound holds for this process and for the largest parse child.
test('the whole corpus parses in bounded memory, none crashing', (t) => {
  const peakRss = process.resourceUsage().maxRSS * 1024;
  const childPeakRss = parseChildPeakRssBytes();
  const counts: Record<string, number> = {};
  for (const outcome of outcomes.values()) {
    const key = outcome.error instanceof IngestError ? `failed:${outcome.error.code}` : outcome.error ? 'crashed' : 'completed';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  const slowest = [...outcomes.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 3).map(([p, o]) => `${p} ${Math.round(o.ms)} ms`);
  const bomb = outcomes.get('hostile/zb_zbsm.zip');
  t.diagnostic(`zbsm.zip rejected in ${Math.round(bomb?.ms ?? -1)} ms (isolated, worker start-up included)`);
  t.diagnostic(`corpus: ${FILES.length} files in ${Math.round(corpusMs)} ms, peak RSS ${Math.round(peakRss / 1048576)} MiB (largest parse child ${Math.round(childPeakRss / 1048576)} MiB), ${JSON.stringify(counts)}, slowest ${slowest.join('; ')}`);
  assert.ok(peakRss < PEAK_RSS_LIMIT_BYTES, `peak RSS ${peakRss} bytes`);
  assert.ok(childPeakRss > 0 && childPeakRss < PEAK_RSS_LIMIT_BYTES, `largest parse child's peak RSS ${childPeakRss} bytes`);
  assert.equal(counts.crashed ?? 0, 0);
});

// The worker's next step on each parsed document (the e2e corpus test sends only a sample through the service):
// every completed file chunks, each chunk non-empty and on a page the document has, in document order (a page
// without a number, where a document has one, comes last).
test('every completed corpus document chunks, each chunk on one of its pages', () => {
  const problems: string[] = [];
  for (const [path, outcome] of outcomes) {
    const doc = outcome.doc;
    if (!doc || doc.pages.every((page) => page.text.trim() === '')) continue;
    const chunks = chunkPages(doc.pages);
    const pages = new Set(doc.pages.map((page) => page.pageNumber));
    if (chunks.length === 0) problems.push(`${path}: no chunk`);
    chunks.forEach((chunk, index) => {
      if (chunk.chunkIndex !== index || chunk.text.trim() === '' || !pages.has(chunk.page)) problems.push(`${path}: chunk ${index} ${JSON.stringify(chunk).slice(0, 120)}`);
      // A PDF's attachments and form text come after its pages as one page without a number (page null).
      const previous = index > 0 ? chunks[index - 1]!.page : null;
      if (chunk.page !== null && (previous === null ? index > 0 : chunk.page < previous)) problems.push(`${path}: chunk ${index} goes back to page ${chunk.page}`);
    });
  }
  assert.deepEqual(problems, []);
  assert.ok(outcomes.size > 100);
});

test('page labels of a labelled PDF are kept per page (blank pages, so read through the PDF parser itself)', async () => {
  const context = createContext('labelled.pdf', { extension: 'pdf', mimeType: 'application/pdf' }, resolveParseOptions({ ocr: { enabled: false } }));
  const doc = await parsePdf(readFileSync(new URL('pdf/pdfjs_labelled_pages.pdf', CORPUS)), context);
  assert.equal(doc.pageCount, 11);
  assert.deepEqual(doc.pages.map((p) => p.pageLabel), ['i', 'ii', 'iii', 'iv', '1', '2', '3', 'a', 'b', '4', '5']);
  assert.deepEqual(doc.pages.map((p) => p.pageNumber), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

for (const path of FILES) {
  test(`corpus: ${path}`, () => {
    const expected = EXPECTATIONS[path];
    assert.ok(expected, `no expectation for ${path}: add one to EXPECTATIONS`);
    const outcome = outcomes.get(path)!;
    if (expected.status === 'completed') checkCompleted(path, outcome, expected);
    else checkFailed(path, outcome, expected);
    if (expected.maxMs !== undefined) assert.ok(outcome.ms < expected.maxMs, `${path} took ${Math.round(outcome.ms)} ms (limit ${expected.maxMs})`);
  });
}
