// Deskew on a real page: a corpus invoice rasterized by pdftoppm (as scanned PDF pages are), turned a few degrees,
// has its skew found to a tenth of a degree and is turned back; tesseract then reads it nearly as well as the
// straight page, and far better than the askew one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deskew, estimateSkew, MIN_DESKEW_DEGREES, readNetpbm, readPgm, rotate, writePgm } from '../../src/ingest/deskew.ts';
import { parseDocument } from '../../src/ingest/parse.ts';
import { resolveBinary } from '../../src/ingest/ocr.ts';
import { readTesseractTsv } from '../../src/ingest/ocr-tsv.ts';
import { PDFTOPPM, TESSERACT } from '../helpers/corpus-expectations.ts';

const INVOICE = fileURLToPath(new URL('../../../shared/corpus/pdf/inv_AmazonWebServices.pdf', import.meta.url));
const INVOICE_IMAGE = fileURLToPath(new URL('../../../shared/corpus/images/inv_AmazonWebServices.png', import.meta.url));
const PNGTOPNM = await resolveBinary('pngtopnm');
const PNMTOPNG = await resolveBinary('pnmtopng');

function rasterize(dir: string): Buffer {
  execFileSync(PDFTOPPM!, ['-f', '1', '-l', '1', '-r', '150', '-gray', INVOICE, join(dir, 'page')]);
  return readFileSync(join(dir, 'page-1.pgm'));
}

function words(pgm: Buffer, dir: string): { words: number; confidence: number } {
  const path = join(dir, 'ocr.pgm');
  writeFileSync(path, pgm);
  const [page] = readTesseractTsv(execFileSync(TESSERACT!, [path, 'stdout', '-l', 'eng', '--psm', '3', 'tsv'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
  return { words: page!.words, confidence: page!.confidence ?? 0 };
}

test('PGM rasters are read and written back unchanged; anything else is not a PGM', () => {
  const image = { width: 3, height: 2, pixels: Uint8Array.from([0, 50, 100, 150, 200, 255]) };
  assert.deepEqual(readPgm(writePgm(image)), { ...image, pixels: Buffer.from(image.pixels) });
  assert.equal(readPgm(Buffer.from('P6\n3 2\n255\n')), null);
  assert.equal(readPgm(Buffer.from('P5\n3 2\n255\n\u0000')), null, 'a raster shorter than its header says');
  const blank = { width: 200, height: 100, pixels: new Uint8Array(20_000).fill(255) };
  assert.equal(estimateSkew(blank), 0);
  assert.equal(deskew(writePgm(blank)).degrees, 0);
});

test('a page turned a few degrees has its skew found and is turned back before OCR', { skip: PDFTOPPM && TESSERACT ? false : 'pdftoppm or tesseract is not installed' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-deskew-'));
  try {
    const page = readPgm(rasterize(dir))!;
    assert.equal(estimateSkew(page), 0);
    for (const degrees of [-6, -2.5, 3, 5]) assert.ok(Math.abs(estimateSkew(rotate(page, degrees)) - degrees) <= 0.2, `${degrees}°`);
    const askew = writePgm(rotate(page, 5));
    const straightened = deskew(askew);
    assert.ok(Math.abs(straightened.degrees - 5) <= 0.2);
    assert.notEqual(straightened.bytes, askew);
    const before = words(askew, dir);
    const after = words(straightened.bytes, dir);
    if (!(after.words > before.words * 1.15 && after.confidence > before.confidence + 4)) {
      assert.fail(`askew ${JSON.stringify(before)}, straightened ${JSON.stringify(after)}, straight ${JSON.stringify(words(writePgm(page), dir))}`);
    }
    const slight = writePgm(rotate(page, MIN_DESKEW_DEGREES / 2));
    assert.equal(deskew(slight).bytes, slight, 'a page straight enough is left as it is');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('netpbm rasters: bitmaps, gray and colour images read as gray levels; a second image is noticed', () => {
  // A 10x2 bitmap: the first row black from x 0 to 7, the second white; bytes are padded per row.
  const bitmap = readNetpbm(Buffer.concat([Buffer.from('P4\n# a comment\n10 2\n', 'latin1'), Buffer.from([0xff, 0x00, 0x00, 0x00])]))!;
  assert.deepEqual([...bitmap.image.pixels], [...Array(8).fill(0), 255, 255, ...Array(10).fill(255)]);
  assert.equal(bitmap.more, false);
  const colour = readNetpbm(Buffer.concat([Buffer.from('P6\n2 1\n255\n', 'latin1'), Buffer.from([255, 0, 0, 255, 255, 255])]))!;
  assert.deepEqual([...colour.image.pixels], [76, 255], 'luma of red, and white');
  const gray = Buffer.concat([Buffer.from('P5\n2 1\n255\n', 'latin1'), Buffer.from([10, 20])]);
  assert.equal(readNetpbm(Buffer.concat([gray, gray]))!.more, true, 'a multi-page TIFF converts to several images');
  assert.equal(deskew(Buffer.concat([gray, gray])).degrees, 0);
  assert.equal(readNetpbm(Buffer.from('P6\n2 1\n65535\n')), null, '16-bit rasters are not read');
  // Light text on a dark ground, or a photograph, is not a page to straighten.
  const dark = rotate({ width: 300, height: 200, pixels: new Uint8Array(60_000).fill(20) }, 3);
  assert.equal(estimateSkew(dark), 0);
});

test('an image upload turned a few degrees is straightened before OCR', { skip: TESSERACT && PNGTOPNM && PNMTOPNG ? false : 'tesseract or netpbm is not installed' }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-deskew-image-'));
  try {
    const straight = readNetpbm(execFileSync(PNGTOPNM!, [INVOICE_IMAGE], { maxBuffer: 256 * 1024 * 1024 }))!.image;
    assert.equal(estimateSkew(straight), 0, 'the corpus image is straight');
    writeFileSync(join(dir, 'askew.pgm'), writePgm(rotate(straight, 4)));
    const askew = execFileSync(PNMTOPNG!, [join(dir, 'askew.pgm')], { maxBuffer: 256 * 1024 * 1024 });
    writeFileSync(join(dir, 'askew.png'), askew);
    const [asIs] = readTesseractTsv(execFileSync(TESSERACT!, [join(dir, 'askew.png'), 'stdout', '-l', 'eng', '--psm', '3', 'tsv'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
    const parsed = await parseDocument(askew, 'askew-invoice.png', { ocr: { languages: 'eng' } });
    const [page] = parsed.pages;
    const words = page!.text.split(/\s+/).filter(Boolean).length;
    // Measured: 152 words at 92 read as it is, 204 at 94 straightened.
    if (!(words > asIs!.words * 1.2 && page!.ocrConfidence! >= Math.floor(asIs!.confidence ?? 0))) {
      assert.fail(`read as it is: ${asIs!.words} words at ${asIs!.confidence}; through the parser: ${words} words at ${page!.ocrConfidence}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
