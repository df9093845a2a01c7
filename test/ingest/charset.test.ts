// Encoding detection for text and HTML: BOMs, BOM-less UTF-16, Windows-1252, cp866, EBCDIC, misleading declarations.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import iconv from 'iconv-lite';
import { decodeBytes, detectEncoding } from '../../src/ingest/parsers/charset.ts';
import { decodeCp500, looksLikeEbcdic } from '../../src/ingest/parsers/ebcdic.ts';
import { parseDocument } from '../../src/ingest/parse.ts';

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
const corpusFile = (path: string): Buffer => readFileSync(new URL(path, CORPUS));
const SAMPLE = 'Kuala Lumpur, 31 Disember 2010 — café, naïve, Zürich. ';

test('UTF-8 and UTF-16 with BOMs decode and lose the BOM', () => {
  const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SAMPLE)]);
  assert.deepEqual(decodeBytes(utf8), { text: SAMPLE, encoding: 'utf-8' });
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(SAMPLE, 'utf16le')]);
  assert.equal(decodeBytes(le).text, SAMPLE);
  const be = Buffer.from(Buffer.from(SAMPLE, 'utf16le')).swap16();
  assert.equal(decodeBytes(Buffer.concat([Buffer.from([0xfe, 0xff]), be])).text, SAMPLE);
});

test('BOM-less UTF-16 is found by its NUL bytes on one parity', () => {
  const text = SAMPLE.repeat(4);
  assert.equal(detectEncoding(Buffer.from(text, 'utf16le')), 'utf-16le');
  assert.equal(decodeBytes(Buffer.from(Buffer.from(text, 'utf16le')).swap16()).text, text);
});

test('Windows-1252 Western text is not mistaken for a Cyrillic code page', () => {
  const text = 'Port ABC não contabilize, doação uno negócios; español prácticas; café naïve résumé. '.repeat(5);
  const decoded = decodeBytes(iconv.encode(text, 'windows-1252'));
  assert.equal(decoded.text, text);
});

test('DOS cp866 Russian is decoded (chardet alone does not know cp866)', () => {
  const { text, encoding } = decodeBytes(corpusFile('txt/tika_russian.cp866.txt'));
  assert.equal(encoding, 'cp866');
  assert.ok(text.startsWith('Однажды, в студеную зимнюю пору,'));
});

test('EBCDIC cp500 is recognised by byte profile and decoded with its own table', () => {
  const bytes = corpusFile('txt/tika_english.cp500.txt');
  assert.ok(looksLikeEbcdic(bytes));
  assert.ok(!looksLikeEbcdic(Buffer.from(SAMPLE.repeat(20))));
  const { text, encoding } = decodeBytes(bytes);
  assert.equal(encoding, 'cp500');
  assert.match(text, /IntelliStation POWER/);
  assert.equal(decodeCp500(Buffer.from([0xc8, 0x85, 0x93, 0x93, 0x96, 0x40, 0x4f])), 'Hello !');
});

test('HTML: a meta charset found late (after a long preamble) is honoured', async () => {
  const doc = await parseDocument(corpusFile('html/tika_big-preamble.html'), 'big-preamble.html');
  assert.match(doc.properties.title ?? '', /Аренда квартир/);
});

test('HTML: a declared UTF-8 that the bytes contradict is ignored in favour of detection', async () => {
  const doc = await parseDocument(corpusFile('html/tika_testArabicMisleadingCharset.html'), 'arabic.html');
  assert.match(doc.pages[0]!.text, /في قرية من القرى/);
});

test('HTML: a correct single-byte declaration (ISO-8859-6) is used', async () => {
  const doc = await parseDocument(corpusFile('html/tika_testHTMLNoisyMetaEncoding_1.html'), 'noisy.html');
  assert.match(doc.pages[0]!.text, /الاتحاد الجزائري/);
});

test('HTML: script and style text never reaches the page text; the title goes to properties', async () => {
  const html = '<html><head><title>Quarterly Report</title><style>p{color:red}</style></head>'
    + '<body><script>var secret = "do not index";</script><p>Revenue rose.</p><p>Costs fell.</p></body></html>';
  const doc = await parseDocument(Buffer.from(html), 'report.html');
  assert.equal(doc.properties.title, 'Quarterly Report');
  assert.equal(doc.pages[0]!.text, 'Revenue rose.\n\nCosts fell.');
});
