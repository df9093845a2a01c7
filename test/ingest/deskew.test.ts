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
import { deskew, estimateSkew, MIN_DESKEW_DEGREES, readPgm, rotate, writePgm } from '../../src/ingest/deskew.ts';
import { readTesseractTsv } from '../../src/ingest/ocr-tsv.ts';
import { PDFTOPPM, TESSERACT } from '../helpers/corpus-expectations.ts';

const INVOICE = fileURLToPath(new URL('../../../shared/corpus/pdf/inv_AmazonWebServices.pdf', import.meta.url));

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
