// Text of a PresentationML deck, one page per slide in presentation order: slide shapes and tables, SmartArt, charts'
// titles, speaker notes and comments. It never reads layouts or masters (their placeholder prompts are not content).

import type { ParsedPage } from '../../parsed-document.ts';
import type { ParserContext } from '../../parse-options.ts';
import { noteLimit, spendText } from '../../parse-options.ts';
import { REL_ATTR_PREFIX } from '../../guards/xml-guard.ts';
import { createTextCollector } from './text-collector.ts';
import { chartParagraphs } from './chart.ts';
import { embeddedParagraphs } from './embedded.ts';
import { readRelationships, readXmlPart, relType } from './package.ts';
import type { OoxmlPackage, Relationship } from './package.ts';

/** Parts related to a slide whose paragraphs belong to that slide's page, in this order (charts are read apart). */
const SLIDE_STORY_TYPES = ['diagramData', 'notesSlide'];
/** Comment parts: legacy (p:cm/p:text) and modern (p188:cm/.../a:t). */
const COMMENT_TYPES = ['comments'];

async function slideParts(pkg: OoxmlPackage, mainPart: string): Promise<string[]> {
  const rels = (await readRelationships(pkg, mainPart)).filter((r) => !r.external);
  const targets = new Map(rels.map((r) => [r.id, r.target]));
  const slides: string[] = [];
  await readXmlPart(pkg, mainPart, {
    open(name, attributes) {
      const part = targets.get(attributes[`${REL_ATTR_PREFIX}id`] ?? '');
      if (name === 'sldId' && part) slides.push(part);
    },
  });
  return slides;
}

async function paragraphsOf(pkg: OoxmlPackage, part: string, context: ParserContext): Promise<string[]> {
  const collector = createTextCollector(context.budget);
  await readXmlPart(pkg, part, collector.handlers, () => context.budget.remaining === 0);
  return collector.paragraphs;
}

async function commentsOf(pkg: OoxmlPackage, part: string, context: ParserContext): Promise<string[]> {
  const comments: string[] = [];
  let inText = 0;
  let current: string[] = [];
  await readXmlPart(pkg, part, {
    open(name) {
      if (name === 'text' || name === 't') inText++;
      if (name === 'cm') current = [];
    },
    text(value) {
      if (inText > 0) current.push(value);
    },
    close(name) {
      if (name === 'text' || name === 't') inText--;
      if (name !== 'cm') return;
      const text = current.join(' ').replace(/\s+/gu, ' ').trim();
      if (text && context.budget.remaining > 0) comments.push(spendText(context.budget, text));
    },
  });
  return comments;
}

async function relatedText(pkg: OoxmlPackage, rels: Relationship[], context: ParserContext): Promise<string[]> {
  const paragraphs: string[] = [];
  for (const rel of rels.filter((r) => relType(r, 'chart'))) paragraphs.push(...(await chartParagraphs(pkg, rel.target, context.budget)));
  for (const type of SLIDE_STORY_TYPES) {
    for (const rel of rels.filter((r) => relType(r, type))) paragraphs.push(...(await paragraphsOf(pkg, rel.target, context)));
  }
  for (const rel of rels.filter((r) => COMMENT_TYPES.some((type) => relType(r, type)))) {
    paragraphs.push(...(await commentsOf(pkg, rel.target, context)));
  }
  return paragraphs;
}

/** One page per slide (up to the page limit); pageNumber is the slide's 1-based position; slideCount counts them all. */
export async function extractPresentationPages(pkg: OoxmlPackage, mainPart: string, context: ParserContext): Promise<{ pages: ParsedPage[]; slideCount: number }> {
  const pages: ParsedPage[] = [];
  const slides = await slideParts(pkg, mainPart);
  const maxPages = context.options.maxPages;
  if (slides.length > maxPages) {
    noteLimit(context, 'pages', maxPages, `Only the first ${maxPages} of the presentation's ${slides.length} slides were read (limit); only the beginning of the document is indexed.`);
  }
  for (const [index, slide] of slides.slice(0, maxPages).entries()) {
    const paragraphs = context.budget.remaining > 0 ? await paragraphsOf(pkg, slide, context) : [];
    if (context.budget.remaining > 0) {
      const rels = (await readRelationships(pkg, slide)).filter((r) => !r.external);
      paragraphs.push(...(await relatedText(pkg, rels, context)));
      paragraphs.push(...(await embeddedParagraphs(pkg, slide, context)));
    }
    pages.push({ pageNumber: index + 1, pageLabel: null, text: paragraphs.join('\n\n') });
  }
  return { pages, slideCount: slides.length };
}
