// Document lifecycle writes: soft delete, restore (new generations carrying or clearing deletion markers,
// republished one version at a time under the Client's durable fence) and the journaled hard-delete purge.
// Each version is one bounded transaction through the publisher; readers see it through the publication log.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoragePort } from '../storage/port.ts';
import type { DeletionMarkers, GenerationRecord } from '../domain/generation.ts';
import { PublicationPaused } from '../domain/jobs.ts';
import { ServiceError } from '../domain/service-error.ts';
import { idProblem, versionIdFromKey, versionKey as keyOf } from '../domain/identity.ts';
import type { DeleteResult, RestoreResult } from '../domain/responses.ts';
import { FenceTimeout, LifecycleFence } from './fence.ts';
import type { Publisher } from './publisher.ts';
import { successorOf } from './successor.ts';
import { faultPoint } from '../fault-points.ts';
import { verifyEvidence } from '../codec/evidence.ts';

export type DeleteMode = 'soft' | 'hard';

export interface LifecycleOptions {
  enabled: boolean;
  fenceWaitMs: number;
  /** The hard-delete request deadline (PURGE_DEADLINE_MS): past it the purge stops with a retryable 503. */
  purgeDeadlineMs: number;
  /**
   * Told once a hard delete's purge is done: the api process removes the copies its host's caches hold of what
   * was purged (serving/caches/cache-sweep.ts), whether or not it serves the Client.
   */
  purged?: (clientId: string) => Promise<void>;
}

/**
 * Ends one version step. The embedded store answers without real I/O, so without this a request over
 * thousands of versions would hold the event loop from its first version to its last: every other request
 * of this api process (searches, /health) gets its turn between two versions.
 */
async function endOfStep(): Promise<void> {
  await yieldToEventLoop();
  await faultPoint('lifecycle-step');
}

/**
 * An id no upload could have stored (idProblem: control characters, lone surrogates) names no document: 404
 * without a look-up, which a PostgreSQL text value could not even carry (it cannot hold U+0000).
 */
function requireStorableIds(documentId: string, versionId: string | undefined): void {
  if (idProblem('document_id', documentId) !== null || (versionId && idProblem('version_id', versionId) !== null)) {
    throw new ServiceError('document_not_found', 'Document not found');
  }
}

export class LifecycleService {
  private readonly storage: StoragePort;
  private readonly publisher: Publisher;
  private readonly fence: LifecycleFence;
  private readonly options: LifecycleOptions;

  constructor(storage: StoragePort, publisher: Publisher, options: LifecycleOptions) {
    this.storage = storage;
    this.publisher = publisher;
    this.fence = new LifecycleFence(storage.authority);
    this.options = options;
  }

  async delete(clientId: string, documentId: string, versionId: string | undefined, mode: DeleteMode): Promise<DeleteResult> {
    requireStorableIds(documentId, versionId);
    return this.underFence(clientId, () => (mode === 'hard' ? this.hardDelete(clientId, documentId, versionId) : this.softDelete(clientId, documentId, versionId)));
  }

  async restore(clientId: string, documentId: string, versionId: string | undefined): Promise<RestoreResult> {
    requireStorableIds(documentId, versionId);
    return this.underFence(clientId, async () => {
      const targets = (await this.targets(clientId, documentId, versionId)).filter((generation) => generation.deletion.deleted);
      if (targets.length === 0) throw new ServiceError('document_not_found', 'Document not found');
      const changed = await this.republishEach(clientId, targets, { deleted: false, deletedAt: null, deletedBy: null });
      return { document_id: documentId, restored_chunks: changed, status: 'restored' };
    });
  }

  private async underFence<T>(clientId: string, fn: () => Promise<T>): Promise<T> {
    if (!this.options.enabled) return fn();
    await this.readyOrBusy(); // maintenance refuses before waiting for the fence
    try {
      return await this.fence.run(clientId, this.options.fenceWaitMs, fn);
    } catch (error) {
      if (error instanceof FenceTimeout) throw new ServiceError('publication_busy', 'The publication fence is held by another lifecycle operation');
      throw error;
    }
  }

  /** SPEC.md DELETE rule 4: recovery or maintenance contention is publication_busy. */
  private async readyOrBusy(): Promise<void> {
    try {
      await this.publisher.assertReady();
    } catch (error) {
      if (error instanceof PublicationPaused) throw new ServiceError('publication_busy', 'Publication is not ready');
      throw error;
    }
  }

  /** Active generations of the document, narrowed to one version when version_id is given. */
  private async targets(clientId: string, documentId: string, versionId: string | undefined): Promise<GenerationRecord[]> {
    const all = await this.storage.client(clientId).generations.activeGenerationsOf(documentId);
    return versionId === undefined ? all : all.filter((generation) => generation.versionKey === keyOf(versionId));
  }

  private async softDelete(clientId: string, documentId: string, versionId: string | undefined): Promise<DeleteResult> {
    const targets = (await this.targets(clientId, documentId, versionId)).filter((generation) => !generation.deletion.deleted);
    if (targets.length === 0) throw new ServiceError('document_not_found', 'Document not found');
    const markers: DeletionMarkers = { deleted: true, deletedAt: new Date().toISOString(), deletedBy: clientId };
    const changed = await this.republishEach(clientId, targets, markers);
    return { document_id: documentId, deleted_chunks: changed, status: 'soft_deleted' };
  }

  /**
   * Republishes versions one at a time, each in its own transaction. Contention after some versions changed
   * reports which changed and which are pending; repeating the request finishes the rest.
   */
  private async republishEach(clientId: string, targets: GenerationRecord[], deletion: DeletionMarkers): Promise<number> {
    const store = this.storage.client(clientId);
    const changed: string[] = [];
    let chunks = 0;
    for (const [index, target] of targets.entries()) {
      // An unreadable stored generation proves nothing, and no successor can be built from it.
      const loaded = target.unreadable ? null : await store.generations.loadGeneration(target.generation);
      // SPEC.md DELETE rule 5: a version whose publication evidence does not verify is not republished.
      if (target.unreadable || (loaded && verifyEvidence(loaded).state !== 'verified')) {
        const pending = targets.slice(index).map((generation) => versionIdFromKey(generation.versionKey) ?? '');
        const message = 'The publication evidence of a version is incomplete';
        throw new ServiceError('publication_unavailable', message, { details: { code: 'publication_unavailable', message, changed_versions: changed, pending_versions: pending } });
      }
      let activation = null;
      try {
        activation = loaded ? await this.publisher.replace(clientId, [{ input: successorOf(loaded, { deletion }), expected: target.generation }]) : null;
      } catch (error) {
        const failure = error instanceof PublicationPaused ? null : this.storage.failureOf(error);
        // A store failure before any version changed changed nothing: it is answered as the store's (507 or 503).
        if (failure !== null && changed.length > 0) {
          // After some changed, SPEC.md DELETE rule 4's transient backend failure: which changed, which are pending.
          const pending = targets.slice(index).map((generation) => versionIdFromKey(generation.versionKey) ?? '');
          const message = `${failure.message}; repeat the request to finish`;
          throw new ServiceError('publication_busy', message, { details: { code: 'publication_busy', message, changed_versions: changed, pending_versions: pending, storage: failure.storage } });
        }
        if (!(error instanceof PublicationPaused)) throw error;
      }
      if (!activation || !loaded) {
        const pending = targets.slice(index).map((generation) => versionIdFromKey(generation.versionKey) ?? '');
        const message = 'Publication contention stopped the request; repeat it to finish';
        throw new ServiceError('publication_busy', message, { details: { code: 'publication_busy', message, changed_versions: changed, pending_versions: pending } });
      }
      changed.push(versionIdFromKey(target.versionKey) ?? '');
      chunks += loaded.chunks.length;
      await endOfStep();
    }
    return chunks;
  }

  /** A hard delete's job bindings, and the uploaded files they still name (an upload not yet parsed). */
  private async deleteJobs(clientId: string, documentId: string, versionKey: string | null): Promise<void> {
    for (const upload of await this.storage.jobs.uploadsForDocument(clientId, documentId, versionKey)) await this.storage.uploads.delete(upload);
    await this.storage.jobs.deleteForDocument(clientId, documentId, versionKey);
  }

  /**
   * Hard delete: journal and hide first (one transaction, one removal per version in the log), then purge
   * version by version (rows, job bindings). A repeated request resumes an interrupted purge even when the
   * document is already absent from reads.
   */
  private async hardDelete(clientId: string, documentId: string, versionId: string | undefined): Promise<DeleteResult> {
    const store = this.storage.client(clientId);
    const active = (await this.targets(clientId, documentId, versionId)).map((generation) => generation.versionKey);
    const open = (await store.purges.open(documentId)).filter((key) => versionId === undefined || key === keyOf(versionId));
    const versionKeys = [...new Set([...open, ...active])].sort();
    if (versionKeys.length === 0) throw new ServiceError('document_not_found', 'Document not found');
    try {
      // FENCING pins reads to the last READY snapshot: nothing may change it until READY returns.
      await this.publisher.beginRemoval(clientId, documentId, versionKeys);
    } catch (error) {
      if (error instanceof PublicationPaused) throw new ServiceError('publication_busy', 'Publication is not ready');
      throw error;
    }
    try {
      return await this.purge(clientId, documentId, versionId, versionKeys);
    } catch (error) {
      // The removal is journaled and hidden from reads: a store that stops the purge part way (full, unreachable)
      // leaves an incomplete purge, which SPEC.md DELETE rule 6 answers as such; repeating the request resumes it.
      const failure = this.storage.failureOf(error);
      if (failure === null) throw error;
      const message = `${failure.message}; the purge is journaled: repeat the request to resume it`;
      throw new ServiceError('publication_purge_timeout', message, { details: { code: 'publication_purge_timeout', message, storage: failure.storage } });
    }
  }

  /** Purges the journaled versions one by one (rows, job bindings), within the request deadline. */
  private async purge(clientId: string, documentId: string, versionId: string | undefined, versionKeys: string[]): Promise<DeleteResult> {
    const store = this.storage.client(clientId);
    const deadline = Date.now() + this.options.purgeDeadlineMs;
    let chunks = 0;
    for (const [index, key] of versionKeys.entries()) {
      if (Date.now() > deadline) {
        // SPEC.md DELETE rule 6: past the request deadline, re-read the lane; with records left, stop here
        // (the journal keeps the purge, and repeating the request resumes it).
        let remaining = 0;
        for (const left of versionKeys.slice(index)) remaining += await store.purges.remainingRecords(documentId, left);
        if (remaining > 0) throw new ServiceError('publication_purge_timeout', 'The purge did not finish within its deadline; repeat the request to resume it');
        break;
      }
      chunks += await store.purges.purgeVersion(documentId, key);
      if ((await store.purges.remainingRecords(documentId, key)) > 0) {
        throw new ServiceError('publication_purge_timeout', 'Records remain after the purge; repeat the request to resume it');
      }
      await this.deleteJobs(clientId, documentId, key);
      await endOfStep();
    }
    if (versionId === undefined) await this.deleteJobs(clientId, documentId, null);
    await this.storage.erasePurged(clientId);
    await this.options.purged?.(clientId);
    return { document_id: documentId, deleted_chunks: chunks, status: 'hard_deleted' };
  }
}
