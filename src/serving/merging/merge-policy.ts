// Which of a Client's segments merge next, decided from their sizes alone: the list is a snapshot's segments,
// oldest first (publications append), each described by its rows and its dead rows (rows of versions replaced or
// deleted). The policy never sees a segment itself, so it can be read and tested on hand-made lists; merge-plans.ts
// applies it to a snapshot and merge-scheduler.ts runs what it asks for.

/**
 * Segments merge in runs of this many of one size class, so each chunk is rebuilt about log4(n) times, not
 * log2(n) as when merging pairs: during bulk ingest merges are most of what an api process spends.
 */
export const SEGMENT_MERGE_FACTOR = 4;
/** Size class 0 holds segments below SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR rows; each class is that factor larger. */
export const SEGMENT_CLASS_BASE_ROWS = 64;
/** Upper bound on segments per snapshot; past it the two newest are merged regardless. */
export const MAX_SEGMENTS = 24;
/**
 * A segment whose rows are at least this share dead (their versions replaced or deleted) is rewritten without
 * them. Size-class runs form at the newest end, so without this an old segment kept by a few live chunks would
 * hold every dead row beside them: memory would grow with publications, not with what is served.
 */
export const SEGMENT_DEAD_SHARE = 0.5;
/** ...once it holds at least this many dead rows, so that small segments are not rewritten for a few. */
export const SEGMENT_DEAD_MIN_ROWS = SEGMENT_CLASS_BASE_ROWS;

/**
 * What the policy reads of a segment. `deadRows` is read only while the segments hold enough dead rows in all to
 * rewrite one, and only of segments small enough to be half dead: counting them walks a segment's versions, so a
 * caller may give it as a getter.
 */
export interface SegmentSize {
  readonly rows: number;
  readonly deadRows: number;
}

/** Adjacent segments to merge into one: positions start .. end - 1 of the list. */
export interface MergeRun {
  readonly start: number;
  readonly end: number;
}

/** The size class of a segment of `rows` rows (dead rows count too: a segment full of them is worth rewriting). */
export function sizeClass(rows: number): number {
  let sizeClass = 0;
  for (let bound = SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR; rows >= bound; bound *= SEGMENT_MERGE_FACTOR) sizeClass++;
  return sizeClass;
}

/** The newest run of SEGMENT_MERGE_FACTOR adjacent segments of one size class, or null. */
function sizeClassRun(segments: readonly Pick<SegmentSize, 'rows'>[]): MergeRun | null {
  for (let end = segments.length; end >= SEGMENT_MERGE_FACTOR; end--) {
    const start = end - SEGMENT_MERGE_FACTOR;
    const head = sizeClass(segments[start].rows);
    if (segments.slice(start, end).every((segment) => sizeClass(segment.rows) === head)) return { start, end };
  }
  return null;
}

/**
 * The position of the segment with the most dead rows among those due a rewrite (SEGMENT_DEAD_SHARE,
 * SEGMENT_DEAD_MIN_ROWS), or -1. Asked after every publication, so the dead rows in all bound the search first:
 * with none (bulk ingest) no segment's dead rows are counted, and a segment too large to be half dead is never counted.
 */
function mostlyDeadSegment(segments: readonly SegmentSize[], deadInAll: number): number {
  if (deadInAll < SEGMENT_DEAD_MIN_ROWS) return -1;
  let chosen = -1;
  let chosenDead = 0;
  segments.forEach((segment, position) => {
    if (segment.rows * SEGMENT_DEAD_SHARE > deadInAll) return;
    const dead = segment.deadRows;
    if (dead >= SEGMENT_DEAD_MIN_ROWS && dead >= SEGMENT_DEAD_SHARE * segment.rows && dead > chosenDead) {
      chosen = position;
      chosenDead = dead;
    }
  });
  return chosen;
}

/**
 * Log-structured merging: once SEGMENT_MERGE_FACTOR adjacent segments are of one size class, they merge into one
 * of a larger class, so a Client with n chunks keeps O(log n) segments and each chunk is rebuilt O(log n) times.
 * Publications append, so such a run forms at the newest end; older runs form when rewrites shrink segments.
 * Past MAX_SEGMENTS the two newest merge regardless. Otherwise a segment mostly made of dead rows is rewritten
 * alone (a run of one), so the rows held stay within about twice the live ones. `deadInAll`: the dead rows of
 * all the segments (a snapshot knows it without counting each). Returns the run to merge next, or null.
 */
export function compactionRun(segments: readonly SegmentSize[], deadInAll: number): MergeRun | null {
  if (segments.length > MAX_SEGMENTS) return { start: segments.length - 2, end: segments.length };
  const run = sizeClassRun(segments);
  if (run) return run;
  const mostlyDead = mostlyDeadSegment(segments, deadInAll);
  return mostlyDead < 0 ? null : { start: mostlyDead, end: mostlyDead + 1 };
}

/**
 * The merge a Client's segments get once its publications pause (merge-scheduler.ts SEGMENT_SETTLE_MS): its newest
 * segments into one, reaching back over each older segment at most SEGMENT_MERGE_FACTOR times the rows taken so far.
 * Size-class runs must be adjacent and of one class, so bulk ingest leaves a dozen or more segments of mixed sizes
 * (measured: 24 after 100,000 chunks over HTTP), and a search pays for each: its own term lookups, and its own graph
 * walk or exact scan. Settled, a Client is one segment, or a few each over SEGMENT_MERGE_FACTOR times the rows of
 * all newer ones; a large segment is rewritten only once the newer rows reach a share of it, so that each row is
 * rebuilt about log(n) times whatever the pauses. Null when nothing would merge.
 */
export function settleRun(segments: readonly Pick<SegmentSize, 'rows'>[]): MergeRun | null {
  let start = segments.length - 1;
  if (start < 1) return null;
  let rows = segments[start].rows;
  while (start > 0 && segments[start - 1].rows <= SEGMENT_MERGE_FACTOR * rows) {
    start--;
    rows += segments[start].rows;
  }
  return segments.length - start >= 2 ? { start, end: segments.length } : null;
}
