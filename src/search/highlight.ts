// Highlight spans (DESIGN.md): offsets in UTF-16 code units into the evidence text where a query term
// matched, sorted and non-overlapping. Spans come from the same analyzer that indexed the text.

import { analyze } from '../text/analyzer.ts';
import { analysisModeOf } from '../codec/chunk-analysis.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';

export interface HighlightSpan {
  start: number;
  end: number;
}

/**
 * `language`: the chunk's, which chose its analyzer at indexing (null for a chunk indexed before languages were
 * recorded, whose mode is detected again as it was then). Metadata values have none.
 */
export function highlightSpans(text: string, queryTerms: readonly string[], language: ChunkLanguage | null = null): HighlightSpan[] {
  if (queryTerms.length === 0) return [];
  const wanted = new Set(queryTerms);
  const spans = analyze(text, analysisModeOf(language))
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
