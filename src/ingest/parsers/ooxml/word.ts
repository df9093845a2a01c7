// Text of a WordprocessingML document: body (tables, text boxes), footnotes, endnotes, comments, then headers and footers.
// It never reads embedded objects or media, and keeps repeated headers/footers once.

import type { ParserContext } from '../../parse-options.ts';
import { createTextCollector } from './text-collector.ts';
import { chartParagraphs } from './chart.ts';
import { readRelationships, readXmlPart, relType } from './package.ts';
import type { OoxmlPackage } from './package.ts';

/** Secondary story parts read after the body, in this order ('chart' parts go through the chart reader). */
const STORY_TYPES = ['footnotes', 'endnotes', 'comments', 'diagramData', 'chart', 'header', 'footer'];

async function paragraphsOf(pkg: OoxmlPackage, part: string, context: ParserContext, type = ''): Promise<string[]> {
  if (type === 'chart') return chartParagraphs(pkg, part, context.budget);
  const collector = createTextCollector(context.budget);
  await readXmlPart(pkg, part, collector.handlers, () => context.budget.remaining === 0);
  return collector.paragraphs;
}

/** All paragraphs of the document, body first; identical header/footer paragraphs are kept once. */
export async function extractWordText(pkg: OoxmlPackage, mainPart: string, context: ParserContext): Promise<string[]> {
  const paragraphs = await paragraphsOf(pkg, mainPart, context);
  const rels = (await readRelationships(pkg, mainPart)).filter((r) => !r.external);
  const seen = new Set<string>();
  for (const type of STORY_TYPES) {
    for (const rel of rels.filter((r) => relType(r, type))) {
      if (context.budget.remaining === 0) return paragraphs;
      for (const paragraph of await paragraphsOf(pkg, rel.target, context, type)) {
        const repeatable = type === 'header' || type === 'footer';
        if (repeatable && seen.has(paragraph)) continue;
        seen.add(paragraph);
        paragraphs.push(paragraph);
      }
    }
  }
  return paragraphs;
}
