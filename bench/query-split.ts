// Splits a dataset's judged queries into a development half and a held-out half, so that a synonym set (or any
// other choice made by reading queries against their passages) is chosen on one half and measured on the other.
// Benchmark support only: the service never reads it.
//
// The rule: a query belongs to the half of its group, and its group is its first judged passage (the smallest
// document id it has a positive judgment for). The group's id is hashed with SHA-256; a first byte below
// DEV_BYTE_LIMIT puts it in `dev`, otherwise in `heldout`. Grouping by passage, not by query, keeps every question
// on one passage in the same half: questions on one passage share its wording, and a rule read off one of them
// would otherwise be measured on its neighbours. The rule reads ids only, never texts or results, so it is fixed
// before anything is measured and the same on every machine.

import { createHash } from 'node:crypto';
import type { Dataset } from './datasets.ts';

export const QUERY_HALVES = ['dev', 'heldout'] as const;
export type QueryHalf = (typeof QUERY_HALVES)[number];

/** First bytes of the group's SHA-256 below this go to `dev`: half of the 256 values. */
export const DEV_BYTE_LIMIT = 128;

/** The passage a query is grouped by: its smallest judged document id, or its own id when it has none. */
export function queryGroup(queryId: string, relevant: ReadonlyMap<string, number>): string {
  const judged = [...relevant.keys()].sort();
  return judged[0] ?? queryId;
}

/** The half a group belongs to. */
export function groupHalf(group: string): QueryHalf {
  return createHash('sha256').update(group, 'utf8').digest()[0] < DEV_BYTE_LIMIT ? 'dev' : 'heldout';
}

export function isQueryHalf(value: string): value is QueryHalf {
  return (QUERY_HALVES as readonly string[]).includes(value);
}

/** The dataset with only the judged queries of one half (documents unchanged: every passage stays searchable). */
export function selectHalf(dataset: Dataset, half: QueryHalf): Dataset {
  const qrels = new Map([...dataset.qrels].filter(([queryId, relevant]) => groupHalf(queryGroup(queryId, relevant)) === half));
  return { ...dataset, qrels };
}
