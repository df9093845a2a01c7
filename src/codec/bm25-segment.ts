// Immutable BM25 index segments: built once from a batch of chunks (text and title analyzed by the
// shared analyzer), merged by rebuilding from postings. A segment is never mutated after it is returned.

import { analyzeFields } from '../text/analyzer.ts';
import { listSize, StringInterner } from '../text/string-table.ts';
import type { StringList, StringTable } from '../text/string-table.ts';

/** id: global chunk ordinal, unique across all segments of a snapshot. */
export interface SparseDoc {
  id: number;
  text: string;
  title?: string;
}

/** Term frequencies are stored in 16 bits; a chunk repeating one term more often is capped here. */
export const MAX_STORED_TERM_FREQUENCY = 0xffff;
/** A merged segment whose term frequencies all fit in a byte stores them in one (a term rarely repeats 255 times in a chunk). */
export const MAX_BYTE_TERM_FREQUENCY = 0xff;

/** A field's term frequency per posting: 8 bits where every one fits (merged segments), else 16. */
export type TermFrequencies = Uint8Array | Uint16Array;

export interface Bm25Segment {
  readonly docCount: number;
  /** Local doc index -> global chunk id. */
  readonly docIds: Int32Array;
  readonly textLengths: Uint32Array;
  readonly titleLengths: Uint32Array;
  readonly totalTextLength: number;
  readonly totalTitleLength: number;
  /** The term dictionary: term t's postings start at postingStarts[t] (idOf finds a term's t). */
  readonly terms: StringTable;
  /** Postings of term t are [postingStarts[t], postingStarts[t + 1]), sorted by local doc index. */
  readonly postingStarts: Uint32Array;
  readonly postingDocs: Uint32Array;
  readonly postingTextTf: TermFrequencies;
  readonly postingTitleTf: TermFrequencies;
}

/** Postings whose terms may be a plain list: what decoded lane data holds and what merging reads. */
export type Bm25Postings = Omit<Bm25Segment, 'terms'> & { readonly terms: StringList };

/** Turns a chunk (the doc at `index` of the batch) into index terms per field; the shared analyzer unless a caller swaps it. */
export type FieldAnalyzer = (text: string, title: string, index: number) => { text: string[]; title: string[] };

/** Per-doc term counts for one field. */
function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function sumCounts(counts: Map<string, number>): number {
  let n = 0;
  for (const c of counts.values()) n += c;
  return n;
}

/** Postings gathered doc by doc, then laid out term by term (CSR) once all counts are known. */
interface PostingDraft {
  /** Term ids in order of first sight, and the terms themselves. */
  terms: StringInterner;
  termDf: number[];
  size: number;
  /** Parallel growable columns: term, local doc, text tf, title tf. */
  entryTerm: Uint32Array;
  entryDoc: Uint32Array;
  entryTextTf: Uint16Array;
  entryTitleTf: Uint16Array;
  /** The largest term frequency of either field (after the cap). */
  maxTf: number;
}

const INITIAL_DRAFT_CAPACITY = 1024;

function newDraft(): PostingDraft {
  return {
    terms: new StringInterner(), termDf: [], size: 0,
    entryTerm: new Uint32Array(INITIAL_DRAFT_CAPACITY),
    entryDoc: new Uint32Array(INITIAL_DRAFT_CAPACITY),
    entryTextTf: new Uint16Array(INITIAL_DRAFT_CAPACITY),
    entryTitleTf: new Uint16Array(INITIAL_DRAFT_CAPACITY),
    maxTf: 0,
  };
}

/** A copy of a typed array in a larger one (growable columns). */
export function grow<T extends Uint32Array | Uint16Array | Int32Array | Int8Array>(column: T, capacity: number): T {
  const bigger = new (column.constructor as new (n: number) => T)(capacity);
  bigger.set(column);
  return bigger;
}

function ensureCapacity(draft: PostingDraft): void {
  if (draft.size < draft.entryTerm.length) return;
  const capacity = draft.entryTerm.length * 2;
  draft.entryTerm = grow(draft.entryTerm, capacity);
  draft.entryDoc = grow(draft.entryDoc, capacity);
  draft.entryTextTf = grow(draft.entryTextTf, capacity);
  draft.entryTitleTf = grow(draft.entryTitleTf, capacity);
}

/** The draft's slot of term t of a list (interned from its bytes where the list holds bytes). */
/** The draft's slot for an interned term id (a new term starts with no postings). */
function termSlot(draft: PostingDraft, slot: number): number {
  if (slot === draft.termDf.length) draft.termDf.push(0);
  return slot;
}

function addEntry(draft: PostingDraft, term: string, doc: number, textTf: number, titleTf: number): void {
  addEntryAt(draft, termSlot(draft, draft.terms.internString(term)), doc, textTf, titleTf);
}

function addEntryAt(draft: PostingDraft, t: number, doc: number, textTf: number, titleTf: number): void {
  draft.termDf[t]++;
  ensureCapacity(draft);
  const e = draft.size++;
  draft.entryTerm[e] = t;
  draft.entryDoc[e] = doc;
  const text = Math.min(textTf, MAX_STORED_TERM_FREQUENCY);
  const title = Math.min(titleTf, MAX_STORED_TERM_FREQUENCY);
  draft.entryTextTf[e] = text;
  draft.entryTitleTf[e] = title;
  if (text > draft.maxTf || title > draft.maxTf) draft.maxTf = Math.max(text, title);
}

/**
 * Lays the entries out term by term; entries were added in doc order, so each list comes out sorted. `narrow`:
 * term frequencies that all fit in a byte are stored in one.
 */
function layOut(draft: PostingDraft, narrow: boolean): Pick<Bm25Segment, 'postingStarts' | 'postingDocs' | 'postingTextTf' | 'postingTitleTf'> {
  const terms = draft.terms.size;
  const starts = new Uint32Array(terms + 1);
  for (let t = 0; t < terms; t++) starts[t + 1] = starts[t] + draft.termDf[t];
  const total = starts[terms];
  const docs = new Uint32Array(total);
  const Frequencies = narrow && draft.maxTf <= MAX_BYTE_TERM_FREQUENCY ? Uint8Array : Uint16Array;
  const textTf = new Frequencies(total);
  const titleTf = new Frequencies(total);
  const cursor = starts.slice(0, terms);
  for (let e = 0; e < draft.size; e++) {
    const slot = cursor[draft.entryTerm[e]]++;
    docs[slot] = draft.entryDoc[e];
    textTf[slot] = draft.entryTextTf[e];
    titleTf[slot] = draft.entryTitleTf[e];
  }
  return { postingStarts: starts, postingDocs: docs, postingTextTf: textTf, postingTitleTf: titleTf };
}

function assertUniqueIds(ids: ArrayLike<number>): void {
  const seen = new Set<number>();
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff) throw new RangeError(`chunk id ${id} is not a 31-bit ordinal`);
    if (seen.has(id)) throw new RangeError(`chunk id ${id} appears twice in one segment`);
    seen.add(id);
  }
}

function seal(draft: PostingDraft, docIds: Int32Array, textLengths: Uint32Array, titleLengths: Uint32Array, narrow: boolean): Bm25Segment {
  let totalText = 0;
  let totalTitle = 0;
  for (let d = 0; d < docIds.length; d++) {
    totalText += textLengths[d];
    totalTitle += titleLengths[d];
  }
  return Object.freeze({
    docCount: docIds.length,
    docIds,
    textLengths,
    titleLengths,
    totalTextLength: totalText,
    totalTitleLength: totalTitle,
    terms: draft.terms.table(),
    ...layOut(draft, narrow),
  });
}

/**
 * Builds an immutable segment from a batch of chunks (ids must be unique non-negative 31-bit integers); its
 * term frequencies are 16-bit, as lane data stores them.
 */
export function buildBm25Segment(docs: readonly SparseDoc[], analyzer: FieldAnalyzer = analyzeFields): Bm25Segment {
  const docIds = Int32Array.from(docs, (d) => d.id);
  assertUniqueIds(docIds);
  const textLengths = new Uint32Array(docs.length);
  const titleLengths = new Uint32Array(docs.length);
  const draft = newDraft();
  docs.forEach((doc, d) => {
    const fields = analyzer(doc.text ?? '', doc.title ?? '', d);
    const text = countTerms(fields.text);
    const title = countTerms(fields.title);
    textLengths[d] = sumCounts(text);
    titleLengths[d] = sumCounts(title);
    for (const [term, tf] of text) addEntry(draft, term, d, tf, title.get(term) ?? 0);
    for (const [term, tf] of title) if (!text.has(term)) addEntry(draft, term, d, 0, tf);
  });
  return seal(draft, docIds, textLengths, titleLengths, false);
}

/**
 * Merges postings one input at a time, keeping the live docs in input order: what mergeBm25Segments does,
 * for callers that stream their inputs (only the merged postings are held, never every input at once).
 */
export class Bm25Merger {
  private readonly draft = newDraft();
  private docIds: Int32Array = new Int32Array(1024);
  private textLengths: Uint32Array = new Uint32Array(1024);
  private titleLengths: Uint32Array = new Uint32Array(1024);
  private docs = 0;

  /** Appends the docs of `segment` that pass `isLive` (by global id). */
  add(segment: Bm25Postings, isLive: (id: number) => boolean): void {
    const map = new Int32Array(segment.docCount).fill(-1);
    for (let d = 0; d < segment.docCount; d++) {
      if (!isLive(segment.docIds[d])) continue;
      if (this.docs === this.docIds.length) {
        this.docIds = grow(this.docIds, this.docs * 2);
        this.textLengths = grow(this.textLengths, this.docs * 2);
        this.titleLengths = grow(this.titleLengths, this.docs * 2);
      }
      this.docIds[this.docs] = segment.docIds[d];
      this.textLengths[this.docs] = segment.textLengths[d];
      this.titleLengths[this.docs] = segment.titleLengths[d];
      map[d] = this.docs++;
    }
    const terms = listSize(segment.terms);
    for (let t = 0; t < terms; t++) {
      let slot = -1;
      for (let p = segment.postingStarts[t]; p < segment.postingStarts[t + 1]; p++) {
        const d = map[segment.postingDocs[p]];
        if (d < 0) continue;
        if (slot < 0) slot = termSlot(this.draft, this.draft.terms.internAt(segment.terms, t));
        addEntryAt(this.draft, slot, d, segment.postingTextTf[p], segment.postingTitleTf[p]);
      }
    }
  }

  get docCount(): number {
    return this.docs;
  }

  finish(): Bm25Segment {
    const docIds = this.docIds.slice(0, this.docs);
    assertUniqueIds(docIds);
    return seal(this.draft, docIds, this.textLengths.slice(0, this.docs), this.titleLengths.slice(0, this.docs), true);
  }
}

/**
 * Rebuilds one segment holding only the live docs of the given segments, in segment order. Searching it
 * scores exactly like searching the inputs with prepareBm25Liveness(inputs, isLive) (tested).
 */
export function mergeBm25Segments(segments: readonly Bm25Postings[], isLive: (id: number) => boolean): Bm25Segment {
  const merger = new Bm25Merger();
  for (const segment of segments) merger.add(segment, isLive);
  return merger.finish();
}
