// What the HTTP layer may call: the composed services of one api process.
// Built by the composition root (src/api.ts); routes receive it and nothing else.

import type { ConnectionBalance } from './connection-balance.ts';
import type { Config } from '../config.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { ServingIndex } from '../serving/serving-index.ts';
import type { SearchService } from '../search/search-service.ts';
import type { SynonymSettings } from '../search/synonym-settings.ts';
import type { SimilarService } from '../search/similar.ts';
import type { UploadService } from '../ingest/upload-service.ts';
import type { DocumentService } from '../reads/document-reads.ts';
import type { LifecycleService } from '../publication/lifecycle-service.ts';
import type { UpdateService } from '../publication/update-service.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { Embedder } from '../models/embedder.ts';
import type { Reranker } from '../models/reranker.ts';
import type { WebSearchService } from '../websearch/web-search.ts';
import type { JobRecord } from '../domain/jobs.ts';
import type { StoreFailure } from '../domain/store-failure.ts';
import type { RateLimiter } from './rate-limit.ts';
import type { StoreRefusals } from './store-refusals.ts';
import type { MemoryPressure } from '../serving/memory-pressure.ts';
import type { HealthService } from '../reads/health-service.ts';
import type { JobStatusService } from '../reads/job-status-service.ts';
import type { ReadinessService } from '../reads/readiness-service.ts';
import type { AuthorityService } from '../publication/authority-service.ts';
import type { AuthorityViewService } from '../reads/authority-view.ts';
import type { ClientTransferService } from '../ingest/client-transfer.ts';
import type { ClientRegistry } from '../access/client-registry.ts';
import type { ClientAdmin } from '../access/client-admin.ts';
import type { WebhookService } from '../webhooks/webhook-service.ts';

export interface Services {
  version: string;
  config: Config;
  /** Spreads keep-alive connections again when a sibling api process becomes ready (connection-balance.ts). */
  connections?: ConnectionBalance;
  /** The read guard of this api process (authority mode, RECOVERING, catch-up before reads). */
  readGuard: ReadGuard;
  /** This process's serving snapshots (health and operator counts). */
  serving: ServingIndex;
  /** GET /status: a Client's job, rendered by state. */
  jobStatus: JobStatusService;
  /** GET /discovery/readiness. */
  readiness: ReadinessService;
  /** GET /admin/authority: the durable authority record and this process's view of it. */
  authorityView: AuthorityViewService;
  /** The operator's control of the durable publication authority (its mode). */
  authority: AuthorityService;
  /** GET /health: each component's status and the publishing block (its store reads on the probe thread). */
  health: HealthService;
  /** Collections forced to bring this process back under its memory budget (operator view). */
  memoryPressure: MemoryPressure;
  search: SearchService;
  /** PUT and GET /settings/synonyms; searches read the same set (search-service.ts). */
  synonyms: SynonymSettings;
  /** POST /similar. */
  similar: SimilarService;
  uploads: UploadService;
  /** Operator action: export and import of one Client (GET and POST /admin/clients/{client_id}/export|import). */
  transfer: ClientTransferService;
  documents: DocumentService;
  lifecycle: LifecycleService;
  updates: UpdateService;
  metrics: ServiceMetrics;
  rateLimiter: RateLimiter;
  /** Who a Client key is: API_KEY_CLIENTS and the keys issued at runtime, with their scopes and confinement. */
  clientRegistry: ClientRegistry;
  /** The operator's Clients and keys (/admin/clients, /admin/keys). */
  clientAdmin: ClientAdmin;
  /** Writes this process saw refused for want of space (health reports the state store degraded meanwhile). */
  storeRefusals: StoreRefusals;
  embedder: Embedder;
  reranker: Reranker;
  startedAt: string;
  /** Key of the audit event's query fingerprint (AUDIT_FINGERPRINT_SECRET, or the deployment's own secret). */
  auditSecret: string;
  webSearch: WebSearchService;
  /** POST/GET /webhooks, DELETE /webhooks/{id}, GET /webhooks/{id}/deliveries. */
  webhooks: WebhookService;
  /** The store failure an error means (unreachable, unreadable or full), or null: the error handler answers it 503 or 507. */
  storeFailure(error: unknown): StoreFailure | null;
  /** Operator action: queue a metadata backfill for a Client. */
  startBackfill(clientId: string): Promise<JobRecord>;
}
