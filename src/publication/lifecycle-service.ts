// Document lifecycle writes: soft delete, restore (new generations carrying or clearing deletion markers,
// republished one version at a time under the Client's fence) and the journaled hard-delete purge.

import type { Storage } from '../storage/storage.ts';
import type { GenerationInput, GenerationRecord, LoadedGeneration } from '../storage/client-store.ts';
import type { PublicationAuthority } from './authority.ts';
import { FenceTimeout } from './fence.ts';
import { computeManifest } from './manifest.ts';
import { ServiceError } from '../domain/service-error.ts';
import { versionIdentity, versionIdFromKey, versionKey as keyOf } from '../domain/identity.ts';
import type { DeletionMarkers } from '../storage/client-store.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';

export type DeleteMode = 'soft' | 'hard';

export interface LifecycleOptions {
  fenceWaitMs: number;
  /** Fault injection for tests: pause after each version step. 0 in production. */
  stepDelayMs: number;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A copy of a generation with other deletion markers and/or metadata, as a new generation input. */
export function successorOf(loaded: LoadedGeneration, changes: { deletion?: DeletionMarkers; canonicalMetadata?: GenerationInput['canonicalMetadata']; leaves?: GenerationInput['leaves']; jobId?: string | null }): GenerationInput {
  const jobId = changes.jobId === undefined ? loaded.jobId : changes.jobId;
  const leaves = changes.leaves ?? loaded.leaves;
  return {
    documentId: loaded.documentId,
    versionKey: loaded.versionKey,
    jobId,
    createdAt: loaded.createdAt,
    canonicalMetadata: changes.canonicalMetadata ?? loaded.canonicalMetadata,
    entities: loaded.entities,
    embedding: loaded.embedding,
    deletion: changes.deletion ?? loaded.deletion,
    chunks: loaded.chunks,
    leaves,
    manifest: computeManifest({ documentId: loaded.documentId, versionId: versionIdFromKey(loaded.versionKey), jobId }, loaded.chunks, leaves) as unknown as JsonObject,
  };
}

export class LifecycleService {
  private readonly storage: Storage;
  private readonly authority: PublicationAuthority;
  private readonly options: LifecycleOptions;

  constructor(storage: Storage, authority: PublicationAuthority, options: LifecycleOptions) {
    this.storage = storage;
    this.authority = authority;
    this.options = options;
  }

  async delete(clientId: string, documentId: string, versionId: string | undefined, mode: DeleteMode): Promise<JsonObject> {
    return this.underFence(clientId, () => (mode === 'hard' ? this.hardDelete(clientId, documentId, versionId) : this.softDelete(clientId, documentId, versionId)));
  }

  async restore(clientId: string, documentId: string, versionId: string | undefined): Promise<JsonObject> {
    return this.underFence(clientId, async () => {
      const targets = this.targets(clientId, documentId, versionId).filter((generation) => generation.deletion.deleted);
      if (targets.length === 0) throw new ServiceError('document_not_found', 'Document not found');
      const changed = await this.republishEach(clientId, targets, { deleted: false, deletedAt: null, deletedBy: null });
      return { document_id: documentId, restored_chunks: changed, status: 'restored' };
    });
  }

  private async underFence<T>(clientId: string, fn: () => Promise<T>): Promise<T> {
    if (!this.authority.enabled) return fn();
    this.authority.guardRead(clientId); // RECOVERING or MAINTENANCE refuse before waiting
    try {
      return await this.authority.fence(clientId).run(this.options.fenceWaitMs, fn);
    } catch (error) {
      if (error instanceof FenceTimeout) throw new ServiceError('publication_busy', 'The publication fence is held by another lifecycle operation');
      throw error;
    }
  }

  /** Active generations of the document, narrowed to one version when version_id is given. */
  private targets(clientId: string, documentId: string, versionId: string | undefined): GenerationRecord[] {
    const all = this.storage.client(clientId).activeGenerationsOf(documentId);
    return versionId === undefined ? all : all.filter((generation) => generation.versionKey === keyOf(versionId));
  }

  private async softDelete(clientId: string, documentId: string, versionId: string | undefined): Promise<JsonObject> {
    const targets = this.targets(clientId, documentId, versionId).filter((generation) => !generation.deletion.deleted);
    if (targets.length === 0) throw new ServiceError('document_not_found', 'Document not found');
    const markers: DeletionMarkers = { deleted: true, deletedAt: new Date().toISOString(), deletedBy: clientId };
    const changed = await this.republishEach(clientId, targets, markers);
    return { document_id: documentId, deleted_chunks: changed, status: 'soft_deleted' };
  }

  /**
   * Republishes versions one at a time. Contention after some versions changed reports which changed and
   * which are pending; repeating the request finishes the rest (already-changed versions no longer match).
   */
  private async republishEach(clientId: string, targets: GenerationRecord[], deletion: DeletionMarkers): Promise<number> {
    const store = this.storage.client(clientId);
    const changed: string[] = [];
    let chunks = 0;
    for (const [index, target] of targets.entries()) {
      const versionName = versionIdFromKey(target.versionKey) ?? '';
      const loaded = store.loadGeneration(target.generation);
      // Only a READY authority publishes (FENCING pins reads to the last READY snapshot).
      const blocked = this.authority.enabled && this.authority.mode !== 'READY';
      const activation = !blocked && loaded ? store.replaceGenerations([{ input: successorOf(loaded, { deletion }), expected: target.generation }]) : null;
      if (!activation || !loaded) {
        const pending = targets.slice(index).map((generation) => versionIdFromKey(generation.versionKey) ?? '');
        throw new ServiceError('publication_busy', 'Publication contention stopped the request; repeat it to finish', {
          details: { code: 'publication_busy', message: 'Publication contention stopped the request; repeat it to finish', changed_versions: changed, pending_versions: pending },
        });
      }
      const [{ generation, previousGeneration }] = activation;
      this.authority.publish(clientId, { activated: [{ ...store.generation(generation)!, chunks: loaded.chunks, leaves: loaded.leaves }] });
      if (previousGeneration !== null) store.cleanupRetired([previousGeneration]);
      changed.push(versionName);
      chunks += loaded.chunks.length;
      if (this.options.stepDelayMs > 0) await sleep(this.options.stepDelayMs);
    }
    return chunks;
  }

  /**
   * Hard delete: journal first, then purge version by version (rows, serving snapshot, job bindings).
   * A repeated request resumes an interrupted purge even when the document is already absent from reads.
   */
  private async hardDelete(clientId: string, documentId: string, versionId: string | undefined): Promise<JsonObject> {
    // FENCING pins reads to the last READY snapshot: nothing may change it until READY returns.
    if (this.authority.enabled && this.authority.mode !== 'READY') throw new ServiceError('publication_busy', 'Publication is not ready');
    const store = this.storage.client(clientId);
    const active = this.targets(clientId, documentId, versionId).map((generation) => generation.versionKey);
    const open = store.openPurges(documentId).filter((key) => versionId === undefined || key === keyOf(versionId));
    const versionKeys = [...new Set([...open, ...active])].sort();
    if (versionKeys.length === 0) throw new ServiceError('document_not_found', 'Document not found');
    store.beginPurge(documentId, versionKeys);
    // Hide everything under purge from reads at once, before the rows go.
    this.authority.publish(clientId, {
      activated: [],
      removed: versionKeys.map((key) => versionIdentity({ documentId, versionId: versionIdFromKey(key) })),
    });
    let chunks = 0;
    for (const key of versionKeys) {
      chunks += store.purgeVersion(documentId, key);
      if (store.remainingRecords(documentId, key) > 0) {
        throw new ServiceError('publication_purge_timeout', 'Records remain after the purge; repeat the request to resume it');
      }
      this.storage.jobs.deleteForDocument(clientId, documentId, key);
      if (this.options.stepDelayMs > 0) await sleep(this.options.stepDelayMs);
    }
    if (versionId === undefined) this.storage.jobs.deleteForDocument(clientId, documentId, null);
    return { document_id: documentId, deleted_chunks: chunks, status: 'hard_deleted' };
  }
}
