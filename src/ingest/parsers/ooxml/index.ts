// The one OOXML reader: opens a ZIP package behind the guards, finds its main part, and extracts DOCX, XLSX or PPTX text.
// It never opens plain ZIP archives as documents and never trusts the file name over the package's own content types.

import type { ParsedDocument, ParsedPage } from '../../parsed-document.ts';
import type { Parser, ParserContext } from '../../parse-options.ts';
import { unreadable, unsupportedFormat } from '../../errors.ts';
import { checkNotNested } from '../../guards/archive-guard.ts';
import { extensionOf, requireNameAgrees } from '../../detect.ts';
import { closePackage, hasPart, openPackage, readContentTypeOverrides, readRelationships, relType } from './package.ts';
import type { OoxmlPackage } from './package.ts';
import { readCoreProperties } from './core-properties.ts';
import { extractWordText } from './word.ts';
import { extractSpreadsheetPages } from './spreadsheet.ts';
import { extractPresentationPages } from './presentation.ts';
import { embeddedParagraphs } from './embedded.ts';

export type OoxmlKind = 'docx' | 'xlsx' | 'pptx';

export const OOXML_MIME_TYPES: Record<OoxmlKind, string> = {
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Extensions that name the same kind of package (templates, macro-enabled, slide shows). */
const SAME_KIND: Record<OoxmlKind, string[]> = {
  docx: ['docx', 'docm', 'dotx', 'dotm'],
  xlsx: ['xlsx', 'xlsm', 'xltx', 'xltm'],
  pptx: ['pptx', 'pptm', 'potx', 'potm', 'ppsx', 'ppsm'],
};

function kindOf(contentType: string | undefined, mainPart: string): OoxmlKind | null {
  const hint = `${contentType ?? ''} ${mainPart}`.toLowerCase();
  if (hint.includes('wordprocessingml') || mainPart.startsWith('word/')) return 'docx';
  if (hint.includes('spreadsheetml') || mainPart.startsWith('xl/')) return 'xlsx';
  if (hint.includes('presentationml') || mainPart.startsWith('ppt/')) return 'pptx';
  return null;
}

function refuseNonDocument(pkg: OoxmlPackage): never {
  const entries = pkg.archive.entries;
  if (entries.length === 0) throw unreadable(new Error('ZIP archive without entries'));
  checkNotNested(entries);
  if (hasPart(pkg, 'mimetype')) throw unsupportedFormat('OpenDocument file; save it as .docx, .xlsx or .pptx');
  if (hasPart(pkg, '[Content_Types].xml')) throw unsupportedFormat('Office package of an unsupported kind');
  throw unsupportedFormat('ZIP archive; upload the documents inside it one by one');
}

async function mainDocument(pkg: OoxmlPackage): Promise<{ part: string; kind: OoxmlKind }> {
  const rels = await readRelationships(pkg, '');
  const main = rels.find((r) => !r.external && relType(r, 'officeDocument'));
  if (!main) refuseNonDocument(pkg);
  const overrides = await readContentTypeOverrides(pkg);
  const kind = kindOf(overrides.get(main.target.toLowerCase()), main.target);
  if (!kind || !hasPart(pkg, main.target)) refuseNonDocument(pkg);
  return { part: main.target, kind };
}

/** The document's pages, and its page count when the format has pages (every slide or sheet, read or not). */
async function extractPages(pkg: OoxmlPackage, kind: OoxmlKind, part: string, context: ParserContext): Promise<{ pages: ParsedPage[]; pageCount: number | null }> {
  if (kind === 'pptx') {
    const { pages, slideCount } = await extractPresentationPages(pkg, part, context);
    return { pages, pageCount: slideCount };
  }
  if (kind === 'xlsx') {
    // A page per sheet, labelled with its name; a workbook's embedded objects join their sheet's page.
    const { pages, sheetCount } = await extractSpreadsheetPages(pkg, part, context);
    return { pages, pageCount: sheetCount };
  }
  // A Word document's embedded objects join its end.
  const paragraphs = [...(await extractWordText(pkg, part, context)), ...(await embeddedParagraphs(pkg, part, context))];
  return { pages: [{ pageNumber: null, pageLabel: null, text: paragraphs.join('\n\n') }], pageCount: null };
}

/** What each kind is called in a refusal. */
const KIND_NAMES: Record<OoxmlKind, string> = { docx: 'a Word document (DOCX)', xlsx: 'an Excel workbook (XLSX)', pptx: 'a PowerPoint presentation (PPTX)' };

/** A package under a name that promises another format fails (detect.ts); .zip promises a package of any kind. */
function requireKindNamed(kind: OoxmlKind, context: ParserContext): void {
  requireNameAgrees(extensionOf(context.filename), [...SAME_KIND[kind], 'zip'], KIND_NAMES[kind]);
}

export const parseOoxml: Parser = async (bytes, context): Promise<ParsedDocument> => {
  const pkg = await openPackage(bytes);
  try {
    const { part, kind } = await mainDocument(pkg);
    requireKindNamed(kind, context);
    const { pages, pageCount } = await extractPages(pkg, kind, part, context);
    const properties = await readCoreProperties(pkg);
    return {
      mimeType: OOXML_MIME_TYPES[kind],
      extension: kind,
      pages,
      pageCount,
      textExtraction: 'native',
      ocrUsed: context.ocr.recognisedPages > 0, // pictures inside the document, or a scan inside an embedded PDF
      warnings: context.warnings,
      properties,
    };
  } finally {
    closePackage(pkg);
  }
};
