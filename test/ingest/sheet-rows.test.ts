// Spreadsheet row numbers through parsing and chunking, on real corpus files with empty rows, so that the row
// numbers differ from a count of lines: each line of a sheet's page carries the row its sheet XML numbers it
// (<row r="...">), each chunk the first and last of its rows; a CSV file's lines carry their record numbers as
// Python's csv module reads the file; pages of other formats carry none.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { parseDocument } from '../../src/ingest/parse.ts';
import { chunkPages } from '../../src/ingest/chunk.ts';
import type { ParsedPage } from '../../src/ingest/parsed-document.ts';

const CORPUS = '../shared/corpus';

const parsed = new Map<string, Promise<ParsedPage[]>>();

/** A corpus file's pages, parsed once, without OCR (the rows are the cells', not the pictures'). */
function pagesOf(path: string): Promise<ParsedPage[]> {
  if (!parsed.has(path)) parsed.set(path, parseDocument(readFileSync(`${CORPUS}/${path}`), path.split('/').pop()!, { ocr: { enabled: false } }).then((doc) => doc.pages));
  return parsed.get(path)!;
}

/** The row lines of a page as [row, text]. */
function rowLines(page: ParsedPage): [number, string][] {
  const lines = page.text.split('\n');
  return lines.flatMap((line, at): [number, string][] => (page.lineRows?.[at] ? [[page.lineRows[at]!, line]] : []));
}

test('a sheet\'s lines carry the rows of its XML, empty rows skipped but counted; its chunk holds rows 1 to 10, not 1 to 6', async () => {
  // Sheet1 of this workbook has <row> elements r=1, 3, 5, 7, 8 and 10 (rows 2, 4, 6 and 9 are empty).
  const [sheet] = await pagesOf('embedded/tika_testEXCEL_embeded.xlsx');
  assert.equal(sheet!.pageLabel, 'Sheet1');
  assert.deepEqual(rowLines(sheet!), [
    [1, 'The quick brown fox jumps over the lazy dog'],
    [3, 'The\tquick\tbrown\tfox\tjumps\tover\tthe\tlazy\tdog'],
    [5, 'Special characters: !"£$%^&*()'],
    [7, '1\t2\t2'],
    [8, 'A\tB\tAB'],
    [10, 'SKIP1\tSKIP2'],
  ]);
  assert.equal(sheet!.lineRows![0], null, 'the sheet\'s name is no row');
  const chunks = chunkPages([sheet!]);
  assert.deepEqual(chunks.map((chunk) => chunk.rows), [{ first: 1, last: 10 }]);
});

test('rows after a gap of 59 empty rows keep their numbers, and each small chunk holds the range of the rows in it', async () => {
  // "Compare to totals" (sheet16.xml) has text in rows 2-17, then 77-92: r="77" starts the second table.
  const page = (await pagesOf('embedded/poi_ConditionalFormattingSamples.xlsx')).find((candidate) => candidate.pageLabel === 'Compare to totals')!;
  const rows = rowLines(page);
  assert.deepEqual(rows.map(([row]) => row), [...Array.from({ length: 16 }, (_, i) => i + 2), ...Array.from({ length: 16 }, (_, i) => i + 77)]);
  assert.deepEqual(rows.find(([row]) => row === 89), [89, 'North\t76\t45\t78\t92']);
  assert.deepEqual(chunkPages([page]).map((chunk) => chunk.rows), [{ first: 2, last: 92 }]);

  // Smaller chunks, without overlap: the sheet's rows come in paragraphs of 20 rows (rows 2-17 and 77-80, then
  // 81-92), each a chunk of its own here; the text after them (the sheet's notes) is no row.
  const small = chunkPages([page], { targetChars: 400, overlapChars: 0 });
  assert.deepEqual(small.slice(0, 2).map((chunk) => chunk.rows), [{ first: 2, last: 80 }, { first: 81, last: 92 }]);
  assert.match(small[0]!.text, /^Compare to totals\n\nQ1 Q2/);
  assert.ok(small[0]!.text.endsWith('East 59 89 76 90'), 'row 80 ends the first chunk');
  assert.ok(small.slice(2).every((chunk) => chunk.rows === null || chunk.rows.first >= 81), 'the notes after the rows add none');
  // Word runs of an oversized paragraph: a chunk starting inside the second table starts at a row of 77 or more.
  const runs = chunkPages([page], { targetChars: 60, overlapChars: 0 }).filter((chunk) => chunk.rows);
  const second = runs.find((chunk) => chunk.text.includes('North 52 88 52 70 262'))!;
  assert.ok(second.rows!.first >= 77 && second.rows!.last <= 92, JSON.stringify(second.rows));
  assert.ok(runs.every((chunk) => chunk.rows!.last < 18 || chunk.rows!.first > 17 || chunk.text.includes('West 56 72 72 89 289')), 'only a chunk holding row 17 spans the gap');
});

test('a chunk\'s overlap brings the rows it repeats: neighbours share the row where they overlap', async () => {
  const page = (await pagesOf('embedded/poi_ConditionalFormattingSamples.xlsx')).find((candidate) => candidate.pageLabel === 'Compare to totals')!;
  const chunks = chunkPages([page], { targetChars: 120, overlapChars: 30 }).filter((chunk) => chunk.rows);
  for (const [at, chunk] of chunks.entries()) {
    const next = chunks[at + 1];
    if (!next) break;
    assert.ok(next.rows!.first <= chunk.rows!.last, `chunk ${next.chunkIndex} (${JSON.stringify(next.rows)}) starts in the last row of the one before (${JSON.stringify(chunk.rows)})`);
  }
});

test('a CSV file\'s lines carry their record numbers: quoted fields spanning lines make one record', async () => {
  // Python's csv module reads 690 records (header included) from the file's 48,761 lines; the 50th is the
  // 2012 Budget Speech notice.
  const [page] = await pagesOf('txt/msd_bnm_public_notice_english.csv');
  const lines = page!.text.split('\n');
  assert.equal(page!.lineRows!.length, lines.length);
  assert.equal(page!.lineRows![lines.length - 2], 690);
  assert.equal(page!.lineRows![lines.findIndex((line) => line.includes('Download the 2012 Budget Speech'))], 50);
  const chunks = chunkPages([page!]);
  assert.deepEqual(chunks[0]!.rows?.first, 1);
  assert.equal(chunks.at(-1)!.rows?.last, 690);
  const budget = chunks.find((chunk) => chunk.text.includes('Download the 2012 Budget Speech'))!;
  assert.ok(budget.rows!.first <= 50 && budget.rows!.last >= 50, JSON.stringify(budget.rows));
});

test('pages of other formats carry no rows, and neither do their chunks', async () => {
  const docx = readdirSync(`${CORPUS}/docx`).sort().find((name) => name.endsWith('.docx'))!;
  for (const path of ['txt/tika_testMARKDOWN.md', `docx/${docx}`]) {
    const pages = await pagesOf(path);
    assert.ok(pages.every((page) => page.lineRows === undefined), path);
    assert.ok(chunkPages(pages).every((chunk) => chunk.rows === null), path);
  }
});

