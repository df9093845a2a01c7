// GET /status/{job_id} as a service: the Client's job (another Client's is the same not-found as none),
// rendered by state against this api process's snapshot of the Client, caught up as the mode allows.

import type { StoragePort } from '../storage/port.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { JobView } from '../domain/responses.ts';
import { ServiceError } from '../domain/service-error.ts';
import { idProblem } from '../domain/identity.ts';
import { renderJob, snapshotReadsOf } from './job-view.ts';
import { jobWithinConfinement } from '../search/key-filter.ts';
import type { Confinement } from '../search/key-filter.ts';

export class JobStatusService {
  private readonly storage: StoragePort;
  private readonly readGuard: ReadGuard;
  private readonly publicationEnabled: boolean;

  constructor(storage: StoragePort, readGuard: ReadGuard, options: { publicationEnabled: boolean }) {
    this.storage = storage;
    this.readGuard = readGuard;
    this.publicationEnabled = options.publicationEnabled;
  }

  /** `confinement`: the caller's key sees only jobs of the versions it confines its reads to (key-filter.ts). */
  async view(clientId: string, jobId: string, confinement: Confinement | null = null): Promise<JobView> {
    // An id with control characters or a lone surrogate was never issued: not found, without a look-up that a
    // PostgreSQL text value could not even carry (it cannot hold U+0000).
    const job = idProblem('job_id', jobId) === null ? await this.storage.jobs.get(clientId, jobId) : null;
    if (!job) throw new ServiceError('not_found', 'Job not found');
    const snapshot = await this.readGuard.observe(clientId, snapshotReadsOf(job));
    if (!jobWithinConfinement(snapshot, job, confinement)) throw new ServiceError('not_found', 'Job not found');
    return renderJob(job, { storage: this.storage, publicationEnabled: this.publicationEnabled, snapshot });
  }
}
