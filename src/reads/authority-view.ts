// GET /admin/authority as a service: the durable publication authority record as stored, beside the answering
// api process's own view of it (its mode, its recovery) and of what it serves and holds in memory. Operators
// compare api processes by it; the mode an operator sets is publication/authority-service.ts.

import type { AuthorityMode } from '../domain/publication-log.ts';
import type { StoragePort } from '../storage/port.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { ServingIndex } from '../serving/serving-index.ts';
import type { ServingStats } from '../serving/resident-clients.ts';
import type { MemoryPressure } from '../serving/memory-pressure.ts';

export interface AuthorityView {
  authority_mode: AuthorityMode;
  authority_id: string | null;
  changed_at: string | null;
  enabled: boolean;
  process_id: number;
  recovered_at: string | null;
  serving: ServingStats & { forcedCollections: number };
  memory: NodeJS.MemoryUsage & { segmentThread: number };
}

export interface AuthorityViewDependencies {
  storage: StoragePort;
  readGuard: ReadGuard;
  serving: Pick<ServingIndex, 'stats' | 'builderThreadBytes'>;
  memoryPressure: Pick<MemoryPressure, 'collections'>;
}

export class AuthorityViewService {
  private readonly deps: AuthorityViewDependencies;

  constructor(deps: AuthorityViewDependencies) {
    this.deps = deps;
  }

  async view(): Promise<AuthorityView> {
    const { storage, readGuard, serving, memoryPressure } = this.deps;
    // Without publication there is no durable record to show; the process's own view still is.
    const record = readGuard.enabled ? await storage.authority.authority() : null;
    return {
      authority_mode: await readGuard.mode(),
      authority_id: record?.authorityId ?? null,
      changed_at: record?.changedAt ?? null,
      enabled: readGuard.enabled,
      // The answering api process's own view: its recovery and the snapshots it serves.
      process_id: process.pid,
      recovered_at: readGuard.recoveredAt,
      serving: { ...serving.stats(), forcedCollections: memoryPressure.collections },
      // This process's memory as Node sees it (bytes): what the serving budget estimates, next to what is resident,
      // and what its segment thread's isolate holds (part of the reserve the budget keeps for it).
      memory: { ...process.memoryUsage(), segmentThread: await serving.builderThreadBytes() },
    };
  }
}
