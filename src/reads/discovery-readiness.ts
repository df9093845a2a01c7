// A Client's Metadata Discovery readiness as every reader reports it: the durable state the backfill keeps,
// and, for a Client without one, not_started while it holds pre-discovery data (generations whose metadata
// lane was never indexed), ready otherwise (every version this service writes indexes its leaves inline).

import type { ReadinessState } from '../domain/job-states.ts';
import type { StoragePort } from '../storage/port.ts';

export interface DiscoveryReadiness {
  state: ReadinessState;
  backfillJobId: string | null;
  updatedAt: string | null;
}

export async function discoveryReadiness(storage: StoragePort, clientId: string): Promise<DiscoveryReadiness> {
  const recorded = await storage.discovery.readiness(clientId);
  if (recorded.updatedAt !== null) return recorded;
  return (await storage.client(clientId).generations.hasUnindexedLeaves()) ? { ...recorded, state: 'not_started' } : recorded;
}
