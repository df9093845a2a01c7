// A scanned page that carries an invisible OCR text layer (text render mode 3 over the scan, as scanners and OCR
// tools write it) is indexed from that layer: its text is native, and the page is never sent to OCR again.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../src/ingest/parse.ts';

/** A one-page PDF painting a gray image over the page, then, when given, `text` in render mode 3 (invisible). */
function scannedPage(text: string | null): Buffer {
  const content = `q 612 0 0 792 0 0 cm /Im1 Do Q${text === null ? '' : ` BT 3 Tr /F1 12 Tf 72 700 Td (${text}) Tj ET`}`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 4 >>\nstream\n\u0080\u0090\u00a0\u00b0\nendstream',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(Buffer.byteLength(pdf, 'latin1'));
    pdf += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, 'latin1');
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

test('a scan with an invisible OCR text layer is indexed from the layer, without OCR', async () => {
  const doc = await parseDocument(scannedPage('Statement of account for March 2024'), 'scan.pdf', { ocr: { tesseractPath: '/nonexistent/tesseract' } });
  assert.match(doc.pages[0]!.text, /Statement of account for March 2024/);
  assert.equal(doc.pages[0]!.textExtraction, 'native');
  assert.equal(doc.textExtraction, 'native');
  assert.equal(doc.ocrUsed, false);
  assert.ok(!doc.warnings.some((warning) => /OCR/.test(warning)), JSON.stringify(doc.warnings));
});

test('the same scan without its text layer is a page for OCR', async () => {
  await assert.rejects(parseDocument(scannedPage(null), 'scan.pdf', { ocr: { tesseractPath: '/nonexistent/tesseract' } }), /OCR is unavailable/);
});
