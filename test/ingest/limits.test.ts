// Per-document limits (docs/configuration.md "Limits", issue 9): extracted characters, chunks, pages, sheets and cells. A document
// over one is read truncated, with a quality warning and a recorded truncation, and memory stays bounded while it is
// parsed: the tests parse in an isolated worker thread with a heap far below what the whole document would need.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDocument, parseDocumentIsolated } from '../../src/ingest/parse.ts';
import { MAX_DOCUMENT_TEXT_CHARS } from '../../src/ingest/parse-options.ts';
import { chunkPages } from '../../src/ingest/chunk.ts';
import { runIngest } from '../../src/ingest/pipeline.ts';
import type { IngestDependencies } from '../../src/ingest/pipeline.ts';
import type { ParsedDocument } from '../../src/ingest/parsed-document.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { buildLargeSpreadsheet, buildSpreadsheet, longTexts } from './spreadsheet-builder.ts';
import { buildDocx, buildZip } from './zip-builder.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const corpus = (path: string) => readFileSync(new URL(path, CORPUS));
const textOf = (doc: ParsedDocument) => doc.pages.map((page) => page.text).join('\n\n');
const charsOf = (doc: ParsedDocument) => doc.pages.reduce((sum, page) => sum + page.text.length, 0);
/** A parse-child heap far below what 56 M characters of cell text take (over 110 MB as strings alone). */
const SMALL_HEAP_MB = 96;

// Built once: about 1 MB zipped, a 60 MB sheet part of long inline strings, within the guard's ratio and size limits.
const LARGE = buildLargeSpreadsheet();

test('the large spreadsheet of issue 9 is a legitimate file: about 1 MB zipped, 60 MB of sheet XML, a ratio the guard accepts', () => {
  assert.ok(LARGE.bytes.length > 800_000 && LARGE.bytes.length < 1_300_000, `zipped ${LARGE.bytes.length}`);
  assert.ok(LARGE.sheetXmlChars > 59_000_000, `sheet XML ${LARGE.sheetXmlChars}`);
  assert.ok(LARGE.sheetXmlChars / LARGE.bytes.length < 200, 'under MAX_ENTRY_COMPRESSION_RATIO');
  assert.ok(LARGE.cellChars > 55_000_000, `cell text ${LARGE.cellChars}`);
});

test('the large spreadsheet is read truncated at DOCUMENT_MAX_CHARS in a small parse heap, with a warning, not failed', async () => {
  const doc = await parseDocumentIsolated(LARGE.bytes, 'large.xlsx', { maxHeapMb: SMALL_HEAP_MB });
  assert.equal(doc.extension, 'xlsx');
  assert.ok(charsOf(doc) <= MAX_DOCUMENT_TEXT_CHARS, `${charsOf(doc)} characters`);
  assert.ok(charsOf(doc) > MAX_DOCUMENT_TEXT_CHARS - 20_000, 'the text is read up to the limit');
  assert.deepEqual(doc.truncations, [{ limit: 'characters', max: MAX_DOCUMENT_TEXT_CHARS }]);
  assert.ok(doc.warnings.some((warning) => /Text beyond 2000000 characters was dropped \(limit\)/.test(warning)), doc.warnings.join('; '));
  assert.match(textOf(doc), /^Sheet1\n\n(account|akaun|balance|baki|\w+) /, 'what is kept is the beginning of the document');
  // No time bound: with a large heap the whole 60 MB part is read in about 1 s (the first 2 M characters in 150 ms), so
  // no bound 20 times the normal time could tell a reader that stops at the limit from one that reads on. What is
  // checked is that the text beyond the limit is not kept: the small parse heap could not hold it.
});

test('a lower character limit stops the sheet reader early; what is kept is a prefix of the cells', async () => {
  const doc = await parseDocumentIsolated(LARGE.bytes, 'large.xlsx', { maxHeapMb: SMALL_HEAP_MB, maxTextChars: 50_000 });
  assert.equal(charsOf(doc), 50_000);
  assert.deepEqual(doc.truncations, [{ limit: 'characters', max: 50_000 }]);
});

test('poi_bug65649.docx (12.6 MB document.xml) is read whole under the defaults and truncated under a lower limit', async () => {
  const bytes = corpus('docx/poi_bug65649.docx');
  const whole = await parseDocumentIsolated(bytes, 'poi_bug65649.docx', { maxHeapMb: SMALL_HEAP_MB });
  assert.equal(charsOf(whole), 285_102, 'every character of the document');
  assert.deepEqual(whole.truncations, []);
  assert.ok(!whole.warnings.some((warning) => /limit/.test(warning)), whole.warnings.join('; '));
  assert.equal(chunkPages(whole.pages).length, 173);
  const cut = await parseDocumentIsolated(bytes, 'poi_bug65649.docx', { maxHeapMb: SMALL_HEAP_MB, maxTextChars: 100_000 });
  assert.equal(charsOf(cut), 100_000);
  assert.deepEqual(cut.truncations, [{ limit: 'characters', max: 100_000 }]);
  assert.ok(textOf(whole).startsWith(textOf(cut).slice(0, 5_000)), 'the truncated text is the beginning of the whole');
});

test('a DOCX with one huge table holds no more than the limit while the table is open', async () => {
  // One table, 25 MB of cell text: before the limit applied inside open tables, all of it was held until </w:tbl>.
  const cell = longTexts(4_000);
  const rows = Array.from({ length: 6_400 }, (_, r) => `<w:tr><w:tc><w:p><w:r><w:t>${r} ${cell()}</w:t></w:r></w:p></w:tc></w:tr>`).join('');
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:tbl>${rows}</w:tbl></w:body></w:document>`;
  assert.ok(xml.length > 25_000_000);
  const doc = await parseDocumentIsolated(buildDocx(xml), 'table.docx', { maxHeapMb: 48, maxTextChars: 100_000 });
  assert.ok(charsOf(doc) <= 100_000 && charsOf(doc) > 90_000, `${charsOf(doc)} characters`);
  assert.deepEqual(doc.truncations, [{ limit: 'characters', max: 100_000 }]);
});

test('shared strings are kept up to the character limit; a cell that needs a dropped string marks the document truncated', async () => {
  const strings = Array.from({ length: 400 }, (_, i) => `shared string ${i} `.padEnd(1_000, 'x'));
  const sst = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${strings.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${strings.map((_, i) => `<row r="${i + 1}"><c t="s"><v>${i}</v></c></row>`).join('')}</sheetData></worksheet>`;
  const bytes = buildWorkbook(sheet, sst);
  const whole = await parseDocument(bytes, 'shared.xlsx');
  assert.deepEqual(whole.truncations, []);
  assert.match(textOf(whole), /shared string 399 /);
  const cut = await parseDocument(bytes, 'shared.xlsx', { maxTextChars: 20_000 });
  assert.ok(charsOf(cut) <= 20_000);
  assert.deepEqual(cut.truncations, [{ limit: 'characters', max: 20_000 }]);
  assert.doesNotMatch(textOf(cut), /shared string 399 /);
});

test('DOCUMENT_MAX_SHEETS and DOCUMENT_MAX_CELLS: later sheets and cells are not read, each limit noted once', async () => {
  const sheet = (name: string) => Array.from({ length: 10 }, (_, r) => Array.from({ length: 10 }, (_, c) => `${name}-r${r}c${c}`));
  const bytes = buildSpreadsheet([sheet('alpha'), sheet('beta'), sheet('gamma')]);
  const whole = await parseDocument(bytes, 'grid.xlsx');
  assert.deepEqual(whole.truncations, []);
  assert.match(textOf(whole), /gamma-r9c9/);

  const sheets = await parseDocument(bytes, 'grid.xlsx', { maxSheets: 2 });
  assert.deepEqual(sheets.truncations, [{ limit: 'sheets', max: 2 }]);
  assert.match(textOf(sheets), /beta-r9c9/);
  assert.doesNotMatch(textOf(sheets), /gamma/);
  assert.ok(sheets.warnings.some((warning) => /first 2 of the workbook's 3 sheets/.test(warning)));

  const cells = await parseDocument(bytes, 'grid.xlsx', { maxCells: 150 });
  assert.deepEqual(cells.truncations, [{ limit: 'cells', max: 150 }]);
  assert.match(textOf(cells), /beta-r4c9/, 'cells are counted over the whole workbook');
  assert.doesNotMatch(textOf(cells), /beta-r5c0|gamma/);
  assert.ok(cells.warnings.some((warning) => /first 150 of the workbook/.test(warning)));
});

test('a workbook is a page per sheet that holds text: an empty sheet keeps its number, the sheet limit keeps page_count true', async () => {
  const bytes = buildSpreadsheet([[['alpha', '1']], [], [['gamma', '3']], [['delta', '4']]]);
  const whole = await parseDocument(bytes, 'book.xlsx');
  assert.deepEqual(whole.pages.map((page) => [page.pageNumber, page.pageLabel, page.text]), [[1, 'Sheet1', 'Sheet1\n\nalpha\t1'], [3, 'Sheet3', 'Sheet3\n\ngamma\t3'], [4, 'Sheet4', 'Sheet4\n\ndelta\t4']]);
  assert.equal(whole.pageCount, 4);
  const cut = await parseDocument(bytes, 'book.xlsx', { maxSheets: 3 });
  assert.deepEqual(cut.pages.map((page) => page.pageLabel), ['Sheet1', 'Sheet3']);
  assert.equal(cut.pageCount, 4, 'every sheet is counted, read or not, as every slide of a deck is');
});

test('DOCUMENT_MAX_PAGES: only the first pages of a PDF and the first slides of a deck are read; page_count stays true', async () => {
  const pdf = await parseDocument(corpus('pdf/pdfjs_freeculture.pdf'), 'freeculture.pdf', { maxPages: 5, ocr: { enabled: false } });
  assert.equal(pdf.pages.length, 5);
  assert.equal(pdf.pageCount, 352);
  assert.deepEqual(pdf.truncations, [{ limit: 'pages', max: 5 }]);
  assert.ok(pdf.warnings.some((warning) => /first 5 of the PDF's 352 pages/.test(warning)));

  const deck = await parseDocument(corpus('pptx/poi_ececapstonespring2012.pptx'), 'deck.pptx', { maxPages: 3 });
  assert.equal(deck.pages.length, 3);
  assert.equal(deck.pageCount, 24);
  assert.deepEqual(deck.truncations, [{ limit: 'pages', max: 3 }]);
  const whole = await parseDocument(corpus('pptx/poi_ececapstonespring2012.pptx'), 'deck.pptx');
  assert.equal(whole.pages.length, 24);
  assert.deepEqual(whole.truncations, []);
});

test('the text and HTML parsers truncate at the character limit too', async () => {
  const text = await parseDocument(Buffer.from('word '.repeat(10_000)), 'long.txt', { maxTextChars: 1_000 });
  assert.equal(charsOf(text), 1_000);
  assert.deepEqual(text.truncations, [{ limit: 'characters', max: 1_000 }]);
  const html = await parseDocument(Buffer.from(`<html><body><p>${'kata '.repeat(10_000)}</p></body></html>`), 'long.html', { maxTextChars: 1_000 });
  assert.ok(charsOf(html) <= 1_000);
  assert.deepEqual(html.truncations, [{ limit: 'characters', max: 1_000 }]);
});

test('chunkPages stops one chunk past maxChunks', () => {
  const pages = [{ pageNumber: null, pageLabel: null, text: Array.from({ length: 50 }, (_, i) => `paragraph ${i} `.repeat(20)).join('\n\n') }];
  assert.equal(chunkPages(pages, { targetChars: 300, overlapChars: 0 }).length, 50);
  assert.equal(chunkPages(pages, { targetChars: 300, overlapChars: 0 }, 7).length, 8);
});

function deps(limits: IngestDependencies['limits'], parsed?: ParsedDocument): IngestDependencies {
  return {
    parse: async () => parsed!,
    extractEntities: async (texts) => texts.map(() => emptyEntities()),
    detectLanguages: async (texts) => texts.map(() => 'en' as const),
    classify: async () => ({ status: 'disabled', categories: [] }),
    embedder: createHashingEmbedder(),
    chunkOptions: { targetChars: 300, overlapChars: 0 },
    limits,
    onStage: async () => {},
  };
}

test('DOCUMENT_MAX_CHUNKS: the pipeline indexes the first chunks only and says so in quality.warnings', async () => {
  const text = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} of a long statement. `.repeat(8)).join('\n\n');
  const whole = await runIngest({ kind: 'text', text, filename: 'long.txt' }, {}, deps({ maxChars: 1_000_000, maxChunks: 100 }), 'test');
  assert.equal(whole.chunks.length, 30);
  assert.deepEqual(whole.truncations, []);
  assert.deepEqual(whole.canonicalMetadata.quality.warnings, []);
  const cut = await runIngest({ kind: 'text', text, filename: 'long.txt' }, {}, deps({ maxChars: 1_000_000, maxChunks: 10 }), 'test');
  assert.equal(cut.chunks.length, 10);
  assert.deepEqual(cut.chunks.map((chunk) => chunk.chunkIndex), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(cut.truncations, [{ limit: 'chunks', max: 10 }]);
  assert.match(cut.canonicalMetadata.quality.warnings.join(' '), /Chunks beyond the first 10 were not indexed \(limit\)/);
});

test('DOCUMENT_MAX_CHARS applies to plain-text uploads (JSON text) as to files; a parser truncation reaches the output', async () => {
  const cut = await runIngest({ kind: 'text', text: 'kata '.repeat(2_000), filename: null }, {}, deps({ maxChars: 500, maxChunks: 100 }), 'test');
  assert.ok(cut.chunks.map((chunk) => chunk.text).join(' ').length <= 500);
  assert.deepEqual(cut.truncations, [{ limit: 'characters', max: 500 }]);
  assert.match(cut.canonicalMetadata.quality.warnings.join(' '), /Text beyond 500 characters was dropped/);
  const parsed = await parseDocument(buildSpreadsheet([[['a', 'b']], [['c']]]), 'two.xlsx', { maxSheets: 1 });
  const fromFile = await runIngest({ kind: 'file', bytes: Buffer.alloc(0), filename: 'two.xlsx' }, {}, deps({ maxChars: 1_000, maxChunks: 100 }, parsed), 'test');
  assert.deepEqual(fromFile.truncations, [{ limit: 'sheets', max: 1 }]);
});

/** A workbook of one sheet with a shared-string table. */
function buildWorkbook(sheetXml: string, sharedStringsXml: string): Buffer {
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
    },
    { name: '_rels/.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheetXml },
    { name: 'xl/sharedStrings.xml', data: sharedStringsXml },
  ]);
}
