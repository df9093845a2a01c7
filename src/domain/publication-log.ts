// The per-Client publication log: one entry for every activation, retirement-by-replacement or removal of a
// generation, with a strictly increasing sequence number, written in the transaction that made the change.

/** Log entries kept per Client; older ones are compacted away, and a follower behind them rebuilds. */
export const PUBLICATION_LOG_RETAINED_ENTRIES = 10_000;
/** A follower further behind than this rebuilds its snapshot instead of replaying entry by entry. */
export const PUBLICATION_LOG_REPLAY_LIMIT = 2_000;

export const PUBLICATION_LOG_KINDS = ['activate', 'remove'] as const;
export type PublicationLogKind = (typeof PUBLICATION_LOG_KINDS)[number];

export interface PublicationLogEntry {
  seq: number;
  kind: PublicationLogKind;
  documentId: string;
  versionKey: string;
  /** The generation that became active ('activate'); null for a removal (hard delete). */
  generation: number | null;
}

/** The authority modes SPEC.md names. READY, FENCING and MAINTENANCE are durable; RECOVERING is per api process. */
export const AUTHORITY_MODES = ['READY', 'FENCING', 'RECOVERING', 'MAINTENANCE', 'DISABLED'] as const;
export type AuthorityMode = (typeof AUTHORITY_MODES)[number];
/** The modes an operator may set in the durable authority record. */
export const DURABLE_AUTHORITY_MODES = ['READY', 'FENCING', 'MAINTENANCE'] as const;
export type DurableAuthorityMode = (typeof DURABLE_AUTHORITY_MODES)[number];

export type PublicationView = 'ready' | 'pinned_ready';

/** The durable authority record is missing or cannot be read: nothing may be served as current. */
export class AuthorityUnreadable extends Error {
  constructor(reason: string) {
    super(`the publication authority record is unreadable: ${reason}`);
    this.name = 'AuthorityUnreadable';
  }
}
