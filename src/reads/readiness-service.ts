// GET /discovery/readiness as a service: the Client's Metadata Discovery readiness, with the counts of its
// latest backfill when one ran (otherwise every version indexed its metadata leaves inline).

import type { StoragePort } from '../storage/port.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { ReadinessView } from '../domain/responses.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { discoveryReadiness } from './discovery-readiness.ts';

export class ReadinessService {
  private readonly storage: StoragePort;
  private readonly readGuard: ReadGuard;
  /** When this process started: the readiness of a Client nothing ever changed is as old as that. */
  private readonly startedAt: string;

  constructor(storage: StoragePort, readGuard: ReadGuard, startedAt: string) {
    this.storage = storage;
    this.readGuard = readGuard;
    this.startedAt = startedAt;
  }

  async view(clientId: string): Promise<ReadinessView> {
    const readiness = await discoveryReadiness(this.storage, clientId);
    const { snapshot } = await this.readGuard.guard(clientId);
    const total = snapshot.versions.size;
    const state = readiness.state;
    const backfill = readiness.backfillJobId ? await this.storage.jobs.get(clientId, readiness.backfillJobId) : null;
    // Read as the JSON it is stored as: a backfill refused for a running one, or still planning, counts none.
    const result: JsonObject = backfill?.result ?? {};
    const blocked = typeof result.versions_blocked === 'number' ? result.versions_blocked : 0;
    return {
      readiness_state: state,
      scopes_available: state === 'ready' ? ['content', 'metadata', 'both'] : ['content'],
      contract_version: '2',
      versions_total: total,
      versions_ready: state === 'backfilling' ? 0 : Math.max(0, total - blocked),
      versions_blocked: blocked,
      backfill_job_id: readiness.backfillJobId,
      updated_at: readiness.updatedAt ?? this.startedAt,
    };
  }
}
