// The serving index of one api process: every Client's immutable snapshot and the publication-log position
// it reflects. It moves only by applying the durable log (or rebuilding from the store); never by a write here.

import type { StoragePort } from '../storage/port.ts';
import type { LoadedGeneration } from '../domain/generation.ts';
import { PUBLICATION_LOG_REPLAY_LIMIT } from '../domain/publication-log.ts';
import type { PublicationLogEntry } from '../domain/publication-log.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { applyChange, emptySnapshot } from './snapshot.ts';
import type { ClientSnapshot } from './snapshot.ts';

interface Served {
  snapshot: ClientSnapshot;
  /** The log sequence number the snapshot reflects. */
  appliedSeq: number;
}

export interface ServingStats {
  clients: number;
  versions: number;
  chunks: number;
}

function identityOf(entry: { documentId: string; versionKey: string }): string {
  return versionIdentity({ documentId: entry.documentId, versionId: versionIdFromKey(entry.versionKey) });
}

/** The last entry of each Document Version: what a batch of log entries amounts to. */
function coalesce(entries: PublicationLogEntry[]): Map<string, PublicationLogEntry> {
  const last = new Map<string, PublicationLogEntry>();
  for (const entry of entries) last.set(identityOf(entry), entry);
  return last;
}

export class ServingIndex {
  private readonly storage: StoragePort;
  private readonly dimensions: number;
  private readonly served = new Map<string, Served>();
  /** One catch-up at a time per Client, so entries are applied once and in order. */
  private readonly inFlight = new Map<string, Promise<void>>();
  rebuilds = 0;

  constructor(storage: StoragePort, dimensions: number) {
    this.storage = storage;
    this.dimensions = dimensions;
  }

  snapshot(clientId: string): ClientSnapshot {
    return this.served.get(clientId)?.snapshot ?? emptySnapshot(clientId, this.dimensions);
  }

  appliedSeq(clientId: string): number {
    return this.served.get(clientId)?.appliedSeq ?? 0;
  }

  /** Builds the Client's snapshot from the store's current state (start-up, or a follower too far behind). */
  async rebuild(clientId: string): Promise<void> {
    const state = await this.storage.client(clientId).servingState();
    this.served.set(clientId, { snapshot: applyChange(emptySnapshot(clientId, this.dimensions), { activated: state.generations }), appliedSeq: state.head });
    this.rebuilds++;
  }

  /** Applies every log entry committed up to now (at least up to `atLeast`); concurrent callers share one pass. */
  async catchUp(clientId: string, atLeast = 0): Promise<void> {
    for (;;) {
      const running = this.inFlight.get(clientId);
      if (running) {
        await running;
        if (this.appliedSeq(clientId) >= atLeast) return;
        continue;
      }
      const pass = this.applyPending(clientId).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pass);
      await pass;
      return;
    }
  }

  private async applyPending(clientId: string): Promise<void> {
    const applied = this.appliedSeq(clientId);
    const changes = await this.storage.client(clientId).changesSince(applied, PUBLICATION_LOG_REPLAY_LIMIT);
    if (changes.head <= applied) return;
    if (changes.entries.length === 0) {
      // Too far behind, or the entries were compacted away: rebuild instead of replaying.
      await this.rebuild(clientId);
      return;
    }
    const activated: LoadedGeneration[] = [];
    const removed: string[] = [];
    for (const [identity, entry] of coalesce(changes.entries)) {
      const loaded = entry.generation === null ? undefined : changes.generations.get(entry.generation);
      if (loaded) activated.push(loaded);
      else removed.push(identity);
    }
    const current = this.snapshot(clientId);
    this.served.set(clientId, { snapshot: applyChange(current, { activated, removed }), appliedSeq: changes.entries[changes.entries.length - 1].seq });
  }

  /** Counts for health and the operator view: loaded Clients, versions and live chunks. */
  stats(): ServingStats {
    let versions = 0;
    let chunks = 0;
    for (const { snapshot } of this.served.values()) {
      versions += snapshot.versions.size;
      chunks += snapshot.liveChunkCount;
    }
    return { clients: this.served.size, versions, chunks };
  }
}
