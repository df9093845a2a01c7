// POST /admin/backfill's accept: records a metadata_backfill job for a known Client and wakes the workers.
// The job itself is jobs/backfill-job.ts.

import type { StoragePort } from '../storage/port.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { JobRecord } from '../domain/jobs.ts';
import { MAX_JOB_ATTEMPTS } from '../spec-limits.ts';

/**
 * Accepts a backfill for a Client (an operator action); the worker does the work. The Client must be known:
 * mapped by API_KEY_CLIENTS or holding data. An unknown one is refused and no storage is created for it.
 */
export async function enqueueBackfill(storage: StoragePort, clientId: string, wake: () => void, configuredClients: ReadonlySet<string>): Promise<JobRecord> {
  if (!configuredClients.has(clientId) && !(await storage.knownClientIds()).includes(clientId)) {
    throw new ServiceError('not_found', `Unknown client: ${clientId}`);
  }
  const job = await storage.jobs.enqueue({ clientId, operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: MAX_JOB_ATTEMPTS });
  wake();
  return job;
}
