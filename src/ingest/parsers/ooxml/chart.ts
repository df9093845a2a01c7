// Text of a DrawingML chart part: its titles and the cached series names and category labels, once each.
// It never reads the cached numbers (values without labels are not searchable text) nor the embedded workbook.

import type { TextBudget } from '../../parse-options.ts';
import { spendText } from '../../parse-options.ts';
import { readXmlPart } from './package.ts';
import type { OoxmlPackage } from './package.ts';

/** Paragraphs of a chart: titles (a:t runs) and the distinct labels of string caches (c:strCache/c:pt/c:v). */
export async function chartParagraphs(pkg: OoxmlPackage, part: string, budget: TextBudget): Promise<string[]> {
  const labels = new Set<string>();
  const stack: string[] = [];
  let inStringCache = 0;
  let buffer = '';
  await readXmlPart(pkg, part, {
    open(name) {
      stack.push(name);
      if (name === 'strCache') inStringCache++;
      buffer = '';
    },
    text(value) {
      buffer += value;
    },
    close(name) {
      stack.pop();
      if (name === 'strCache') inStringCache--;
      const label = buffer.trim();
      if (label && (name === 't' || (name === 'v' && inStringCache > 0))) labels.add(label);
      buffer = '';
    },
  });
  const text = [...labels].join('\n');
  return text && budget.remaining > 0 ? [spendText(budget, text)] : [];
}
