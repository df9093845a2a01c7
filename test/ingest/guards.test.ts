// Decompression and XML guards on hand-built archives: each refusal has its own code, legit large parts pass.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDocument } from '../../src/ingest/parse.ts';
import { IngestError } from '../../src/ingest/parsed-document.ts';
import {
  MAX_ARCHIVE_DECLARED_BYTES,
  MAX_ARCHIVE_ENTRIES,
  MAX_ENTRY_COMPRESSION_RATIO,
} from '../../src/ingest/guards/archive-guard.ts';
import { createXmlReader, MAX_XML_DEPTH, MAX_XML_NODE_CHARS } from '../../src/ingest/guards/xml-guard.ts';
import { buildDocx, buildZip, wordDocumentXml } from './zip-builder.ts';
import { BOMB_LIMIT_MS } from '../helpers/corpus-expectations.ts';

async function failureOf(bytes: Buffer, filename: string): Promise<IngestError> {
  try {
    await parseDocument(bytes, filename);
  } catch (error) {
    assert.ok(error instanceof IngestError, `expected an IngestError, got ${String(error)}`);
    return error;
  }
  assert.fail(`${filename} parsed although it should have been refused`);
}

function readXml(xml: string): string[] {
  const texts: string[] = [];
  const reader = createXmlReader('test.xml', { text: (t) => texts.push(t) });
  reader.write(xml);
  reader.close();
  return texts;
}

const CORPUS = new URL('../../../shared/corpus/', import.meta.url);

// Refused in 2-30 ms on an idle machine (the first parse of the process is the slow one); inflating it would take
// hours. The bound (BOMB_LIMIT_MS, over 100 times that) only catches that runaway.
test('zbsm.zip (546 GB declared, 2 MB on disk) is rejected quickly without inflating', async () => {
  const bytes = readFileSync(new URL('hostile/zb_zbsm.zip', CORPUS));
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const error = await failureOf(bytes, 'zbsm.zip');
  const elapsed = performance.now() - started;
  assert.equal(error.code, 'archive_rejected');
  assert.ok(elapsed < BOMB_LIMIT_MS, `took ${elapsed} ms`);
  assert.ok(process.memoryUsage().rss - rssBefore < 64 * 1024 * 1024, 'memory stays bounded');
});

test('a well-formed synthetic DOCX parses (the builder itself is sound)', async () => {
  const doc = await parseDocument(buildDocx(wordDocumentXml(['Hello guard', 'Second paragraph'])), 'ok.docx');
  assert.equal(doc.extension, 'docx');
  assert.equal(doc.pages[0]!.text, 'Hello guard\n\nSecond paragraph');
});

test('a part declaring a compression ratio above the limit is refused before inflation', async () => {
  const paragraphs = Array.from({ length: 4000 }, () => 'a'.repeat(1000));
  const error = await failureOf(buildDocx(wordDocumentXml(paragraphs)), 'ratio.docx');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, new RegExp(`ratio over ${MAX_ENTRY_COMPRESSION_RATIO}:1`));
});

test('a part inflating past its declared size is refused while streaming', async () => {
  const paragraphs = Array.from({ length: 4000 }, () => 'a'.repeat(1000));
  const bytes = buildDocx(wordDocumentXml(paragraphs), { declaredSize: 64 * 1024 });
  const error = await failureOf(bytes, 'liar.docx');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, /inflates past its declared size/);
});

test('overlapping entries (the zbsm construction) are refused from the entry table alone', async () => {
  const kernel = { name: 'kernel', data: Buffer.alloc(4096, 0x41) };
  const bytes = buildZip([kernel, { name: 'copy1', data: kernel.data, sharesLocalHeaderOf: 0 }, { name: 'copy2', data: kernel.data, sharesLocalHeaderOf: 0 }]);
  const error = await failureOf(bytes, 'overlap.zip');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, /overlap/);
});

test('declared sizes summing past the archive limit are refused', async () => {
  const half = Math.floor(MAX_ARCHIVE_DECLARED_BYTES / 2) + 1;
  const bytes = buildDocx(wordDocumentXml(['x']), {}, [
    { name: 'word/media/a.bin', data: 'tiny', declaredSize: half },
    { name: 'word/media/b.bin', data: 'tiny', declaredSize: half },
  ]);
  const error = await failureOf(bytes, 'declared.docx');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, /declared uncompressed size/);
});

test('more entries than the limit are refused', async () => {
  const entries = Array.from({ length: MAX_ARCHIVE_ENTRIES + 1 }, (_, i) => ({ name: `f${i}.txt`, data: 'x', stored: true }));
  const error = await failureOf(buildZip(entries), 'many.zip');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, new RegExp(`more than ${MAX_ARCHIVE_ENTRIES} entries`));
});

test('an archive inside a plain archive is never expanded', async () => {
  const inner = buildZip([{ name: 'a.txt', data: 'inner' }]);
  const error = await failureOf(buildZip([{ name: 'inner.zip', data: inner, stored: true }]), 'outer.zip');
  assert.equal(error.code, 'archive_rejected');
  assert.match(error.message, /nested archives are never expanded/);
});

test('a plain ZIP of documents is refused as unsupported, not guessed at', async () => {
  const error = await failureOf(buildZip([{ name: 'notes.txt', data: 'hello' }]), 'bundle.zip');
  assert.equal(error.code, 'unsupported_format');
});

test('a corrupt entry fails its CRC-32 check with the generic unreadable message', async () => {
  const good = buildDocx(wordDocumentXml(['checksum me']), { stored: true });
  const at = good.indexOf('checksum me');
  good[at] = 'X'.charCodeAt(0);
  const error = await failureOf(good, 'crc.docx');
  assert.equal(error.code, 'unreadable');
});

test('a moderately large legitimate part (3 MB of varied text) passes the guards', async () => {
  const paragraphs = Array.from({ length: 30_000 }, (_, i) => `Paragraph ${i} mentions account ${(i * 7919) % 100_003} and item ${i * 31}`);
  const doc = await parseDocument(buildDocx(wordDocumentXml(paragraphs)), 'big.docx');
  assert.ok(doc.pages[0]!.text.includes('Paragraph 29999 mentions'));
});

test('a DTD is refused and its entities are never expanded', () => {
  const bomb = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>';
  assert.throws(() => readXml(bomb), (e: unknown) => e instanceof IngestError && e.code === 'xml_dtd_forbidden');
  const xxe = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "http://127.0.0.1:9/secret">]><r>&x;</r>';
  assert.throws(() => readXml(xxe), (e: unknown) => e instanceof IngestError && e.code === 'xml_dtd_forbidden');
});

test('an undeclared entity reference is malformed XML, never resolved', () => {
  assert.throws(() => readXml('<r>&external;</r>'), (e: unknown) => e instanceof IngestError && e.code === 'malformed_xml');
});

test('predefined and numeric character references still decode', () => {
  assert.deepEqual(readXml('<r>a &amp; b &lt; c &#x41;&#66;</r>'), ['a & b < c AB']);
});

test('a text node or attribute over the node limit is refused; one just under passes', () => {
  const over = 'x'.repeat(MAX_XML_NODE_CHARS + 1);
  assert.throws(() => readXml(`<r>${over}</r>`), (e: unknown) => e instanceof IngestError && e.code === 'xml_node_too_large');
  assert.throws(() => readXml(`<r a="${over}"/>`), (e: unknown) => e instanceof IngestError && e.code === 'xml_node_too_large');
  const under = 'y'.repeat(MAX_XML_NODE_CHARS);
  assert.equal(readXml(`<r>${under}</r>`)[0]!.length, MAX_XML_NODE_CHARS);
});

test('malformed XML and excessive nesting are malformed_xml', () => {
  assert.throws(() => readXml('<r><a></r>'), (e: unknown) => e instanceof IngestError && e.code === 'malformed_xml');
  const deep = '<a>'.repeat(MAX_XML_DEPTH + 1) + '</a>'.repeat(MAX_XML_DEPTH + 1);
  assert.throws(() => readXml(deep), (e: unknown) => e instanceof IngestError && e.code === 'malformed_xml');
});

test('malformed XML inside a package names the part in a message distinct from the generic one', async () => {
  const error = await failureOf(buildDocx('<w:document><w:body>'), 'broken.docx');
  assert.equal(error.code, 'malformed_xml');
  assert.match(error.message, /word\/document\.xml/);
});

test('the text budget truncates with a warning instead of growing without bound', async () => {
  const doc = await parseDocument(buildDocx(wordDocumentXml(['abcdefghij', 'klmnopqrst'])), 'budget.docx', { maxTextChars: 15 });
  // The limit bounds the document's text exactly, the blank line between paragraphs included.
  assert.equal(doc.pages[0]!.text, 'abcdefghij\n\nklm');
  assert.ok(doc.warnings.some((w) => /dropped \(limit\)/.test(w)));
});
