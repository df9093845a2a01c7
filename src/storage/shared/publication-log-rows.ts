// A Client's publication log as both adapters keep it: an entry's row read as the domain's entry, when an
// append compacts the log, and when a follower's position is too far behind the log to replay from it.

import type { PublicationLogEntry, PublicationLogKind } from '../../domain/publication-log.ts';

/** The log is compacted on every this-many-th append (a cheap indexed delete). */
export const PUBLICATION_LOG_COMPACTION_EVERY = 64;

export interface LogRow {
  seq: number;
  kind: PublicationLogKind;
  document_id: string;
  version_key: string;
  generation: number | null;
}

export function toLogEntry(row: LogRow): PublicationLogEntry {
  return { seq: row.seq, kind: row.kind, documentId: row.document_id, versionKey: row.version_key, generation: row.generation };
}

/**
 * After appending `seq`: the newest sequence number to delete (the entries older than the `retained` window),
 * on every PUBLICATION_LOG_COMPACTION_EVERY-th append; null on the others.
 */
export function compactionCeiling(seq: number, retained: number): number | null {
  return seq % PUBLICATION_LOG_COMPACTION_EVERY === 0 ? seq - retained : null;
}

/** Entries after `since` were compacted away (the oldest kept is `floor`): a follower there rebuilds. */
export function compactedPast(floor: number, since: number): boolean {
  return floor > since + 1;
}

/**
 * Whether the changes after `since` are answered without entries: none are new, more than `maxEntries` are
 * (the follower rebuilds rather than replays), or some were compacted away.
 */
export function replaysNothing(head: number, floor: number, since: number, maxEntries: number): boolean {
  return head <= since || head - since > maxEntries || compactedPast(floor, since);
}
