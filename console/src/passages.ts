// A hit's chunk cut down to the passages around its matched spans, as search dashboards show them: a chunk is
// about 2,000 characters, a card has room for a few lines. Pure text arithmetic (no DOM), so it is tested on its
// own (test/console/passages.test.ts).

export interface Span {
  start: number;
  end: number;
}

export interface Passage {
  /** The passage's text, without the ellipses. */
  text: string;
  /** The matched spans inside `text` (offsets into it). */
  spans: Span[];
  /** Text of the chunk was left out before / after this passage. */
  cutBefore: boolean;
  cutAfter: boolean;
}

/** Characters kept on each side of a matched span. */
export const PASSAGE_CONTEXT_CHARS = 90;
/** Passages one chunk shows at most (the earliest). */
export const MAX_PASSAGES = 3;
/** The start of a chunk shown when nothing in it is marked (a dense-lane hit). */
export const UNMARKED_PREVIEW_CHARS = 240;

/** The nearest word boundary at or before `at` (within the context, else `at` itself). */
function backToWord(text: string, at: number, floor: number): number {
  for (let index = at; index > floor; index--) if (/\s/.test(text[index - 1])) return index;
  return at;
}

function forwardToWord(text: string, at: number, ceiling: number): number {
  for (let index = at; index < ceiling; index++) if (/\s/.test(text[index])) return index;
  return at;
}

/** Spans that are usable for `text`: inside it, non-empty, sorted, not overlapping. */
function usable(text: string, spans: readonly Span[]): Span[] {
  const kept: Span[] = [];
  for (const span of spans) {
    if (span.start < (kept.at(-1)?.end ?? 0) || span.end <= span.start || span.end > text.length) continue;
    kept.push(span);
  }
  return kept;
}

export function passages(text: string, highlights: readonly Span[] | undefined): Passage[] {
  const spans = usable(text, highlights ?? []);
  if (spans.length === 0) {
    const end = text.length <= UNMARKED_PREVIEW_CHARS ? text.length : forwardToWord(text, UNMARKED_PREVIEW_CHARS, Math.min(text.length, UNMARKED_PREVIEW_CHARS + 40));
    return [{ text: text.slice(0, end).trim(), spans: [], cutBefore: false, cutAfter: end < text.length }];
  }
  // Windows around each span, merged where they touch.
  const windows: { start: number; end: number; spans: Span[] }[] = [];
  for (const span of spans) {
    const start = Math.max(0, span.start - PASSAGE_CONTEXT_CHARS);
    const end = Math.min(text.length, span.end + PASSAGE_CONTEXT_CHARS);
    const last = windows.at(-1);
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.spans.push(span);
    } else windows.push({ start, end, spans: [span] });
  }
  return windows.slice(0, MAX_PASSAGES).map((window) => {
    const first = window.spans[0];
    const final = window.spans.at(-1)!;
    const start = window.start === 0 ? 0 : Math.min(first.start, backToWord(text, window.start, Math.max(0, window.start - 30)));
    const end = window.end === text.length ? text.length : Math.max(final.end, forwardToWord(text, window.end, Math.min(text.length, window.end + 30)));
    const slice = text.slice(start, end);
    const lead = slice.length - slice.trimStart().length;
    const body = slice.trim();
    return {
      text: body,
      spans: window.spans.map((span) => ({ start: span.start - start - lead, end: span.end - start - lead })),
      cutBefore: start > 0,
      cutAfter: end < text.length,
    };
  });
}
