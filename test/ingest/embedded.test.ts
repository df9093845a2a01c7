// Objects embedded in documents, beyond the corpus files (corpus.test.ts): a failing object is a quality warning,
// not a failed document; the depth, count and bytes limits of the tree hold; an OLE object's Ole10Native package is
// unwrapped to the file it carries; an object of another program (Microsoft Graph) is not read as a workbook.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import CFB from 'cfb';
import { parseDocument } from '../../src/ingest/parse.ts';
import { MAX_EMBEDDED_OBJECTS, MAX_EMBEDDING_DEPTH } from '../../src/ingest/parse-options.ts';
import { ole10NativeFile, oleObjectPayload } from '../../src/ingest/parsers/legacy/ole-object.ts';
import { buildDocx, wordDocumentXml } from './zip-builder.ts';
import { TESSERACT } from '../helpers/corpus-expectations.ts';
import { readFileSync } from 'node:fs';

const PICTURE = readFileSync(new URL('../../../shared/corpus/images/tika_testOCR.png', import.meta.url));

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

interface Embedded {
  /** Part name under word/embeddings/ (word/media/ for a picture). */
  name: string;
  data: Buffer;
  type: 'package' | 'oleObject' | 'image';
}

/** A DOCX whose body is `paragraphs`, then one OLE reference per object (in this order), each a relationship. */
function docxEmbedding(paragraphs: string[], objects: Embedded[]): Buffer {
  const references = objects.map((_, index) => `<w:p><w:r><w:object><o:OLEObject xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:r="${REL}" r:id="rIdE${index}"/></w:object></w:r></w:p>`).join('');
  const body = paragraphs.map((text) => `<w:p><w:r><w:t>${text}</w:t></w:r></w:p>`).join('');
  const documentXml = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W_NS}"><w:body>${body}${references}</w:body></w:document>`;
  // Listed in reverse: the order that counts is the body's.
  const folder = (object: Embedded) => (object.type === 'image' ? 'media' : 'embeddings');
  const rels = objects.map((object, index) => `<Relationship Id="rIdE${index}" Type="${REL}/${object.type}" Target="${folder(object)}/${object.name}"/>`).reverse().join('');
  return buildDocx(documentXml, {}, [
    { name: 'word/_rels/document.xml.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>` },
    ...objects.map((object) => ({ name: `word/${folder(object)}/${object.name}`, data: object.data })),
  ]);
}

const plainDocx = (text: string) => buildDocx(wordDocumentXml([text]));
const textOf = (doc: { pages: { text: string }[] }) => doc.pages.map((page) => page.text).join('\n\n');

function compoundFile(streams: Record<string, Buffer>): Buffer {
  const container = CFB.utils.cfb_new();
  for (const [name, bytes] of Object.entries(streams)) CFB.utils.cfb_add(container, name, bytes);
  return Buffer.from(CFB.write(container, { type: 'buffer' }) as Uint8Array);
}

/** Packager native data (Ole10Native) around one file, as Office writes it. */
function ole10Native(fileName: string, data: Buffer): Buffer {
  const ascii = (text: string) => Buffer.from(`${text}\0`, 'latin1');
  const tempPath = ascii(`C:\\Temp\\${fileName}`);
  const body = Buffer.concat([Buffer.from([2, 0]), ascii(fileName), ascii(`C:\\Docs\\${fileName}`), Buffer.from([0, 0, 3, 0]), Buffer.from(Uint32Array.of(tempPath.length).buffer), tempPath, Buffer.from(Uint32Array.of(data.length).buffer), data]);
  return Buffer.concat([Buffer.from(Uint32Array.of(body.length).buffer), body]);
}

test('embedded objects are read in the order the body refers to them; a broken one is a warning, not a failure', async () => {
  const doc = await parseDocument(
    docxEmbedding(['Outer text'], [
      { name: 'first.docx', data: plainDocx('First embedded'), type: 'package' },
      { name: 'broken.docx', data: Buffer.from('PK\u0003\u0004 not really a zip'), type: 'package' },
      { name: 'oleObject1.bin', data: compoundFile({ '\u0001Ole10Native': ole10Native('notes.txt', Buffer.from('Packaged text file')) }), type: 'oleObject' },
    ]),
    'outer.docx',
  );
  const text = textOf(doc);
  assert.ok(text.indexOf('Outer text') < text.indexOf('First embedded') && text.indexOf('First embedded') < text.indexOf('Packaged text file'), text);
  assert.ok(doc.warnings.some((warning) => /embedded object broken\.docx could not be read/.test(warning)), JSON.stringify(doc.warnings));
});

test(`objects nested more than ${MAX_EMBEDDING_DEPTH} levels deep are not opened, with a warning`, async () => {
  let inner = plainDocx('Level 5 text');
  for (let level = 4; level >= 1; level--) inner = docxEmbedding([`Level ${level} text`], [{ name: `level${level + 1}.docx`, data: inner, type: 'package' }]);
  const doc = await parseDocument(docxEmbedding(['Level 0 text'], [{ name: 'level1.docx', data: inner, type: 'package' }]), 'deep.docx');
  const text = textOf(doc);
  for (let level = 0; level <= MAX_EMBEDDING_DEPTH; level++) assert.match(text, new RegExp(`Level ${level} text`));
  assert.doesNotMatch(text, new RegExp(`Level ${MAX_EMBEDDING_DEPTH + 1} text`));
  assert.ok(doc.warnings.some((warning) => /more than 3 levels deep were not opened/.test(warning)), JSON.stringify(doc.warnings));
});

test(`at most ${MAX_EMBEDDED_OBJECTS} embedded objects are opened per document, over every level`, async () => {
  const objects = Array.from({ length: MAX_EMBEDDED_OBJECTS + 6 }, (_, index) => ({ name: `object${index}.docx`, data: plainDocx(`Embedded number ${index}`), type: 'package' as const }));
  const doc = await parseDocument(docxEmbedding(['Many objects'], objects), 'many.docx');
  const text = textOf(doc);
  assert.match(text, new RegExp(`Embedded number ${MAX_EMBEDDED_OBJECTS - 1}\\b`));
  assert.doesNotMatch(text, new RegExp(`Embedded number ${MAX_EMBEDDED_OBJECTS}\\b`));
  assert.ok(doc.warnings.some((warning) => /Only the first 64 embedded objects/.test(warning)));
});

test('an OLE object yields the document it carries, or nothing for another program\'s object', () => {
  assert.deepEqual(ole10NativeFile(ole10Native('memo.txt', Buffer.from('hello'))), { bytes: Buffer.from('hello'), name: 'memo.txt' });
  assert.equal(ole10NativeFile(ole10Native('memo.txt', Buffer.from('hello')).subarray(0, 30)), null, 'a truncated package holds nothing');
  const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');
  assert.deepEqual(oleObjectPayload(compoundFile({ CONTENTS: pdf })), { bytes: pdf, name: '' });
  const graph = compoundFile({ '\u0001CompObj': Buffer.from('\u0000Microsoft Graph Chart\u0000MSGraph.Chart.8\u0000', 'latin1'), Workbook: Buffer.alloc(64) });
  assert.equal(oleObjectPayload(graph), null);
  assert.equal(oleObjectPayload(compoundFile({ Equation: Buffer.alloc(16) })), null);
});

test('embedded text counts against the document text budget', async () => {
  const doc = await parseDocument(docxEmbedding(['Outer'], [{ name: 'big.docx', data: plainDocx('x'.repeat(5000)), type: 'package' }]), 'budget.docx', { maxTextChars: 1000 });
  assert.ok(textOf(doc).length <= 1000);
  assert.deepEqual(doc.truncations?.map((truncation) => truncation.limit), ['characters']);
});

test('pictures inside a document are read by OCR, at most as many as an image file has pages; icons are left alone', { skip: TESSERACT ? false : 'tesseract is not installed' }, async () => {
  const pictures = [
    { name: 'icon.png', data: PICTURE.subarray(0, 1000), type: 'image' as const },
    { name: 'first.png', data: PICTURE, type: 'image' as const },
    { name: 'second.png', data: PICTURE, type: 'image' as const },
  ];
  const doc = await parseDocument(docxEmbedding(['Body text'], pictures), 'pictures.docx', { ocr: { maxPages: 1 } });
  assert.equal(doc.ocrUsed, true);
  assert.ok(textOf(doc).length > 'Body text'.length + 10, textOf(doc));
  assert.ok(doc.warnings.some((warning) => /OCR stopped after 1 pictures inside the document \(limit\)/.test(warning)), JSON.stringify(doc.warnings));
  assert.ok(!doc.warnings.some((warning) => /icon\.png/.test(warning)), 'the icon was not even tried');
});

test('without tesseract, pictures inside a document are a warning and the text around them is indexed', async () => {
  const pictures = [1, 2].map((n) => ({ name: `scan${n}.png`, data: PICTURE, type: 'image' as const }));
  const doc = await parseDocument(docxEmbedding(['Body text'], pictures), 'pictures.docx', { ocr: { tesseractPath: '/nonexistent/tesseract' } });
  assert.equal(textOf(doc), 'Body text');
  assert.equal(doc.ocrUsed, false);
  assert.ok(doc.warnings.some((warning) => /Pictures inside the document were not read: OCR is unavailable/.test(warning)), JSON.stringify(doc.warnings));
  await assert.rejects(parseDocument(docxEmbedding([], pictures), 'only-pictures.docx', { ocr: { tesseractPath: '/nonexistent/tesseract' } }), /OCR is unavailable/);
});
