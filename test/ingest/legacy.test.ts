// Word, Excel and PowerPoint 97-2003 beyond what the corpus holds: encrypted workbooks and presentations (built here
// with the CFB library from MS-XLS and MS-PPT's structures), damaged PowerPoint records, and the text, sheet and cell
// limits applied to legacy files as to their OOXML successors. The corpus files themselves are in corpus.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import CFB from 'cfb';
import { parseDocument } from '../../src/ingest/parse.ts';
import { IngestError } from '../../src/ingest/parsed-document.ts';
import { MAX_RECORD_DEPTH, presentationSlides } from '../../src/ingest/parsers/legacy/powerpoint.ts';
import { workbookIsEncrypted, workbookPages, workbookSheetBreaks } from '../../src/ingest/parsers/legacy/excel.ts';
import { createContext, resolveParseOptions } from '../../src/ingest/parse-options.ts';
import { CATDOC } from '../helpers/corpus-expectations.ts';

const corpusFile = (path: string): Buffer => readFileSync(new URL(`../../../shared/corpus/${path}`, import.meta.url));

function compoundFile(streams: Record<string, Buffer>): Buffer {
  const container = CFB.utils.cfb_new();
  for (const [name, bytes] of Object.entries(streams)) CFB.utils.cfb_add(container, name, bytes);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** One record: MS-XLS BIFF (type, length) or MS-PPT (version/instance, type, length) header, then its body. */
const biff = (type: number, body: Buffer = Buffer.alloc(0)) => Buffer.concat([Buffer.from(Uint16Array.of(type, body.length).buffer), body]);
function pptRecord(type: number, body: Buffer, container = false, instance = 0): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt16LE((instance << 4) | (container ? 0xf : 0), 0);
  header.writeUInt16LE(type, 2);
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}
const textChars = (text: string) => pptRecord(0x0fa0, Buffer.from(text, 'utf16le'));

async function failure(bytes: Buffer, name: string): Promise<IngestError> {
  try {
    await parseDocument(bytes, name);
  } catch (error) {
    assert.ok(error instanceof IngestError, String(error));
    return error;
  }
  assert.fail(`${name} parsed`);
}

test('an Excel 97-2003 workbook with a FILEPASS record is refused as encrypted before any reader runs', async () => {
  const bof = biff(0x0809, Buffer.alloc(16));
  const locked = Buffer.concat([bof, biff(0x002f, Buffer.alloc(54)), biff(0x000a)]);
  assert.equal(workbookIsEncrypted(locked), true);
  assert.equal(workbookIsEncrypted(Buffer.concat([bof, biff(0x000a), biff(0x002f, Buffer.alloc(54))])), false, 'only the globals substream counts');
  const error = await failure(compoundFile({ Workbook: locked }), 'locked.xls');
  assert.equal(error.code, 'encrypted');
  assert.match(error.message, /password-protected Excel 97-2003 workbook/);
});

test('a PowerPoint 97-2003 presentation with an EncryptedSummary stream is refused as encrypted', async () => {
  const error = await failure(compoundFile({ 'PowerPoint Document': pptRecord(0x03e8, textChars('secret'), true), EncryptedSummary: Buffer.alloc(64) }), 'locked.ppt');
  assert.equal(error.code, 'encrypted');
});

test('PowerPoint records: slides in outline order, masters and notes left out, damaged and deep records contained', async () => {
  const slideList = pptRecord(0x0ff0, Buffer.concat([pptRecord(0x03f3, Buffer.alloc(20)), textChars('First slide title'), pptRecord(0x03f3, Buffer.alloc(20)), textChars('Second slide\rwith two paragraphs')]), true, 0);
  const master = pptRecord(0x03f8, textChars('Click to edit Master title style'), true);
  const notes = pptRecord(0x03f0, textChars('Speaker notes'), true);
  const stream = Buffer.concat([pptRecord(0x03e8, slideList, true), master, notes]);
  assert.deepEqual(presentationSlides(stream), [
    { slide: 1, text: 'First slide title' },
    { slide: 2, text: 'Second slide\nwith two paragraphs' },
  ]);
  const parsed = await parseDocument(compoundFile({ 'PowerPoint Document': stream }), 'deck.ppt');
  assert.deepEqual(parsed.pages.map((page) => page.pageNumber), [1, 2]);
  assert.equal(parsed.pageCount, 2);

  // A length past its container, and containers nested past MAX_RECORD_DEPTH: what is intact is read, the rest is not.
  const truncated = Buffer.concat([pptRecord(0x03e8, slideList, true).subarray(0, 40)]);
  assert.doesNotThrow(() => presentationSlides(truncated));
  let deep = textChars('buried');
  for (let depth = 0; depth < MAX_RECORD_DEPTH + 5; depth++) deep = pptRecord(0x1000, deep, true);
  assert.deepEqual(presentationSlides(Buffer.concat([pptRecord(0x03e8, deep, true)])), []);
  assert.equal((await failure(compoundFile({ 'PowerPoint Document': truncated }), 'cut.ppt')).code, 'no_text');
});

test('the text, sheet and cell limits cut legacy documents as they cut OOXML ones', { skip: CATDOC ? false : 'catdoc is not installed' }, async () => {
  const doc = await parseDocument(corpusFile('legacy/poi_utas_International-Travel-Approval-Request-Form.doc'), 'form.doc', { maxTextChars: 500 });
  assert.ok(doc.pages.reduce((sum, page) => sum + page.text.length, 0) <= 500);
  assert.deepEqual(doc.truncations?.map((truncation) => truncation.limit), ['characters']);
  const sheets = await parseDocument(corpusFile('legacy/poi_aida-tour_maldives_august_october.xls'), 'prices.xls', { maxSheets: 1 });
  assert.deepEqual(sheets.truncations?.map((truncation) => truncation.limit), ['sheets']);
  const cells = await parseDocument(corpusFile('legacy/tika_testEXCEL.xls'), 'squares.xls', { maxCells: 10 });
  assert.deepEqual(cells.truncations?.map((truncation) => truncation.limit), ['cells']);
  assert.doesNotMatch(cells.pages[0]!.text, /225/, 'rows past the cell limit are not read');
});

/** The Workbook stream of a corpus .xls, read with the same CFB library the builder above writes with. */
function workbookStream(path: string): Buffer {
  const entry = CFB.find(CFB.read(corpusFile(path), { type: 'buffer' }), 'Workbook');
  assert.ok(entry, `${path} has a Workbook stream`);
  return Buffer.from(entry.content as Uint8Array);
}

test('an Excel 97-2003 workbook gives a page per sheet that holds text, named from its BOUNDSHEET records; its breaks are what xls2csv prints', () => {
  const layout = workbookSheetBreaks(workbookStream('legacy/poi_aida-tour_maldives_august_october.xls'));
  assert.deepEqual(layout?.sheets.map((sheet) => sheet.name), ['СОДЕРЖАНИЕ', 'DELUXE 01.08-31.10.11', 'Международный авиаперелет']);
  assert.deepEqual(layout?.breaks.map((sheet) => sheet.position), [1, 2, 3]);
  // Empty sheets are counted among the sheets but print nothing, so they own no break.
  const squares = workbookSheetBreaks(workbookStream('legacy/tika_testEXCEL.xls'));
  assert.deepEqual(squares?.sheets.map((sheet) => [sheet.position, sheet.name]), [[1, 'Feuil1'], [2, 'Feuil2'], [3, 'Feuil3']]);
  assert.deepEqual(squares?.breaks.map((sheet) => sheet.name), ['Feuil1']);
  const context = () => createContext('book.xls', { extension: 'xls', mimeType: 'application/vnd.ms-excel' }, resolveParseOptions({}));
  const two = { sheets: squares!.sheets, breaks: [squares!.sheets[0]!, squares!.sheets[2]!] };
  const paged = workbookPages('a\tb\n\fc\n\f', two, context());
  assert.deepEqual(paged.pages.map((page) => [page.pageNumber, page.pageLabel, page.text]), [[1, 'Feuil1', 'Feuil1\n\na\tb'], [3, 'Feuil3', 'Feuil3\n\nc']]);
  // A reader stopped inside a sheet (the text budget) printed a prefix of the sheets: still labelled.
  assert.deepEqual(workbookPages('a\tb\n\fc', two, context()).pages.map((page) => page.pageLabel), ['Feuil1', 'Feuil3']);
  // More printed sheets than the walk found: no name is guessed, the text is one page as before.
  const unmatched = workbookPages('a\n\fb\n\fc\n\f', two, context());
  assert.equal(unmatched.labelled, false);
  assert.deepEqual(unmatched.pages, [{ pageNumber: null, pageLabel: null, text: 'a\n\nb\n\nc' }]);
  assert.equal(workbookSheetBreaks(Buffer.from('not a workbook')), null);
});

test('the BIFF walk: sheets by BOUNDSHEET order, a chart-like empty sheet owns no break, a stream cut before its EOF still prints its sheet', () => {
  const bof = biff(0x0809, Buffer.from([0x00, 0x06, 0x10, 0x00, 0, 0, 0, 0]));
  const eof = biff(0x000a);
  const cell = biff(0x0203, Buffer.alloc(14)); // NUMBER: row, column, style, an IEEE double
  /** BIFF8 BOUNDSHEET: its BOF's offset, visibility, type, then the name (8-bit when the flag byte is 0). */
  const boundsheet = (offset: number, name: string) => biff(0x0085, Buffer.concat([Buffer.from(Uint32Array.of(offset).buffer), Buffer.from([0, 0, name.length, 0]), Buffer.from(name, 'latin1')]));
  const names = ['Sales', 'Chart', 'Costs'];
  const globalsLength = bof.length + names.reduce((sum, name) => sum + boundsheet(0, name).length, 0) + eof.length;
  const sales = [bof, cell, cell, eof];
  const chart = [bof, eof];
  const offsets = [globalsLength, globalsLength + Buffer.concat(sales).length, globalsLength + Buffer.concat([...sales, ...chart]).length];
  const stream = Buffer.concat([bof, ...names.map((name, index) => boundsheet(offsets[index]!, name)), eof, ...sales, ...chart, bof, cell]);
  const layout = workbookSheetBreaks(stream);
  assert.deepEqual(layout?.sheets.map((sheet) => [sheet.position, sheet.name]), [[1, 'Sales'], [2, 'Chart'], [3, 'Costs']]);
  assert.deepEqual(layout?.breaks.map((sheet) => sheet.name), ['Sales', 'Costs']);
});
