// The publication authority of this process: its mode, every Client's serving snapshot and fence.
// Search and reads take the snapshot once at request start; only publish() replaces a snapshot.

import type { Storage } from '../storage/storage.ts';
import { ServiceError } from '../domain/service-error.ts';
import { applyChange, emptySnapshot } from './snapshot.ts';
import type { ClientSnapshot, SnapshotChange } from './snapshot.ts';
import { Fence } from './fence.ts';

export const AUTHORITY_MODES = ['READY', 'FENCING', 'RECOVERING', 'MAINTENANCE', 'DISABLED'] as const;
export type AuthorityMode = (typeof AUTHORITY_MODES)[number];

export type PublicationView = 'ready' | 'pinned_ready';

export interface ReadGuard {
  view: PublicationView;
  snapshot: ClientSnapshot;
}

export class PublicationAuthority {
  readonly enabled: boolean;
  readonly authorityId: string;
  private modeValue: AuthorityMode;
  private readonly dimensions: number;
  private readonly snapshots = new Map<string, ClientSnapshot>();
  private readonly fences = new Map<string, Fence>();
  private readonly listeners: ((snapshot: ClientSnapshot) => void)[] = [];
  recoveredAt: string | null = null;

  constructor(options: { enabled: boolean; dimensions: number; authorityId: string }) {
    this.enabled = options.enabled;
    this.dimensions = options.dimensions;
    this.authorityId = options.authorityId;
    this.modeValue = options.enabled ? 'RECOVERING' : 'DISABLED';
  }

  get mode(): AuthorityMode {
    return this.modeValue;
  }

  /** Operator transitions: MAINTENANCE and back to READY. Recovery owns RECOVERING. */
  setMode(mode: 'READY' | 'MAINTENANCE' | 'FENCING'): void {
    if (!this.enabled) throw new ServiceError('publication_disabled', 'Publication is disabled');
    this.modeValue = mode;
  }

  snapshot(clientId: string): ClientSnapshot {
    return this.snapshots.get(clientId) ?? emptySnapshot(clientId, this.dimensions);
  }

  onPublish(listener: (snapshot: ClientSnapshot) => void): void {
    this.listeners.push(listener);
  }

  /** Replaces the Client's snapshot with one that includes the change; synchronous, so never interleaved. */
  publish(clientId: string, change: SnapshotChange): ClientSnapshot {
    const next = applyChange(this.snapshot(clientId), change);
    this.snapshots.set(clientId, next);
    for (const listener of this.listeners) listener(next);
    return next;
  }

  fence(clientId: string): Fence {
    let fence = this.fences.get(clientId);
    if (!fence) {
      fence = new Fence();
      this.fences.set(clientId, fence);
    }
    return fence;
  }

  /**
   * The request guard: in READY and DISABLED reads are served from the current snapshot; in FENCING the
   * Client's last READY snapshot is pinned; every other mode fails closed.
   */
  guardRead(clientId: string): ReadGuard {
    switch (this.modeValue) {
      case 'READY':
      case 'DISABLED':
        return { view: 'ready', snapshot: this.snapshot(clientId) };
      case 'FENCING':
        return { view: 'pinned_ready', snapshot: this.snapshot(clientId) };
      case 'RECOVERING':
        throw new ServiceError('publication_unavailable', 'Publication authority is recovering');
      case 'MAINTENANCE':
        throw new ServiceError('publication_busy', 'Publication authority is in maintenance');
    }
  }

  /** Rebuilds every Client's snapshot from the durable store; the authority is RECOVERING until done. */
  recover(storage: Storage): { clients: number; versions: number; chunks: number } {
    if (this.enabled) this.modeValue = 'RECOVERING';
    let versions = 0;
    let chunks = 0;
    const clientIds = storage.knownClientIds();
    for (const clientId of clientIds) {
      const activated = [...storage.client(clientId).activeGenerations()];
      versions += activated.length;
      chunks += activated.reduce((sum, generation) => sum + generation.chunks.length, 0);
      this.snapshots.set(clientId, applyChange(emptySnapshot(clientId, this.dimensions), { activated }));
    }
    this.recoveredAt = new Date().toISOString();
    if (this.enabled) this.modeValue = 'READY';
    return { clients: clientIds.length, versions, chunks };
  }

  /** Counts for health: loaded Clients, versions and live chunks. */
  servingStats(): { clients: number; versions: number; chunks: number } {
    let versions = 0;
    let chunks = 0;
    for (const snapshot of this.snapshots.values()) {
      versions += snapshot.versions.size;
      chunks += snapshot.liveChunkCount;
    }
    return { clients: this.snapshots.size, versions, chunks };
  }
}
