// Text ranges already claimed by one entity type, so another type does not re-read them (the "Malaysia"
// of "Bank Negara Malaysia" is not a location, the "Dato' Onn" of "Jalan Dato' Onn" is not a person).
// Pure data structure; it never decides what an entity is.

export interface Span {
  start: number;
  end: number;
  value: string;
}

export interface SpanIndex {
  overlaps(start: number, end: number): boolean;
}

/** Merges the ranges into disjoint intervals so each overlap query is one binary search. */
export function createSpanIndex(spans: Iterable<{ start: number; end: number }>): SpanIndex {
  const sorted = [...spans].filter((s) => s.end > s.start).sort((a, b) => a.start - b.start);
  const starts: number[] = [];
  const ends: number[] = [];
  for (const span of sorted) {
    const last = ends.length - 1;
    if (last >= 0 && span.start <= ends[last]) ends[last] = Math.max(ends[last], span.end);
    else {
      starts.push(span.start);
      ends.push(span.end);
    }
  }
  return {
    overlaps(start, end) {
      let lo = 0;
      let hi = starts.length - 1;
      let candidate = -1; // last interval starting before `end`
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid] < end) {
          candidate = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      return candidate >= 0 && ends[candidate] > start;
    },
  };
}

export const EMPTY_SPAN_INDEX: SpanIndex = { overlaps: () => false };

/** Keeps the longest of overlapping candidates, earliest first; the result is sorted and disjoint. */
export function resolveOverlaps(candidates: readonly Span[]): Span[] {
  const sorted = [...candidates].sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start));
  const kept: Span[] = [];
  for (const span of sorted) {
    const last = kept[kept.length - 1];
    if (last === undefined || span.start >= last.end) kept.push(span);
    else if (span.end - span.start > last.end - last.start) kept[kept.length - 1] = span;
  }
  return kept;
}
