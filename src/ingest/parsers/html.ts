// HTML: charset from BOM, meta declaration (checked against the bytes) or sniffing; visible text in paragraphs; title,
// author and date from the head. It never keeps script, style or template text and never fetches linked resources.

import { Parser as HtmlParser } from 'htmlparser2';
import type { DocumentProperties, ParsedDocument } from '../parsed-document.ts';
import type { Parser, TextBudget } from '../parse-options.ts';
import { spendText } from '../parse-options.ts';
import { decodeBytes } from './charset.ts';
import { isoTimestamp, MAX_PROPERTY_CHARS } from './ooxml/core-properties.ts';

/** How far into the bytes a meta charset declaration is looked for (pages with long preambles declare it late). */
export const HTML_CHARSET_SCAN_BYTES = 64 * 1024;

/** Elements whose text is never shown as page text (the head's only visible text, the title, is read separately). */
const HIDDEN = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'title']);
const BLOCK = new Set([
  'p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'tr', 'table', 'thead', 'tbody', 'tfoot',
  'section', 'article', 'header', 'footer', 'blockquote', 'pre', 'hr', 'form', 'address', 'figure', 'figcaption', 'main',
  'nav', 'aside', 'caption', 'fieldset', 'legend', 'details', 'summary', 'body', 'center',
]);
/** Elements that end a line but not a paragraph (each option of a select list is one entry). */
const LINE_BREAK = new Set(['br', 'option', 'optgroup', 'label', 'button', 'textarea']);
/** Stands for an explicit line break while source whitespace is being collapsed. */
const HARD_BREAK = '\u2028';
const AUTHOR_META = new Set(['author', 'dc.creator', 'dcterms.creator']);
const DATE_META = new Set(['dcterms.created', 'dc.date', 'date', 'created', 'article:published_time', 'dcterms.date']);

/** The charset named by the first meta declaration in the head of the bytes, if any. */
export function declaredCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, HTML_CHARSET_SCAN_BYTES)).toString('latin1');
  const match = /<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/iu.exec(head);
  return match?.[1] ?? null;
}

interface HtmlText {
  paragraphs: string[];
  properties: DocumentProperties;
}

function clip(value: string | undefined): string | null {
  const text = (value ?? '').replace(/\s+/gu, ' ').trim().slice(0, MAX_PROPERTY_CHARS);
  return text || null;
}

function extractHtml(html: string, budget: TextBudget): HtmlText {
  const result: HtmlText = { paragraphs: [], properties: { title: null, author: null, createdAt: null } };
  let hiddenDepth = 0;
  let inTitle = false;
  let titleDone = false;
  let title = '';
  let current = '';
  const flush = (): void => {
    const text = current
      .replace(/[ \t\f\v\r\n\u00a0]+/gu, ' ')
      .split(HARD_BREAK)
      .map((line) => line.trim())
      .filter(Boolean)
      .join('\n');
    current = '';
    if (text && budget.remaining > 0) result.paragraphs.push(spendText(budget, text));
  };
  const onMeta = (attributes: Record<string, string>): void => {
    const name = (attributes.name ?? attributes.property ?? '').toLowerCase();
    if (AUTHOR_META.has(name)) result.properties.author ??= clip(attributes.content);
    if (DATE_META.has(name)) result.properties.createdAt ??= isoTimestamp(attributes.content ?? null);
  };
  const parser = new HtmlParser(
    {
      onopentag(name, attributes) {
        if (name === 'title' && !titleDone && hiddenDepth === 0) inTitle = true;
        if (name === 'meta') onMeta(attributes);
        if (HIDDEN.has(name)) hiddenDepth++;
        else if (BLOCK.has(name)) flush();
        else if (LINE_BREAK.has(name)) current += HARD_BREAK;
        else if (name === 'td' || name === 'th') current += '\t';
      },
      ontext(text) {
        if (inTitle && title.length < MAX_PROPERTY_CHARS) title += text;
        if (hiddenDepth !== 0) return;
        // The paragraph being collected stays within what the document may still index (with room for the
        // whitespace that flush folds away); beyond that its text is dropped, which flush's spend could not keep.
        const room = 2 * budget.remaining + 65_536 - current.length;
        if (text.length > room) {
          budget.truncated = true;
          current += text.slice(0, Math.max(0, room));
        } else current += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = true;
        }
        if (HIDDEN.has(name)) hiddenDepth = Math.max(0, hiddenDepth - 1);
        else if (BLOCK.has(name)) flush();
        else if (LINE_BREAK.has(name)) current += HARD_BREAK;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  flush();
  result.properties.title = clip(title);
  return result;
}

export const parseHtml: Parser = async (bytes, context): Promise<ParsedDocument> => {
  const { text: html } = decodeBytes(bytes, declaredCharset(bytes));
  const { paragraphs, properties } = extractHtml(html, context.budget);
  return {
    mimeType: 'text/html',
    extension: 'html',
    pages: [{ pageNumber: null, pageLabel: null, text: paragraphs.join('\n\n') }],
    pageCount: null,
    textExtraction: 'native',
    ocrUsed: false,
    warnings: context.warnings,
    properties,
  };
};
