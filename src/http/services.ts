// What the HTTP layer may call: the composed services of one running instance.
// Built by the composition root (src/main.ts); routes receive it and nothing else.

import type { Config } from '../config.ts';
import type { Storage } from '../storage/storage.ts';
import type { PublicationAuthority } from '../publication/authority.ts';
import type { SearchService } from '../search/search-service.ts';
import type { UploadService } from '../ingest/upload-service.ts';
import type { DocumentService } from '../publication/document-service.ts';
import type { LifecycleService } from '../publication/lifecycle-service.ts';
import type { UpdateService } from '../publication/update-service.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { Embedder } from '../models/embedder.ts';
import type { Reranker } from '../models/reranker.ts';
import type { WebSearchService } from '../websearch/web-search.ts';
import type { JobRecord } from '../storage/job-store.ts';

export interface Services {
  version: string;
  config: Config;
  storage: Storage;
  authority: PublicationAuthority;
  search: SearchService;
  uploads: UploadService;
  documents: DocumentService;
  lifecycle: LifecycleService;
  updates: UpdateService;
  metrics: ServiceMetrics;
  embedder: Embedder;
  reranker: Reranker;
  startedAt: string;
  webSearch: WebSearchService;
  /** Operator action: queue a metadata backfill for a Client. */
  startBackfill(clientId: string): JobRecord;
}
