// The one publisher every writer uses (uploads, metadata updates, lifecycle, backfill): stage a generation,
// activate it only while the durable authority is READY (the store appends the publication-log entry in the
// same transaction), and clean up what the activation retired. Readers learn of changes only from the log.

import type { StoragePort } from '../storage/port.ts';
import type { ActivationResult, GenerationInput, GenerationRecord } from '../domain/generation.ts';
import { PublicationPaused } from '../domain/jobs.ts';

export interface PublisherOptions {
  /** PUBLICATION_ENABLED: without an authority, activations are never paused. */
  enabled: boolean;
}

/**
 * How long a retired generation's content stays readable. Every read catches up with the log at its start, so
 * only reads already running when a generation was retired can still need its text: they last seconds.
 */
export const RETIRED_CONTENT_GRACE_MS = 60_000;

export class Publisher {
  private readonly storage: StoragePort;
  private readonly options: PublisherOptions;

  constructor(storage: StoragePort, options: PublisherOptions) {
    this.storage = storage;
    this.options = options;
  }

  /**
   * Throws PublicationPaused unless the durable authority is READY. FENCING pins reads to the last READY
   * publication, so writers stage but do not activate; MAINTENANCE stops publication altogether. This early
   * check spares a writer the work of a transaction that would be refused, and reports an unreadable record;
   * the store checks the mode again inside the activating transaction (LogPolicy of each adapter), which is
   * what keeps an operator's change that lands in between from being overtaken.
   */
  async assertReady(): Promise<void> {
    if (!this.options.enabled) return;
    const { mode } = await this.storage.authority.authority();
    if (mode !== 'READY') throw new PublicationPaused(mode);
  }

  /** Writes a generation invisible to every read; it waits there until activated or discarded. */
  async stage(clientId: string, input: GenerationInput): Promise<number> {
    return this.storage.client(clientId).generations.stage(input);
  }

  async discard(clientId: string, generation: number): Promise<void> {
    await this.storage.client(clientId).generations.discardStaged(generation);
  }

  /** Activates a staged generation when `allow` agrees with the version's current one; null when vetoed. */
  async activateStaged(clientId: string, generation: number, allow?: (current: GenerationRecord | null) => boolean): Promise<ActivationResult | null> {
    await this.assertReady();
    const activation = await this.storage.client(clientId).generations.activateStaged(generation, allow);
    if (activation) await this.cleanup(clientId, [activation]);
    return activation;
  }

  /** Stages and activates one generation in a single transaction when `allow` agrees; null when vetoed. */
  async stageAndActivate(clientId: string, input: GenerationInput, allow?: (current: GenerationRecord | null) => boolean): Promise<ActivationResult | null> {
    await this.assertReady();
    const activation = await this.storage.client(clientId).generations.stageAndActivate(input, allow);
    if (activation) await this.cleanup(clientId, [activation]);
    return activation;
  }

  /**
   * Replaces each version's generation that the caller read (`expected`) with a new one, all in one
   * transaction: a reader sees every replacement or none. Null when any version moved meanwhile.
   */
  async replace(clientId: string, replacements: { input: GenerationInput; expected: number | null }[]): Promise<ActivationResult[] | null> {
    await this.assertReady();
    const activations = await this.storage.client(clientId).generations.replaceGenerations(replacements);
    if (activations) await this.cleanup(clientId, activations);
    return activations;
  }

  /** Hides versions from every reader (a removal in the log) and journals their purge, in one transaction. */
  async beginRemoval(clientId: string, documentId: string, versionKeys: string[]): Promise<void> {
    await this.assertReady();
    await this.storage.client(clientId).purges.begin(documentId, versionKeys);
  }

  /**
   * Chunk, leaf and lane rows of generations retired more than RETIRED_CONTENT_GRACE_MS ago go; their
   * manifests stay for successor verification. Recently retired content stays: a read that began on the
   * snapshot still serving it reads its chunk texts from the store.
   */
  private async cleanup(clientId: string, activations: ActivationResult[]): Promise<number> {
    if (!activations.some(({ previousGeneration }) => previousGeneration !== null)) return 0;
    return this.storage.client(clientId).generations.cleanupRetiredBefore(new Date(Date.now() - RETIRED_CONTENT_GRACE_MS).toISOString());
  }
}
