// The merge policy (merge-policy.ts) applied to a Client's snapshot: its segments described by their sizes, and
// the run the policy chose handed back as those segments.

import { compactionRun, settleRun } from './merge-policy.ts';
import type { MergeRun, SegmentSize } from './merge-policy.ts';
import { liveRowsOf, replaceSegments } from '../snapshot.ts';
import type { ClientSnapshot } from '../snapshot.ts';
import { inlineSegmentBuilder } from '../segment.ts';
import type { Segment, SegmentBuilder } from '../segment.ts';

/** The snapshot's segments as the policy reads them: dead rows counted only if it asks. */
function sizesOf(snapshot: ClientSnapshot): SegmentSize[] {
  return snapshot.segments.map((segment) => ({
    rows: segment.rows,
    get deadRows() {
      return segment.rows - liveRowsOf(segment, snapshot.live);
    },
  }));
}

function segmentsOf(snapshot: ClientSnapshot, run: MergeRun | null): Segment[] | null {
  return run ? snapshot.segments.slice(run.start, run.end) : null;
}

/** The adjacent segments to merge next as publications go on (compactionRun), or null. */
export function compactionPlan(snapshot: ClientSnapshot): Segment[] | null {
  const deadInAll = snapshot.segments.reduce((sum, segment) => sum + segment.rows, 0) - snapshot.liveChunkCount;
  return segmentsOf(snapshot, compactionRun(sizesOf(snapshot), deadInAll));
}

/** The newest segments to merge once the Client's publications pause (settleRun), or null. */
export function settleMergePlan(snapshot: ClientSnapshot): Segment[] | null {
  return segmentsOf(snapshot, settleRun(snapshot.segments));
}

/** Runs merges until the policy asks for none (inline: tests and tools; api processes compact in the background). */
export async function compactFully(snapshot: ClientSnapshot, builder: SegmentBuilder = inlineSegmentBuilder): Promise<ClientSnapshot> {
  let current = snapshot;
  for (let plan = compactionPlan(current); plan; plan = compactionPlan(current)) {
    current = replaceSegments(current, plan, await builder.merge(plan, current.live))!;
  }
  return current;
}
