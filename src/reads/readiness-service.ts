// GET /discovery/readiness as a service: the Client's Metadata Discovery readiness, with the counts of its
// latest backfill when one ran (otherwise every version indexed its metadata leaves inline). A key confined by a
// filter sees the counts of its own versions only: the backfill's are the whole Client's, so its blocked
// versions are counted by the same contract check over the versions it may see, and the backfill job (of the
// whole Client, which GET /status does not show it) is not named.

import type { StoragePort } from '../storage/port.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { ReadinessView } from '../domain/responses.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { discoveryReadiness } from './discovery-readiness.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import type { JsonValue } from '../domain/canonical-metadata.ts';
import { withinConfinement } from '../search/key-filter.ts';
import type { Confinement } from '../search/key-filter.ts';

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

  async view(clientId: string, confinement: Confinement | null = null): Promise<ReadinessView> {
    const readiness = await discoveryReadiness(this.storage, clientId);
    const { snapshot } = await this.readGuard.guard(clientId);
    const state = readiness.state;
    let total = snapshot.versions.size;
    let blocked = 0;
    let backfillJobId = readiness.backfillJobId;
    if (confinement === null) {
      const backfill = backfillJobId ? await this.storage.jobs.get(clientId, backfillJobId) : null;
      // Read as the JSON it is stored as: a backfill refused for a running one, or still planning, counts none.
      const result: JsonObject = backfill?.result ?? {};
      blocked = typeof result.versions_blocked === 'number' ? result.versions_blocked : 0;
    } else {
      const visible = [...snapshot.versions.values()].filter((version) => withinConfinement(version, confinement));
      total = visible.length;
      // Blocked only once a backfill said so: before it, no version is judged (the unconfined view counts none either).
      if (state === 'blocked') blocked = visible.filter((version) => checkMetadataContract(version.canonicalMetadata.custom as JsonValue) !== null).length;
      backfillJobId = null;
    }
    return {
      readiness_state: state,
      scopes_available: state === 'ready' ? ['content', 'metadata', 'both'] : ['content'],
      contract_version: '2',
      versions_total: total,
      versions_ready: state === 'backfilling' ? 0 : Math.max(0, total - blocked),
      versions_blocked: blocked,
      backfill_job_id: backfillJobId,
      updated_at: readiness.updatedAt ?? this.startedAt,
    };
  }
}
