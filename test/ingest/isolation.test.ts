// Isolated parsing in a child process: errors keep their code across the boundary; timeouts, OOM and OCR children are
// contained, and none of them ends the process that asked.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDocumentIsolated } from '../../src/ingest/parse.ts';
import { idleParseProcesses, PARSES_PER_PROCESS } from '../../src/ingest/parse-isolated.ts';
import { resolveBinary } from '../../src/ingest/ocr.ts';
import { failureOf } from '../helpers/ingest-failure.ts';
import { BOMB_LIMIT_MS } from '../helpers/corpus-expectations.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const corpusFile = (path: string): Buffer => readFileSync(new URL(path, CORPUS));
const TESSERACT = await resolveBinary('tesseract');


function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a document parsed in a child process comes back whole', async () => {
  const doc = await parseDocumentIsolated(corpusFile('pdf/pdfjs_tracemonkey.pdf'), 'tracemonkey.pdf');
  assert.equal(doc.pageCount, 14);
  assert.match(doc.pages[1]!.text, /Hence, recording and compiling a trace speculates/);
});

test('an IngestError keeps its code, message and transience across the process boundary', async () => {
  const started = performance.now();
  const error = await failureOf(parseDocumentIsolated(corpusFile('hostile/zb_zbsm.zip'), 'zbsm.zip'));
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, /^Archive rejected by the decompression guard: entries overlap/);
  assert.equal(error.transient, false);
  // About 80-100 ms on an idle machine, worker start-up included; inflating the bomb would take hours. The bound
  // (BOMB_LIMIT_MS, 40 times the normal time) only catches that runaway.
  assert.ok(performance.now() - started < BOMB_LIMIT_MS, `the bomb was rejected in ${Math.round(performance.now() - started)} ms`);
});

test('a parse past its deadline is stopped with parse_timeout', async () => {
  const error = await failureOf(parseDocumentIsolated(corpusFile('pdf/pdfminer_i1040nr.pdf'), 'i1040nr.pdf', { timeoutMs: 50 }));
  assert.equal(error.code, 'parse_timeout');
});

test('a parse that outgrows its heap ends as parse_out_of_memory while the same limit parses a small file', async () => {
  const small = await parseDocumentIsolated(corpusFile('txt/tika_testMARKDOWN.md'), 'small.md', { maxHeapMb: 16 });
  assert.equal(small.extension, 'md');
  const error = await failureOf(parseDocumentIsolated(corpusFile('pdf/pdfjs_freeculture.pdf'), 'freeculture.pdf', { maxHeapMb: 16 }));
  assert.equal(error.code, 'parse_out_of_memory');
});

test('OCR children of a timed-out parse are killed, not orphaned, and its scratch files are removed', async () => {
  const started: number[] = [];
  const scratchParent = mkdtempSync(join(tmpdir(), 'isolation-test-'));
  const onChildProcess = (pid: number, running: boolean): void => {
    if (running) started.push(pid);
  };
  try {
    const run = parseDocumentIsolated(corpusFile('pdf/pdfjs_issue7229.pdf'), 'scan.pdf', { timeoutMs: 5000, ocr: { onChildProcess, tempDir: scratchParent } });
    if (!TESSERACT) {
      assert.equal((await failureOf(run)).code, 'no_text');
      return;
    }
    assert.equal((await failureOf(run)).code, 'parse_timeout');
    assert.ok(started.length > 0, 'an OCR child should have been started before the deadline');
    assert.deepEqual(started.filter(isAlive), []);
    assert.deepEqual(readdirSync(scratchParent), [], 'no copy of the document is left behind');
  } finally {
    rmSync(scratchParent, { recursive: true, force: true });
  }
});

test('a missing temporary directory is a transient failure', async () => {
  const error = await failureOf(parseDocumentIsolated(corpusFile('txt/tika_testMARKDOWN.md'), 'a.md', { ocr: { tempDir: '/nonexistent/tmp' } }));
  assert.equal(error.code, 'temp_unavailable');
  assert.equal(error.transient, true);
});

test('a child whose parse ended well takes the next upload; one whose parse failed or crashed is never reused', async () => {
  const heap = { maxHeapMb: 333 }; // a heap size of this test's own, so its children are apart from the other tests'
  const text = corpusFile('txt/tika_testMARKDOWN.md');
  await parseDocumentIsolated(text, 'a.md', heap);
  assert.equal(idleParseProcesses(heap.maxHeapMb), 1, 'the child waits for the next upload');
  await parseDocumentIsolated(text, 'b.md', heap);
  assert.equal(idleParseProcesses(heap.maxHeapMb), 1, 'the same child took it and waits again');
  assert.equal((await failureOf(parseDocumentIsolated(corpusFile('hostile/zb_zbsm.zip'), 'zbsm.zip', heap))).code, 'archive_rejected');
  assert.equal(idleParseProcesses(heap.maxHeapMb), 0, 'the child that met a refused file was ended, not kept');
  assert.equal((await failureOf(parseDocumentIsolated(corpusFile('pdf/pdfminer_i1040nr.pdf'), 'i1040nr.pdf', { ...heap, timeoutMs: 50 }))).code, 'parse_timeout');
  assert.equal(idleParseProcesses(heap.maxHeapMb), 0, 'nor one that ran out of time');
  for (let parse = 0; parse < PARSES_PER_PROCESS + 1; parse++) await parseDocumentIsolated(text, 'c.md', heap);
  assert.equal(idleParseProcesses(heap.maxHeapMb), 1, `a child ends after ${PARSES_PER_PROCESS} parses and a fresh one takes over`);
});
