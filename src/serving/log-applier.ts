// Moves a loaded Client forward by its durable publication log: the entries committed since the position its
// snapshot reflects, coalesced to the last of each Document Version, become one change (activations, removals)
// and one new segment. A Client not loaded is loaded whole first; one too far behind, or whose entries were
// compacted away, is rebuilt from the store instead of replayed. One pass at a time per Client, so entries are
// applied once and in order.

import type { StoragePort } from '../storage/port.ts';
import type { ServingGeneration } from '../domain/generation.ts';
import { PUBLICATION_LOG_REPLAY_LIMIT } from '../domain/publication-log.ts';
import type { PublicationLogEntry } from '../domain/publication-log.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { commitChange, planChange } from './snapshot.ts';
import type { ClientSnapshot, SnapshotChange } from './snapshot.ts';
import type { SegmentBuilder } from './segment.ts';
import type { SegmentCache } from './caches/segment-cache.ts';
import { evidenceOf } from './client-loader.ts';
import type { ResidentClients, Served } from './resident-clients.ts';

function identityOf(entry: { documentId: string; versionKey: string }): string {
  return versionIdentity({ documentId: entry.documentId, versionId: versionIdFromKey(entry.versionKey) });
}

/** The last entry of each Document Version: what a batch of log entries amounts to. */
function coalesce(entries: PublicationLogEntry[]): Map<string, PublicationLogEntry> {
  const last = new Map<string, PublicationLogEntry>();
  for (const entry of entries) last.set(identityOf(entry), entry);
  return last;
}

export interface LogApplierOptions {
  /** Loads a Client whole (client-loader.ts), and rebuilds one (the same, counted as a rebuild). */
  load: (clientId: string) => Promise<void>;
  rebuild: (clientId: string) => Promise<void>;
  /** Takes the Client's new state once a pass has applied its entries. */
  applied: (clientId: string, served: Served) => void;
  /** Segment files of versions deleted for good go with them (none without a segment cache). */
  segmentCache: SegmentCache | null;
  onError: (error: unknown) => void;
}

export class LogApplier {
  private readonly storage: StoragePort;
  private readonly dimensions: number;
  private readonly builder: SegmentBuilder;
  private readonly residents: ResidentClients;
  private readonly options: LogApplierOptions;
  /** One catch-up at a time per Client, so entries are applied once and in order. */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(storage: StoragePort, dimensions: number, builder: SegmentBuilder, residents: ResidentClients, options: LogApplierOptions) {
    this.storage = storage;
    this.dimensions = dimensions;
    this.builder = builder;
    this.residents = residents;
    this.options = options;
  }

  /** Whether a pass is applying the Client's entries now (it is not evicted meanwhile). */
  applying(clientId: string): boolean {
    return this.inFlight.has(clientId);
  }

  /**
   * Applies every log entry committed up to now (at least up to `atLeast`), or, with `until` (the start of
   * a fence), those up to the fence's position; concurrent callers share one pass.
   */
  async catchUp(clientId: string, atLeast = 0, until?: string): Promise<void> {
    for (;;) {
      const running = this.inFlight.get(clientId);
      if (running) {
        await running;
        if (this.residents.appliedSeq(clientId) >= atLeast) return;
        continue;
      }
      const pass = this.applyPending(clientId, until).finally(() => this.inFlight.delete(clientId));
      this.inFlight.set(clientId, pass);
      await pass;
      return;
    }
  }

  private async applyPending(clientId: string, until?: string): Promise<void> {
    if (!this.residents.has(clientId)) {
      // Not loaded (first use, or evicted): load it whole from the store, then apply what came meanwhile.
      await this.options.load(clientId);
      return this.applyPending(clientId, until);
    }
    const applied = this.residents.appliedSeq(clientId);
    const changes = await this.storage.client(clientId).publicationLog.changesSince(applied, PUBLICATION_LOG_REPLAY_LIMIT, until);
    if (changes.head <= applied) return;
    if (changes.entries.length === 0) {
      // Too far behind, or the entries were compacted away: rebuild instead of replaying.
      await this.options.rebuild(clientId);
      return this.applyPending(clientId, until);
    }
    const activated: ServingGeneration[] = [];
    const removed: string[] = [];
    for (const [identity, entry] of coalesce(changes.entries)) {
      if (entry.kind === 'remove') {
        removed.push(identity);
        continue;
      }
      // Read in one transaction up to the head, the last activation of a version names its active generation.
      // Only a catch-up bounded by a fence's position (FENCING) can meet one retired since; that later change is not applied.
      const loaded = entry.generation === null ? undefined : changes.generations.get(entry.generation);
      if (loaded) activated.push(loaded);
    }
    if (removed.length > 0) this.forgetCached(clientId, removed);
    const evidence = await evidenceOf(this.builder, activated);
    const snapshot = await this.withChange(() => this.residents.current(clientId), { activated, removed, evidence });
    this.options.applied(clientId, { snapshot, appliedSeq: changes.entries[changes.entries.length - 1].seq });
  }

  /**
   * A new snapshot with the change applied; its new segment is built by the builder. `base` is read again
   * after the build: only a background merge can have replaced segments meanwhile (it never touches versions
   * or liveness), so the plan commits onto the snapshot current then.
   */
  private async withChange(base: () => ClientSnapshot, change: SnapshotChange): Promise<ClientSnapshot> {
    const plan = planChange(base(), change);
    const segment = plan.added.length > 0 ? await this.builder.build(plan.added, plan.addedVersions, this.dimensions) : null;
    return commitChange(base(), plan, segment);
  }

  /** Removes the cached segments and graphs holding versions deleted for good (segments in the background). */
  private forgetCached(clientId: string, identities: readonly string[]): void {
    const snapshot = this.residents.current(clientId);
    const removed = new Set(identities);
    const generations = new Set(identities.flatMap((identity) => snapshot.versions.get(identity)?.generation ?? []));
    // Generations of those versions that were replaced before still have rows in segments, and so in graphs.
    for (const segment of snapshot.segments) for (const version of segment.versions) if (removed.has(version.identity)) generations.add(version.generation);
    if (generations.size === 0) return;
    const cache = this.options.segmentCache;
    if (cache) cache.forget(clientId, generations).catch((error) => this.options.onError(error));
    this.builder.forgetGraphs?.(clientId, (generation) => generations.has(generation));
  }
}
