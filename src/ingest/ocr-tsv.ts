// Tesseract's TSV output read back into pages: the text as tesseract lays it out (words of a line joined by spaces,
// lines by a newline, paragraphs and blocks by a blank line) and each page's mean word confidence (0 to 100).

export interface RecognizedPage {
  text: string;
  /** Mean confidence of the page's words, 0 to 100; null when it has none. */
  confidence: number | null;
  words: number;
}

/** TSV columns (tesseract --psm N tsv): level, page_num, block_num, par_num, line_num, word_num, left, top, width, height, conf, text. */
const WORD_LEVEL = '5';
const PAGE_LEVEL = '1';

/** Pages started in TSV output so far (one level-1 row each). */
export function tsvPagesStarted(tsv: string): number {
  return tsv.match(/^1\t/gmu)?.length ?? 0;
}

export function readTesseractTsv(tsv: string): RecognizedPage[] {
  const pages: { paragraphs: string[][]; lastKey: string; lastParagraph: string; confidenceSum: number; words: number }[] = [];
  for (const line of tsv.split('\n')) {
    const columns = line.split('\t');
    if (columns.length < 12) continue;
    const [level, pageNumber, block, paragraph, lineNumber] = columns;
    if (level === PAGE_LEVEL) {
      pages[Number(pageNumber) - 1] ??= { paragraphs: [], lastKey: '', lastParagraph: '', confidenceSum: 0, words: 0 };
      continue;
    }
    if (level !== WORD_LEVEL) continue;
    const word = columns.slice(11).join('\t').trim();
    const page = pages[Number(pageNumber) - 1];
    if (!word || !page) continue;
    const confidence = Number(columns[10]);
    if (confidence >= 0) {
      page.confidenceSum += confidence;
      page.words++;
    }
    const paragraphKey = `${block}.${paragraph}`;
    const lineKey = `${paragraphKey}.${lineNumber}`;
    if (paragraphKey !== page.lastParagraph) {
      page.paragraphs.push([word]);
      page.lastParagraph = paragraphKey;
    } else if (lineKey !== page.lastKey) {
      page.paragraphs.at(-1)!.push(word);
    } else {
      const lines = page.paragraphs.at(-1)!;
      lines[lines.length - 1] += ` ${word}`;
    }
    page.lastKey = lineKey;
  }
  return Array.from(pages, (page) => ({
    text: page ? page.paragraphs.map((lines) => lines.join('\n')).join('\n\n') : '',
    confidence: page && page.words > 0 ? page.confidenceSum / page.words : null,
    words: page?.words ?? 0,
  }));
}
