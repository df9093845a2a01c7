// The expected outcome of every file of the shared corpus, shared by the parser test and the end-to-end
// ingestion test. The corpus is listed at test time, so a new file without an expectation fails.

import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import type { IsolatedParseOptions } from '../../src/ingest/parse.ts';
import type { ParsedDocument, TextExtraction } from '../../src/ingest/parsed-document.ts';
import { GENERIC_UNREADABLE_MESSAGE } from '../../src/ingest/errors.ts';
import { resolveBinary } from '../../src/ingest/ocr.ts';

export const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
export const TESSERACT = await resolveBinary('tesseract');
export const PDFTOPPM = await resolveBinary('pdftoppm');
/** Parses run two at a time (the CI machine has two cores). */
export const CONCURRENCY = 2;
export const PEAK_RSS_LIMIT_BYTES = 1.5 * 1024 * 1024 * 1024;
/**
 * Time limits (maxMs) are guards against a parser running away (a bomb expanded, a loop that never ends), set at
 * least 20 times what an idle machine takes, so a busy machine never trips them: bombs are refused in 95-135 ms,
 * worker start-up included (parsed two at a time, as here), against hours if a guard broke.
 */
export const BOMB_LIMIT_MS = 4000;

export interface Completed {
  status: 'completed';
  extension: string;
  minChars: number;
  phrases?: (string | RegExp)[];
  pageCount?: number | null;
  extraction?: TextExtraction;
  ocrUsed?: boolean;
  warning?: RegExp;
  check?: (doc: ParsedDocument) => void;
  options?: IsolatedParseOptions;
  maxMs?: number;
}

export interface Failed {
  status: 'failed';
  code: string;
  message?: RegExp;
  options?: IsolatedParseOptions;
  maxMs?: number;
}

export type Expectation = Completed | Failed;

export const done = (extension: string, minChars: number, more: Partial<Completed> = {}): Completed => ({ status: 'completed', extension, minChars, ...more });
export const fails = (code: string, message?: RegExp, more: Partial<Failed> = {}): Failed => ({ status: 'failed', code, message, ...more });
export const GENERIC = new RegExp(`^${GENERIC_UNREADABLE_MESSAGE.replace(/[.]/g, '\\.')}$`);
export const OCR_UNAVAILABLE = fails('no_text', /OCR is unavailable/);
/** An image: OCR text when tesseract is installed, a legible no-text failure otherwise. */
export const image = (extension: string, minChars: number, more: Partial<Completed> = {}): Expectation =>
  TESSERACT ? done(extension, minChars, { extraction: 'ocr', ocrUsed: true, ...more }) : OCR_UNAVAILABLE;
/** An image-only PDF: needs both tesseract and pdftoppm. */
export const scannedPdf = (minChars: number, more: Partial<Completed> = {}): Expectation =>
  TESSERACT && PDFTOPPM ? done('pdf', minChars, { extraction: 'ocr', ocrUsed: true, ...more }) : OCR_UNAVAILABLE;
export const pageText = (index: number, pattern: RegExp) => (doc: ParsedDocument): void => assert.match(doc.pages[index]!.text, pattern);
/** Text that exists only in a picture, which nothing reads without OCR. */
/** A workbook's pages: one per sheet that holds text, as [position, name], each page opening with its sheet's name. */
export const sheetPages = (expected: [number, string][]) => (doc: ParsedDocument): void => {
  assert.deepEqual(doc.pages.map((page) => [page.pageNumber, page.pageLabel]), expected);
  for (const page of doc.pages) assert.ok(page.text.startsWith(`${page.pageLabel}\n\n`), `page ${page.pageNumber} opens with its sheet's name`);
};
export const lacksEmbedded = (pattern: RegExp) => (doc: ParsedDocument): void =>
  assert.doesNotMatch(doc.pages.map((page) => page.text).join('\n\n'), pattern, 'text in a picture is not read without OCR');
/** Word and Excel 97-2003 are read by the Debian catdoc package's readers (PowerPoint needs none). */
export const CATDOC = await resolveBinary('catdoc');
/** A .doc or .xls: its text when catdoc is installed, a legible refusal naming the missing reader otherwise. */
export const legacyOffice = (extension: 'doc' | 'xls', minChars: number, more: Partial<Completed> = {}): Expectation =>
  CATDOC ? done(extension, minChars, more) : fails('unsupported_format', /needs (catdoc|xls2csv) \(Debian package catdoc\), which is not installed/);

export const EXPECTATIONS: Record<string, Expectation> = {
  'docx/mammoth_comments.docx': done('docx', 30, { phrases: ['A tachyon walks into a bar.', 'Ouch'] }),
  'docx/mammoth_external-picture.docx': fails('no_text', /contains no text/),
  'docx/mammoth_tables.docx': done('docx', 40, { phrases: ['Top left\tTop right\nBottom left\tBottom right', 'Above', 'Below'] }),
  'docx/mammoth_text-box.docx': done('docx', 10, { phrases: ['Datum plane'] }),
  'docx/mammoth_utf8-bom.docx': done('docx', 20, { phrases: ['This XML has a byte order mark.'] }),
  'docx/msd_malay_Farish_A_Noor_Rekonstruksi_Semula_Sejarah.docx': done('docx', 20_000, {
    phrases: ['Dr Farish A Noor: Rekonstruksi Semula Sejarah?', '08 September 2011'],
    check: (doc) => assert.equal(doc.properties.author, 'DR FAROUK'),
  }),
  'docx/poi_bib-chernigovka_17459.docx': done('docx', 10_000, { phrases: ['Большечерниговская районная библиотека'] }),
  // 1.7 s on an idle machine for a 12.6 MB document.xml; a reader quadratic in the part's size would take hours.
  'docx/poi_bug65649.docx': done('docx', 200_000, { phrases: ['Комитет по информатизации и связи'], maxMs: 40_000 }),
  'docx/poi_checkboxes.docx': done('docx', 50, { phrases: ['This is a small test for checkboxes'] }),
  // Its only text is in its pictures (python logos), read by OCR.
  'docx/pydocx_having-images.docx': TESSERACT ? done('docx', 10, { phrases: ['python'], ocrUsed: true }) : OCR_UNAVAILABLE,
  'docx/tika_testWORD_embedded_pdf.docx': done('docx', 30, { phrases: ['Here is the pdf file:', 'Bye for real.'] }),
  'docx/tika_testWORD_phonetic.docx': done('docx', 2, {
    phrases: ['東京'],
    check: (doc) => assert.doesNotMatch(doc.pages[0]!.text, /とうきょう/u, 'ruby readings are not body text'),
  }),
  'docx/tika_testWORD_various.docx': done('docx', 500, {
    phrases: ['This is the header text.', 'This is the footer text.', 'This is a footnote.', 'Row 1 Col 1\tRow 1 Col 2', 'ゾルゲと尾崎'],
  }),

  // Text only in pictures: 16 PNG callouts on the sheets, and a GIF in the body, read by OCR when tesseract is present.
  'embedded/poi_ConditionalFormattingSamples.xlsx': done('xlsx', 15_000, {
    phrases: ['Data bars\tCompare heights of the tallest mountains', 'Everest\tNepal-China', 'Regional sales'],
    ...(TESSERACT ? { ocrUsed: true, check: (doc: ParsedDocument) => assert.match(doc.pages.map((page) => page.text).join('\n'), /by\s+using\s+data\s+bars/) } : { check: lacksEmbedded(/by using data bars/), warning: /OCR is unavailable/ }),
  }),
  'embedded/poi_WithGIF.docx': done('docx', 500, {
    phrases: ['Lorem ipsum dolor sit amet, consetetur sadipscing elitr'],
    ...(TESSERACT ? { ocrUsed: true, check: (doc: ParsedDocument) => assert.match(doc.pages[0]!.text, /GIF with transparency/) } : { check: lacksEmbedded(/GIF with transparency|recognized as GIF/), warning: /OCR is unavailable/ }),
  }),
  // Nested embeddings, depth 2: 'The Alfresco logo is above this' and 'The end!' exist only in the docx inside the embedded pptx.
  'embedded/tika_testEXCEL_embeded.xlsx': done('xlsx', 500, {
    phrases: ['The quick brown fox jumps over the lazy dog', 'Special characters: !"£$%^&*()', 'A\tB\tAB', 'SKIP1\tSKIP2', 'The Alfresco logo is above this', 'The end!'],
    pageCount: 2,
    // The objects Sheet1 embeds join Sheet1's page.
    check: (doc) => {
      sheetPages([[1, 'Sheet1'], [2, 'Sheet2']])(doc);
      assert.match(doc.pages[0]!.text, /The Alfresco logo is above this/);
    },
  }),
  // docx -> OLE Acrobat object (its CONTENTS is a PDF) -> the PDF's attached Test.docx: 'Needle' exists only at depth 2.
  'embedded/tika_testPDFEmbeddingAndEmbedded.docx': done('docx', 150, {
    phrases: ['Outer_haystack', 'pdf_haystack', 'Needle'],
    check: (doc) => {
      const text = doc.pages.map((page) => page.text).join('\n\n');
      assert.ok(text.indexOf('Outer_haystack') < text.indexOf('pdf_haystack') && text.indexOf('pdf_haystack') < text.indexOf('Needle'), 'embedded text follows its container, in document order');
    },
  }),
  // The slide's embedded docx, xlsx and doc join the slide's page.
  'embedded/tika_testPPT_embeded.pptx': done('pptx', 200, {
    phrases: ['The quick brown fox jumps over the lazy dog', 'The Alfresco logo is above this', 'More images follow....', 'The end!', 'Special characters: !"£$%^&*()', 'SKIP1'],
    pageCount: 1,
    check: (doc) => assert.match(doc.pages[0]!.text, /The Alfresco logo is above this/, 'on the slide that embeds it'),
  }),
  // An OLE Package (Ole10Native) holding TestText.txt, an OLE Acrobat object holding a PDF, an embedded docx.
  'embedded/tika_testWORD_EMFAndAttachments.docx': done('docx', 100, {
    phrases: ['This is test word document for parser.', 'This is Text File', 'This is test PDF document for parser.'],
  }),
  'embedded/tika_testWORD_embeded.docx': done('docx', 200, {
    phrases: ['The quick brown fox jumps over the lazy dog', 'The Alfresco logo is above this', 'More images follow....', 'The end!', 'Special characters: !"£$%^&*()', 'SKIP1'],
  }),

  'hostile/pdfjs_ContentStreamCycleType3insideType3.pdf': done('pdf', 2, { phrases: ['ab'] }),
  'hostile/pdfjs_GHOSTSCRIPT-698804-1-fuzzed.pdf': fails('no_text'),
  // 0.3 s on an idle machine: a guard against decoding the giant JBIG2 image it declares.
  'hostile/pdfjs_bomb_giant.pdf': done('pdf', 20, { phrases: ['GIANT JBIG2 BOMB'], maxMs: 10_000 }),
  'hostile/pdfjs_bug1020226.pdf': fails('unreadable', GENERIC),
  'hostile/pdfjs_bug1980958.pdf': fails('no_text'),
  'hostile/pdfjs_issue9105_other.pdf': done('pdf', 5, { phrases: ['Adobe tweet'] }),
  'hostile/pdfjs_poppler-85140-0.pdf': fails('no_text'),
  'hostile/pdfminer_zen_of_python_corrupted.pdf': done('pdf', 500, { phrases: ['Beautiful is better than ugly.'] }),
  'hostile/poi_ExternalEntityInText.docx': fails('xml_dtd_forbidden', /word\/document\.xml.*never expanded or fetched/),
  'hostile/poi_MalformedSSTCount.xlsx': done('xlsx', 20, { phrases: ['sdgf\tfdsag'] }),
  'hostile/poi_clusterfuzz-XSLF-6254434927378432.pptx': fails('unreadable', GENERIC),
  'hostile/poi_clusterfuzz-XWPF-6733884933668864.docx': done('docx', 50, { phrases: ['Content control within a paragraph'] }),
  'hostile/poi_invalid.xlsx': fails('unreadable', GENERIC),
  'hostile/poi_poc-shared-strings.xlsx': fails('xml_node_too_large', /xl\/sharedStrings\.xml/, { maxMs: BOMB_LIMIT_MS }),
  'hostile/poi_poc-xmlbomb.xlsx': fails('xml_dtd_forbidden', /xl\/sharedStrings\.xml/, { maxMs: BOMB_LIMIT_MS }),
  'hostile/poi_protected_agile.docx': fails('encrypted', /EncryptedPackage/),
  'hostile/poi_truncated62886.docx': fails('unreadable', GENERIC),
  'hostile/poi_xlsx-corrupted.xlsx': fails('malformed_xml', /_rels\/\.rels/),
  'hostile/tika_droste.zip': fails('archive_rejected', /nested archives are never expanded/, { maxMs: BOMB_LIMIT_MS }),
  'hostile/tika_file1_text_named.pdf': fails('format_mismatch', /named \.pdf but contains plain text/),
  'hostile/tika_test-pdf-with-print-ticket-header.pdf': done('pdf', 50, {
    phrases: ['Hello, this is a PDF, not a Matlab file'],
    warning: /Skipped 661 bytes/,
  }),
  'hostile/tika_testAppleSingleFile.pdf': done('pdf', 5, { phrases: ['Hello World'], warning: /AppleSingle/ }),
  // RC4-encrypted Word 97-2003: no EncryptedPackage stream, but its File Information Block says encrypted
  'hostile/tika_testWORD_protected_passtika.doc': fails('encrypted', /password-protected Word 97-2003 document/),
  'hostile/tika_testWORD_truncated.docx': fails('unreadable', GENERIC),
  'hostile/tika_testZIP_corrupted_oom.zip': fails('unreadable', GENERIC),
  'hostile/zb_zbsm.zip': fails('archive_rejected', /overlap/, { maxMs: BOMB_LIMIT_MS }),

  'html/msd_MYMP.html': done('html', 5000, { phrases: ['Senarai MP Penuh', 'ABD LATIFF BIN AHMAD\nABD RAHIM BIN BAKRI', 'Zuraida Binti Kamaruddin'] }),
  'html/tika_big-preamble.html': done('html', 1000, {
    phrases: ['Континент-Недвижимость'],
    check: (doc) => assert.match(doc.properties.title ?? '', /^Аренда квартир/u),
  }),
  'html/tika_testArabicMisleadingCharset.html': done('html', 100, { phrases: ['في قرية من القرى'] }),
  'html/tika_testHTML.html': done('html', 20, {
    phrases: ['Indexation du fichier'],
    check: (doc) => assert.equal(doc.properties.title, 'Title : Test Indexation Html'),
  }),
  'html/tika_testHTMLNoisyMetaEncoding_1.html': done('html', 100, { phrases: ['الاتحاد الجزائري'] }),
  'html/tika_testHTML_embedded_img.html': done('html', 20, {
    phrases: ['some content'],
    check: (doc) => assert.doesNotMatch(doc.pages[0]!.text, /base64|\/9j\//),
  }),

  'images/inv_AmazonWebServices.png': image('png', 500, { phrases: ['Invoice Number', '296664039561'] }),
  'images/inv_FlipkartInvoice.png': image('png', 300, { phrases: [/Retail Services/] }),
  // Jawi (Malay in Arabic script): no installed language reads it, and the page says so through its confidence.
  'images/msd_jawi_idola.png': image('png', 1, { warning: /OCR confidence is low on the image \(\d+ of 100\)/, check: (doc) => assert.ok(doc.pages[0]!.ocrConfidence! < 60) }),
  'images/msd_malay_handwriting_syarif.png': image('png', 4, { phrases: ['syarif'] }),
  'images/tess_8071_093.3B.tif': image('tif', 1000, { phrases: ['injured'] }),
  'images/tess_devatest.png': image('png', 20, { warning: /OCR confidence is low on the image/ }),
  'images/tess_eurotext.tif': image('tif', 200, { phrases: [/quick.*brown.*fox/u] }),
  // Rotated a quarter turn: page layout analysis finds the orientation, and the reading is as confident as upright.
  'images/tess_phototest-rotated-R.png': image('png', 100, { phrases: ['12 point text', 'The quick brown dog jumped over the'], check: (doc) => assert.ok(doc.pages[0]!.ocrConfidence! >= 90) }),
  'images/tess_phototest.tif': image('tif', 200, { phrases: ['This is a lot of 12 point text to test the', 'The quick brown dog jumped over the'], pageCount: 1 }),
  'images/tika_testOCR.png': image('png', 20, { phrases: ['This file contains some words.'] }),
  'images/tika_testTIFF_multipage.tif': image('tif', 20, {
    pageCount: 2,
    check: (doc) => {
      assert.deepEqual(doc.pages.map((p) => p.pageNumber), [1, 2]);
      assert.match(doc.pages[0]!.text, /Page 1/);
      assert.match(doc.pages[1]!.text, /Page 2/);
    },
  }),

  // A page per sheet, named from the workbook's own sheet list (BOUNDSHEET records), as for a .xlsx.
  'legacy/poi_61045_govdocs1_626534.xls': legacyOffice('xls', 1000, { phrases: ['TABLE F-2 BY FILING MONTH', 'BUSINESS AND NONBUSINESS BANKRUPTCY CASES COMMENCED, BY CHAPTER OF THE BANKRUPTCY CODE'], pageCount: 1, check: sheetPages([[1, 'Sheet1']]) }),
  'legacy/poi_aida-tour_maldives_august_october.xls': legacyOffice('xls', 5000, {
    phrases: ['МАЛЬДИВЫ', 'ANANTARA DHIGU RESORT & SPA'],
    pageCount: 3,
    check: (doc) => {
      sheetPages([[1, 'СОДЕРЖАНИЕ'], [2, 'DELUXE 01.08-31.10.11'], [3, 'Международный авиаперелет']])(doc);
      // The flights are on their own sheet: a chunk of them is never a chunk of the price list.
      assert.deepEqual(doc.pages.map((page) => /Варианты международного авиа/.test(page.text)), [false, false, true]);
    },
  }),
  'legacy/poi_bug58718_008558.ppt': done('ppt', 5000, {
    pageCount: 25,
    phrases: ['Celecoxib (CELEBREX®)', 'Familial Adenomatous Polyposis', 'Pharmacia Attendees'],
    check: (doc) => {
      assert.equal(doc.pages.length, 25);
      assert.deepEqual(doc.pages.map((page) => page.pageNumber), Array.from({ length: 25 }, (_, index) => index + 1));
      assert.match(doc.pages[0]!.text, /Celecoxib/);
      assert.match(doc.pages[1]!.text, /Pharmacia Attendees/);
    },
  }),
  'legacy/poi_utas_International-Travel-Approval-Request-Form.doc': legacyOffice('doc', 3000, { phrases: ['International Travel Approval Request Form'], check: (doc) => assert.doesNotMatch(doc.pages[0]!.text, /FORMTEXT|FORMCHECKBOX/) }),
  // Feuil2 and Feuil3 are empty: they count as sheets but give no page.
  'legacy/tika_testEXCEL.xls': legacyOffice('xls', 150, { phrases: ['Sample Excel Worksheet - Numbers and their Squares', 'Number\tSquare', '15\t225'], pageCount: 3, check: sheetPages([[1, 'Feuil1']]) }),
  'legacy/tika_testPPT.ppt': done('ppt', 50, { pageCount: 1, phrases: ['Sample Powerpoint Slide', 'Powerpoint X for Mac'] }),
  'legacy/tika_testPPT_various.ppt': done('ppt', 300, { pageCount: 1, phrases: ['Footnote appears here', 'Bullet 1', 'Number bullet 1', 'This is a hyperlink', 'ゾルゲと尾崎、淡々と最期', '𐌲𐌿𐍄𐌹𐍃𐌺', 'Row 2 Col 3', 'Here is a text box'] }),
  'legacy/tika_testWORD.doc': legacyOffice('doc', 500, {
    phrases: ['Sample Word Document Title', 'This is a sample Microsoft Word Document.', 'Nested table', 'The table has things in it'],
    check: (doc) => assert.doesNotMatch(doc.pages[0]!.text, /HYPERLINK/, 'field instructions are not document text'),
  }),
  // Its embedded objects (a worksheet, a .docx, a presentation) are not opened yet: the body text is read.
  'legacy/tika_testWORD_embeded.doc': legacyOffice('doc', 50, { phrases: ['The quick brown fox jumps over the lazy dog'] }),

  'pdf/inv_AmazonWebServices.pdf': done('pdf', 1000, { phrases: ['Amazon Elastic Compute Cloud $1.87', 'Total for this invoice $4.11'], pageCount: 1 }),
  'pdf/inv_FlipkartInvoice.pdf': done('pdf', 1000, { phrases: ['WS Retail Services Pvt. Ltd'] }),
  'pdf/inv_oyo.pdf': done('pdf', 500, { phrases: ['PAYMENT RECEIPT', 'Guest Name: Sanjay'] }),
  'pdf/msd_malay_Isu_isu_pelaksanaan_kutipan_zakat.pdf': done('pdf', 400, {
    phrases: ['ISU-ISU PELAKSANAAN KUTIPAN ZAKAT PENDAPATAN', 'AKADEMI PENGAJIAN ISLAM'],
    pageCount: 3,
    check: pageText(2, /IJAZAH SARJANA SYARIAH/),
  }),
  'pdf/msd_malay_MENCETUS_MODEL_EKONOMI_ISLAM_MALAYSIA.pdf': done('pdf', 10_000, {
    phrases: ['MENCETUS MODEL EKONOMI ISLAM MALAYSIA', 'Mior Isfandy Mior Azizan'],
    pageCount: 7,
    check: (doc) => {
      assert.match(doc.pages[1]!.text, /agenda mengarusperdanakan Ekonomi/);
      assert.equal(doc.properties.title, null, 'a title without letters ("()") is dropped');
    },
  }),
  'pdf/pdfjs_160F-2019.pdf': done('pdf', 1000, { phrases: ['modèle 160 année : 2019'], extraction: 'native' }),
  'pdf/pdfjs_ArabicCIDTrueType.pdf': done('pdf', 40, { phrases: [/[\u0600-\u06ff\ufe70-\ufeff]{4,}/u] }),
  'pdf/pdfjs_empty_protected.pdf': fails('no_text'),
  'pdf/pdfjs_freeculture.pdf': done('pdf', 300_000, {
    pageCount: 352,
    phrases: ['Free Culture is licensed'],
    extraction: 'native',
    ocrUsed: Boolean(TESSERACT && PDFTOPPM),
    warning: TESSERACT && PDFTOPPM ? undefined : /OCR unavailable/,
    check: (doc) => {
      assert.equal(doc.properties.title, 'Free Culture');
      assert.equal(doc.properties.author, 'Lawrence Lessig');
    },
    maxMs: 100_000, // about 4 s on an idle machine, OCR included: a guard against a per-page cost that runs away over 352 pages
  }),
  'pdf/pdfjs_helloworld-bad.pdf': done('pdf', 13, { phrases: ['Hello, world!'] }),
  'pdf/pdfjs_issue7229.pdf': scannedPdf(200, {
    options: { ocr: { maxPages: 1, pdfDpi: 100, languages: 'eng' } },
    pageCount: 2,
    warning: /OCR stopped after 1 image-only pages/,
    check: (doc) => {
      assert.match(doc.pages[0]!.text, /Certificate of periodic technical inspection/);
      assert.equal(doc.pages[0]!.textExtraction, 'ocr');
      assert.equal(doc.pages[1]!.text, '', 'the page past the OCR limit stays empty');
    },
  }),
  'pdf/pdfjs_labelled_pages.pdf': fails('no_text', /no text layer/),
  'pdf/pdfjs_prefilled_f1040.pdf': done('pdf', 5000, { phrases: ['U.S. Individual Income Tax Return 2010'], pageCount: 2 }),
  'pdf/pdfjs_saslprep-r6.pdf': fails('encrypted', /requires a password/),
  'pdf/pdfjs_tracemonkey.pdf': done('pdf', 50_000, {
    pageCount: 14,
    phrases: ['Trace-based Just-in-Time Type Specialization for Dynamic', 'Andreas Gal'],
    check: (doc) => {
      assert.equal(doc.pages[1]!.pageNumber, 2);
      assert.match(doc.pages[1]!.text, /Hence, recording and compiling a trace speculates/);
      assert.doesNotMatch(doc.pages[0]!.text, /Hence, recording and compiling/);
    },
  }),
  'pdf/pdfjs_vertical.pdf': done('pdf', 5, { phrases: ['あいうえお'], pageCount: 3 }),
  'pdf/pdfjs_xfa_filled_imm1344e.pdf': done('pdf', 10_000, {
    phrases: ['APPLICATION TO SPONSOR, SPONSORSHIP AGREEMENT AND UNDERTAKING', 'SPONSOR CONTACT INFORMATION'],
    pageCount: 7,
  }),
  'pdf/pdfjs_xref_command_missing.pdf': done('pdf', 10, { phrases: ['Reduced test-case'] }),
  'pdf/pdfminer_f1040nr.pdf': done('pdf', 10_000, { phrases: ['U.S. Nonresident Alien Income Tax Return'], pageCount: 5 }),
  'pdf/pdfminer_i1040nr.pdf': done('pdf', 200_000, {
    phrases: ['Instructions for', 'Form 1040NR'],
    pageCount: 50,
    check: (doc) => assert.deepEqual([doc.pages[0]!.pageLabel, doc.pages[49]!.pageLabel], ['1', '50']),
  }),
  'pdf/pdfminer_kampo.pdf': done('pdf', 2000, { phrases: ['第二条第一項の表の青色の灯火の項第三号中', '道路交通法'] }),
  'pdf/pypdf_GeoBase_NHNC1_Data_Model_UML_EN.pdf': done('pdf', 10_000, { phrases: ['National Hydro Network'], pageCount: 19 }),
  'pdf/pypdf_SF424_page2.pdf': done('pdf', 300, { phrases: ['Type of Applicant 1: Select Applicant Type:'] }),
  'pdf/pypdf_imagemagick-CCITTFaxDecode.pdf': fails('no_text'),
  'pdf/pypdf_r2-user-password.pdf': fails('encrypted', /requires a password/),
  'pdf/pypdf_r6-user-password.pdf': fails('encrypted', /requires a password/),
  'pdf/pysf_multicolumn.pdf': done('pdf', 3000, { phrases: ['Two-Column Document with Lorem Ipsum'], pageCount: 3 }),
  'pdf/tika_testMicrosoftIRMServices.pdf': fails('encrypted', /encrypted payload/),
  'pdf/tika_testOCR.pdf': scannedPdf(10, { phrases: ['Happy New Year 2003'] }),
  'pdf/tika_testPDF_XFA_govdocs1_258578.pdf': done('pdf', 500, { phrases: ['National Park Service', 'my_school'] }),
  'pdf/tika_testPDF_incrementalUpdates.pdf': done('pdf', 10, { phrases: ['Testing Incremental'] }),
  'pdf/tika_testPageNumber.pdf': done('pdf', 10, { phrases: ['This is page one.'] }),

  'pptx/poi_aascu_hbcu_leadershipsummit_cooper.pptx': done('pptx', 5000, {
    phrases: ['Positioning HBCUs in the', 'Michelle Asha Cooper'],
    pageCount: 16,
  }),
  'pptx/poi_ececapstonespring2012.pptx': done('pptx', 2000, {
    phrases: ['Music Sound Interpreter'],
    pageCount: 24,
    check: (doc) => assert.deepEqual(doc.pages.map((p) => p.pageNumber), Array.from({ length: 24 }, (_, i) => i + 1)),
  }),
  'pptx/poi_with_japanese.pptx': done('pptx', 200, { phrases: ['ゾルゲと尾崎、淡々と最期'], pageCount: 1 }),
  'pptx/pypptx_cht-charts.pptx': done('pptx', 20, { phrases: ['Series 1', 'Category 4'] }),
  'pptx/pypptx_prs-notes.pptx': done('pptx', 5, { phrases: ['Notes'], pageCount: 1 }),
  'pptx/tika_testMSChart-govdocs-428996.pptx': done('pptx', 50, { phrases: ['Thin Film Partnership'] }),
  'pptx/tika_testOCR.pptx': done('pptx', 10, { phrases: ['This is some text'] }),
  'pptx/tika_testPPT_various.pptx': done('pptx', 500, { phrases: ['Here is a text box', 'This is the footer text.', '[1] This is a footnote.'] }),

  'txt/moh_facilities_master.csv': done('csv', 100_000, { phrases: ['Hospital Angkatan Tentera Kem Terendak'] }),
  'txt/msd_bnm_public_notice_english.csv': done('csv', 500_000, { phrases: ['Bank Negara Malaysia'] }),
  'txt/msd_bnm_public_notice_malay.csv': done('csv', 500_000, { phrases: ['28 Dis 2009'] }),
  'txt/msd_malay_news_fake-news.csv': done('csv', 100_000, { phrases: ['Jabatan Kemajuan Islam Malaysia'] }),
  'txt/mt940_ASNB_0708271685_09022020_164516.940.txt': done('txt', 5000, { phrases: [':25:NL81ASNB9999999999'] }),
  'txt/tika_english.cp500.txt': done('txt', 5000, { phrases: ['IntelliStation POWER'] }),
  'txt/tika_multi-language.txt': done('txt', 1000, { phrases: ['Port ABC não contabilize', 'español ABC adhoc prácticas'] }),
  'txt/tika_russian.cp866.txt': done('txt', 100, { phrases: ['Однажды, в студеную зимнюю пору,'] }),
  'txt/tika_test-columnar.csv': done('csv', 500, { phrases: ['"Square of the Record Number"'] }),
  'txt/tika_testMARKDOWN.md': done('md', 100, {
    phrases: ['Café naïve résumé'],
    check: (doc) => assert.equal(doc.properties.title, 'Title'),
  }),

  // A page per sheet, labelled with its name: a chunk never spans two sheets.
  'xlsx/poi_55906-MultiSheetRefs.xlsx': done('xlsx', 50, {
    phrases: ['Hello!', 'Middle!', 'Sheet3'],
    pageCount: 3,
    check: (doc) => {
      sheetPages([[1, 'Sheet1'], [2, 'Sheet2'], [3, 'Sheet3']])(doc);
      assert.deepEqual(doc.pages.map((page) => /Hello!|Middle!|Bye!/.exec(page.text)?.[0]), ['Hello!', 'Middle!', 'Bye!']);
    },
  }),
  'xlsx/sheetjs_DataTypesFormats.xlsx': done('xlsx', 50, { phrases: ['Date\t2020-07-23', 'Date Time\t2020-07-23T09:00:00'] }),
  'xlsx/tika_CVLKRA-KYC_Download_File_Structure_V3.1.xlsx': done('xlsx', 10_000, {
    phrases: ['KYC HEADER'],
    pageCount: 30,
    check: (doc) => {
      assert.deepEqual(doc.pages.slice(0, 4).map((page) => [page.pageNumber, page.pageLabel]), [[1, 'KYC HEADER'], [2, 'KYC'], [3, 'ADDL INFO'], [4, 'KYC TRAILER']]);
      assert.equal(doc.pages.find((page) => page.pageNumber === 8)?.pageLabel, 'Document & EXEMPTED &  PAN COPY', 'a name is kept as the workbook spells it');
    },
  }),
  'xlsx/tika_testEXCEL_big_numbers.xlsx': done('xlsx', 30, { phrases: ['123456789012345'] }),
  'xlsx/tika_testEXCEL_dateFormats.xlsx': done('xlsx', 20, { phrases: ['2018-09-20'] }),
  // Sheet2 and Sheet3 are empty: counted, but no page.
  'xlsx/tika_testEXCEL_headers_footers.xlsx': done('xlsx', 1000, {
    phrases: ['John Smith1\t1 Corporate HQ', 'Header - Corporate Spreadsheet', 'Footer - Corporate Spreadsheet Footer'],
    pageCount: 3,
    check: (doc) => {
      assert.equal(doc.properties.title, 'Internal spreadsheet');
      sheetPages([[1, 'Sheet1']])(doc);
    },
  }),
  'xlsx/tika_testMSChart-govdocs-428996.xlsx': fails('no_text', /contains no text/),
};

export function listCorpus(): string[] {
  const files: string[] = [];
  for (const dir of readdirSync(CORPUS).sort()) {
    if (!statSync(new URL(dir, CORPUS)).isDirectory()) continue;
    for (const name of readdirSync(new URL(`${dir}/`, CORPUS)).sort()) files.push(`${dir}/${name}`);
  }
  return files;
}
