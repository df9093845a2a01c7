// Word, Excel and PowerPoint 97-2003 documents (OLE2 compound files): Word and Excel through the Debian catdoc
// package's readers, PowerPoint from its text records; encrypted files refused legibly. The format was told apart
// (and checked against the file's name) by detection; this reads the container again for its streams.

import type { ParsedDocument, ParsedPage } from '../../parsed-document.ts';
import type { Parser } from '../../parse-options.ts';
import { noteLimit, spendText } from '../../parse-options.ts';
import { encrypted, unreadable } from '../../errors.ts';
import { LEGACY_MIME_TYPES, openLegacyContainer } from './container.ts';
import { wordText } from './word.ts';
import { workbookText } from './excel.ts';
import { presentationSlides } from './powerpoint.ts';

/** PowerPoint keeps the text of an encrypted presentation in this stream's stead (MS-PPT 2.3.7). */
const PPT_ENCRYPTED_SUMMARY = 'EncryptedSummary';

function required(stream: Buffer | null, name: string): Buffer {
  if (!stream) throw unreadable(new Error(`compound file without its ${name} stream`));
  return stream;
}

export const parseLegacyOffice: Parser = async (bytes, context): Promise<ParsedDocument> => {
  const container = openLegacyContainer(bytes);
  let pages: ParsedPage[];
  let pageCount: number | null = null;
  switch (container.kind) {
    case 'doc':
      pages = [{ pageNumber: null, pageLabel: null, text: (await wordText(bytes, required(container.stream('WordDocument'), 'WordDocument'), context)).join('\n\n') }];
      break;
    case 'xls': {
      ({ pages, sheetCount: pageCount } = await workbookText(bytes, required(container.stream('Workbook') ?? container.stream('Book'), 'Workbook'), context));
      break;
    }
    case 'ppt': {
      if (container.stream(PPT_ENCRYPTED_SUMMARY)) throw encrypted('password-protected PowerPoint 97-2003 presentation');
      const slides = presentationSlides(required(container.stream('PowerPoint Document'), 'PowerPoint Document'));
      const { maxPages } = context.options;
      if (slides.length > maxPages) noteLimit(context, 'pages', maxPages, `Only the first ${maxPages} of the presentation's ${slides.length} slides were read (limit); only the beginning of the document is indexed.`);
      pages = slides.slice(0, maxPages).map((slide) => ({ pageNumber: slide.slide, pageLabel: null, text: slide.text }));
      pageCount = slides.length;
      break;
    }
  }
  // The readers' output counts against the document's text budget like any parser's (an embedded object shares it).
  for (const page of pages) page.text = context.budget.remaining > 0 ? spendText(context.budget, page.text) : '';
  return {
    mimeType: LEGACY_MIME_TYPES[container.kind],
    extension: container.kind,
    pages,
    pageCount,
    textExtraction: 'native',
    ocrUsed: false,
    warnings: context.warnings,
    properties: { title: null, author: null, createdAt: null },
  };
};
