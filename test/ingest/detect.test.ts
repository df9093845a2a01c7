// Format detection by content: signatures win over names, deliberate outcomes for every mismatch.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import CFB from 'cfb';
import { readFileSync } from 'node:fs';
import { appleSingleDataFork, detectFormat, extensionOf } from '../../src/ingest/detect.ts';
import { parseDocument } from '../../src/ingest/parse.ts';
import { IngestError } from '../../src/ingest/parsed-document.ts';
import { buildDocx, wordDocumentXml } from './zip-builder.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const corpusFile = (path: string): Buffer => readFileSync(new URL(path, CORPUS));

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof IngestError);
    return error.code;
  }
  return 'none';
}

test('extensions are read case-insensitively from the last dot of the base name', () => {
  assert.equal(extensionOf('dir.v2/Report.PDF'), 'pdf');
  assert.equal(extensionOf('statement.940.txt'), 'txt');
  assert.equal(extensionOf('.hidden'), '');
  assert.equal(extensionOf('README'), '');
});

test('a PDF under a name that promises another format fails as a mismatch; a name that promises none leaves it a PDF', () => {
  const bytes = corpusFile('pdf/pdfjs_helloworld-bad.pdf');
  for (const name of ['notes.txt', 'notes.docx', 'notes.png', 'notes.html', 'notes.csv']) {
    assert.equal(codeOf(() => detectFormat(bytes, name)), 'format_mismatch', name);
  }
  assert.match(String((() => { try { detectFormat(bytes, 'notes.txt'); } catch (error) { return (error as Error).message; } })()), /named \.txt but contains a PDF document/);
  for (const name of ['notes.pdf', 'NOTES.PDF', 'notes', 'notes.bin', 'statement 01.2024']) {
    assert.equal(detectFormat(bytes, name).kind, 'pdf', name);
  }
});

test('a PDF behind a print-ticket header is found and sliced at its header', () => {
  const detection = detectFormat(corpusFile('hostile/tika_test-pdf-with-print-ticket-header.pdf'), 'ticket.pdf');
  assert.equal(detection.kind, 'pdf');
  assert.equal(detection.bytes.subarray(0, 5).toString('latin1'), '%PDF-');
});

test('"%PDF-" mentioned inside a text file does not make it a PDF', () => {
  const text = Buffer.from('Notes on headers: every file starts with %PDF-1.7 and more prose follows.\n'.repeat(3));
  assert.equal(detectFormat(text, 'notes.md').kind, 'text');
});

test('an AppleSingle container is unwrapped to its data fork', () => {
  const bytes = corpusFile('hostile/tika_testAppleSingleFile.pdf');
  const fork = appleSingleDataFork(bytes);
  assert.ok(fork);
  assert.equal(fork.subarray(0, 5).toString('latin1'), '%PDF-');
  const detection = detectFormat(bytes, 'apple.pdf');
  assert.equal(detection.kind, 'pdf');
  assert.ok(detection.warnings.some((w) => /AppleSingle/.test(w)));
});

test('plain text named like a binary format fails as a mismatch; under a text name it is text', () => {
  const bytes = corpusFile('hostile/tika_file1_text_named.pdf');
  assert.equal(codeOf(() => detectFormat(bytes, 'file1.pdf')), 'format_mismatch');
  assert.equal(codeOf(() => detectFormat(bytes, 'file1.docx')), 'format_mismatch');
  assert.equal(detectFormat(bytes, 'file1.txt').kind, 'text');
  assert.equal(detectFormat(bytes, 'file1').kind, 'text');
});

test('an OLE2 compound file is told apart by its streams: encrypted OOXML, legacy .doc, .xls and .ppt, or none of them', () => {
  assert.equal(codeOf(() => detectFormat(corpusFile('hostile/poi_protected_agile.docx'), 'secret.docx')), 'encrypted');
  for (const [file, extension, mimeType] of [
    ['legacy/tika_testWORD.doc', 'doc', 'application/msword'],
    ['legacy/tika_testEXCEL.xls', 'xls', 'application/vnd.ms-excel'],
    ['legacy/tika_testPPT.ppt', 'ppt', 'application/vnd.ms-powerpoint'],
  ] as const) {
    const detection = detectFormat(corpusFile(file), file);
    assert.deepEqual([detection.kind, detection.extension, detection.mimeType], ['legacy', extension, mimeType]);
  }
  // Templates and shows share their kind's name; a file without an extension is taken for what it holds.
  assert.equal(detectFormat(corpusFile('legacy/tika_testWORD.doc'), 'letter.dot').extension, 'doc');
  assert.equal(detectFormat(corpusFile('legacy/tika_testPPT.ppt'), 'deck').extension, 'ppt');
  // A compound file holding none of the three content streams (built here with the same CFB library).
  const other = CFB.utils.cfb_new();
  CFB.utils.cfb_add(other, 'Contents', Buffer.from('not a document'));
  assert.equal(codeOf(() => detectFormat(Buffer.from(CFB.write(other, { type: 'buffer' }) as Uint8Array), 'thing.doc')), 'unsupported_format');
  // The OLE2 signature with no readable directory behind it.
  const damaged = Buffer.alloc(1024);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(damaged);
  assert.equal(codeOf(() => detectFormat(damaged, 'old.xls')), 'unreadable');
});

test('a legacy Office file named as another format fails legibly as a mismatch', () => {
  for (const name of ['report.xls', 'report.docx', 'report.pdf', 'report.ppt']) {
    assert.equal(codeOf(() => detectFormat(corpusFile('legacy/tika_testWORD.doc'), name)), 'format_mismatch', name);
  }
  for (const name of ['report.doc', 'report.DOT', 'report', 'report.bin']) assert.equal(detectFormat(corpusFile('legacy/tika_testWORD.doc'), name).kind, 'legacy', name);
  assert.match(String((() => { try { detectFormat(corpusFile('legacy/tika_testEXCEL.xls'), 'sheet.doc'); } catch (error) { return (error as Error).message; } })()), /named \.doc but contains an Excel 97-2003 workbook/);
});

test('a DOCX named .xlsx or .pdf fails as a mismatch; named .docm, .zip or with no extension it is a DOCX', async () => {
  const docx = buildDocx(wordDocumentXml(['Renamed document']));
  for (const name of ['renamed.xlsx', 'renamed.pdf', 'renamed.txt']) {
    await assert.rejects(parseDocument(docx, name), (error: Error & { code?: string }) => error.code === 'format_mismatch' && /contains a Word document \(DOCX\)/.test(error.message), name);
  }
  for (const name of ['renamed.docm', 'renamed.zip', 'renamed']) assert.equal((await parseDocument(docx, name)).extension, 'docx', name);
});

test('HTML is recognised by name or by content; a .txt name keeps HTML-looking text as text', () => {
  const html = Buffer.from('<!DOCTYPE html><html><head><title>T</title></head><body><p>Hi</p></body></html>');
  assert.equal(detectFormat(html, 'page').kind, 'html');
  assert.equal(detectFormat(html, 'page.htm').kind, 'html');
  assert.equal(detectFormat(html, 'page.txt').kind, 'text');
});

test('images are recognised by signature; "BM" text is not a bitmap', () => {
  assert.equal(detectFormat(corpusFile('images/tika_testOCR.png'), 'scan').extension, 'png');
  assert.equal(codeOf(() => detectFormat(corpusFile('images/tika_testOCR.png'), 'scan.jpg')), 'format_mismatch');
  assert.equal(detectFormat(corpusFile('images/tess_phototest.tif'), 'scan.tiff').mimeType, 'image/tiff');
  assert.equal(detectFormat(corpusFile('images/tess_phototest.tif'), 'scan.tif').mimeType, 'image/tiff');
  assert.equal(detectFormat(Buffer.from('BMW annual report, plain text.'), 'bmw.txt').kind, 'text');
});

test('empty, RTF and unknown binary files fail legibly', () => {
  assert.equal(codeOf(() => detectFormat(Buffer.alloc(0), 'empty.pdf')), 'empty_file');
  assert.equal(codeOf(() => detectFormat(Buffer.from('{\\rtf1\\ansi Hello}'), 'letter.rtf')), 'unsupported_format');
  const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 73) % 32));
  assert.equal(codeOf(() => detectFormat(binary, 'blob.bin')), 'unsupported_format');
});
