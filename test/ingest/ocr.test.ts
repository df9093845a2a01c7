// OCR through tesseract/pdftoppm children: absence, language fallback, page limit, timeouts and the memory ceiling.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocument } from '../../src/ingest/parse.ts';
import { parseImage } from '../../src/ingest/parsers/image.ts';
import { parsePdf } from '../../src/ingest/parsers/pdf.ts';
import { createContext, resolveParseOptions } from '../../src/ingest/parse-options.ts';
import { resolveBinary, runChild } from '../../src/ingest/ocr.ts';
import { failureOf } from '../helpers/ingest-failure.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const corpusFile = (path: string): Buffer => readFileSync(new URL(path, CORPUS));
const TESSERACT = await resolveBinary('tesseract');
const MISSING = { tesseractPath: '/nonexistent/bin/tesseract' };


test('without tesseract an image fails as "no extractable text" naming OCR as unavailable', async () => {
  const error = await failureOf(parseDocument(corpusFile('images/tika_testOCR.png'), 'scan.png', { ocr: MISSING }));
  assert.equal(error.code, 'no_text');
  assert.match(error.message, /OCR is unavailable/);
});

test('without tesseract the image parser records a legible warning', async () => {
  const options = resolveParseOptions({ ocr: MISSING });
  const context = createContext('scan.png', { extension: 'png', mimeType: 'image/png' }, options);
  const doc = await parseImage(corpusFile('images/tika_testOCR.png'), context);
  assert.equal(doc.ocrUsed, false);
  assert.ok(doc.warnings.some((w) => /tesseract was not found \(\/nonexistent\/bin\/tesseract\)/.test(w)));
});

test('without tesseract an image-only PDF fails legibly; a PDF with a text layer is unaffected', async () => {
  const error = await failureOf(parseDocument(corpusFile('pdf/tika_testOCR.pdf'), 'scan.pdf', { ocr: MISSING }));
  assert.equal(error.code, 'no_text');
  const doc = await parseDocument(corpusFile('pdf/pdfjs_helloworld-bad.pdf'), 'hello.pdf', { ocr: MISSING });
  assert.equal(doc.pages[0]!.text, 'Hello, world!');
  assert.equal(doc.ocrUsed, false);
});

test('disabled OCR behaves like absent OCR', async () => {
  const error = await failureOf(parseDocument(corpusFile('images/tika_testOCR.png'), 'scan.png', { ocr: { enabled: false } }));
  assert.equal(error.code, 'no_text');
});

test('a child past its deadline is killed, not left to finish', async () => {
  // Left alone, sleep would exit by itself 10 s later with code 0 and no signal.
  const outcome = await runChild('/bin/sleep', ['10'], { timeoutMs: 200, memoryLimitBytes: 256 * 1024 * 1024 });
  assert.equal(outcome.timedOut, true);
  assert.equal(outcome.signal, 'SIGKILL');
  assert.equal(outcome.code, null);
});

test("a child's output sent to a file is written whole, and capped at its limit", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-child-output-'));
  try {
    const path = join(dir, 'out.txt');
    const limits = { timeoutMs: 5000, memoryLimitBytes: 256 * 1024 * 1024 };
    const written = await runChild('/bin/echo', ['raster bytes'], { ...limits, stdoutFile: { path, maxFileBytes: 1024 } });
    assert.equal(written.code, 0);
    assert.equal(readFileSync(path, 'utf8'), 'raster bytes\n');
    // A child writing past its cap is stopped by the file size limit (SIGXFSZ), its file cut at the cap.
    const capped = await runChild('/usr/bin/head', ['-c', '100000', '/dev/zero'], { ...limits, stdoutFile: { path, maxFileBytes: 4096 } });
    assert.notEqual(capped.code, 0);
    assert.ok(statSync(path).size <= 4096);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('children get a fixed environment, not the service one', async () => {
  const outcome = await runChild('/usr/bin/env', [], { timeoutMs: 5000, memoryLimitBytes: 256 * 1024 * 1024 });
  const shellAdded = new Set(['PWD', 'SHLVL', '_', 'OLDPWD']);
  const names = outcome.stdout.trim().split('\n').map((line) => line.split('=')[0]!).filter((n) => !shellAdded.has(n)).sort();
  assert.deepEqual(names, ['LC_ALL', 'OMP_THREAD_LIMIT', 'PATH']);
});

test('OCR of a multi-page TIFF honours the page limit (or fails legibly without tesseract)', async () => {
  const run = parseDocument(corpusFile('images/tika_testTIFF_multipage.tif'), 'pages.tif', { ocr: { maxPages: 1 } });
  if (!TESSERACT) {
    assert.equal((await failureOf(run)).code, 'no_text');
    return;
  }
  const doc = await run;
  assert.equal(doc.pages.length, 1);
  assert.match(doc.pages[0]!.text, /Page 1/);
  assert.ok(doc.warnings.some((w) => /OCR stopped after 1 image pages/.test(w)));
});

test('unknown OCR languages are dropped with a warning (or OCR is unavailable without tesseract)', async () => {
  const run = parseDocument(corpusFile('images/tika_testOCR.png'), 'scan.png', { ocr: { languages: 'eng+zzz' } });
  if (!TESSERACT) {
    assert.equal((await failureOf(run)).code, 'no_text');
    return;
  }
  const doc = await run;
  assert.match(doc.pages[0]!.text, /This file contains some words/);
  assert.ok(doc.warnings.some((w) => /not installed and skipped: zzz/.test(w)));
});

test('the memory ceiling applies to OCR children: starved of memory, tesseract fails and the upload reports OCR failure', async () => {
  const run = parseDocument(corpusFile('images/tika_testOCR.png'), 'scan.png', { ocr: { childMemoryLimitBytes: 4 * 1024 * 1024 } });
  const error = await failureOf(run);
  assert.equal(error.code, TESSERACT ? 'ocr_failed' : 'no_text');
  if (TESSERACT) assert.equal(error.transient, true);
});

test('image-only PDF pages left when the OCR time budget runs out are skipped with a warning', async () => {
  const options = resolveParseOptions({ ocr: { totalTimeoutMs: 0 } });
  const context = createContext('scan.pdf', { extension: 'pdf', mimeType: 'application/pdf' }, options);
  const doc = await parsePdf(corpusFile('pdf/pdfjs_issue7229.pdf'), context);
  assert.deepEqual(doc.pages.map((p) => p.text), ['', '']);
  const expected = TESSERACT && (await resolveBinary('pdftoppm')) ? /OCR time budget of 0 ms ran out at page 1/ : /OCR unavailable/;
  assert.ok(doc.warnings.some((w) => expected.test(w)), JSON.stringify(doc.warnings));
});
