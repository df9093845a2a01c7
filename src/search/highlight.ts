// Highlight spans (DESIGN.md): offsets in UTF-16 code units into the evidence text where a query term
// matched, sorted and non-overlapping. Spans come from the same analyzer that indexed the text.

import { analyze } from '../text/analyzer.ts';

export interface HighlightSpan {
  start: number;
  end: number;
}

export function highlightSpans(text: string, queryTerms: readonly string[]): HighlightSpan[] {
  if (queryTerms.length === 0) return [];
  const wanted = new Set(queryTerms);
  const spans = analyze(text)
    .filter((term) => wanted.has(term.term))
    .map((term) => ({ start: term.start, end: term.end }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: HighlightSpan[] = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}
