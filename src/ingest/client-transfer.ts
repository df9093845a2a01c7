// Export and import of one Client (DESIGN.md "Backup, restore, export, import"). An export walks the Client's
// active generations (soft-deleted ones too) in (document_id, version) order, a page at a time, and yields
// the hds-export/1 lines; an import queues one embed job per version it does not hold yet, through the upload
// service that queues POST /embed's texts, with the version's chunks, metadata, created_at and deletion markers in the job's
// request: the worker embeds the exported chunk text again, so the uploaded files are not needed.
//
// An export reads page by page, not in one transaction: a version published while it runs may or may not be
// in it, as with any listing that pages; a version it holds is whole (one generation, read at once).

import type { StoragePort } from '../storage/port.ts';
import { versionKey } from '../domain/identity.ts';
import { exportedVersion, exportHeader } from '../domain/client-export.ts';
import type { ExportedVersion } from '../domain/client-export.ts';
import type { JobState } from '../domain/job-states.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { UploadService } from './upload-service.ts';

/** Versions read from the store per page of an export. */
export const EXPORT_PAGE_VERSIONS = 50;
/** Job states after which a job does nothing more: a version whose newest embed job is not in one is on its way. */
const FINISHED_STATES: ReadonlySet<JobState> = new Set(['completed', 'superseded', 'failed', 'partial_failed']);

export interface ImportedJob {
  job_id: string;
  status: 'pending';
  operation: 'embed';
  document_id: string;
  version_id: string | null;
}

export interface ImportAccepted {
  client_id: string;
  /** The embed jobs queued, one per version the Client did not hold. */
  jobs: ImportedJob[];
  /** Versions skipped: the Client holds them already, or an embed job of theirs is queued or running. */
  skipped: number;
}

export class ClientTransferService {
  private readonly storage: StoragePort;
  private readonly uploads: UploadService;
  private readonly configuredClients: () => ReadonlySet<string> | Promise<ReadonlySet<string>>;

  /**
   * `uploads`: the queue of POST /embed, which an import's jobs join. `configuredClients`: the Clients API keys
   * map to and those an operator created at runtime; with those holding data, the Clients an export or import may
   * name.
   */
  constructor(storage: StoragePort, uploads: UploadService, configuredClients: () => ReadonlySet<string> | Promise<ReadonlySet<string>>) {
    this.storage = storage;
    this.uploads = uploads;
    this.configuredClients = configuredClients;
  }

  /** 404 for a Client no key names and no store holds: nothing is created for it. */
  async assertKnown(clientId: string): Promise<void> {
    if ((await this.configuredClients()).has(clientId)) return;
    if ((await this.storage.knownClientIds()).includes(clientId)) return;
    throw new ServiceError('not_found', `Unknown client: ${clientId}`);
  }

  /** The export's lines (each one JSON text, without its newline): the header, then one per version. */
  async *exportLines(clientId: string, exportedAt: string = new Date().toISOString()): AsyncGenerator<string> {
    const generations = this.storage.client(clientId).generations;
    let cursor: { documentId: string; versionKey: string } | null = null;
    // The first page is read before the header is given: a store that cannot be read fails the request while
    // it can still be answered with an error envelope (the route takes the first line before it answers).
    let page = await generations.activeGenerationsAfter(cursor, EXPORT_PAGE_VERSIONS);
    yield JSON.stringify(exportHeader(clientId, exportedAt));
    for (;;) {
      for (const generation of page) yield JSON.stringify(exportedVersion(generation, generation.chunks));
      if (page.length < EXPORT_PAGE_VERSIONS) return;
      const last = page[page.length - 1];
      cursor = { documentId: last.documentId, versionKey: last.versionKey };
      page = await generations.activeGenerationsAfter(cursor, EXPORT_PAGE_VERSIONS);
    }
  }

  /** Whether the Client holds the version, or an embed job of it is still to end. */
  private async holds(clientId: string, version: ExportedVersion): Promise<boolean> {
    const key = versionKey(version.version_id);
    if (await this.storage.client(clientId).generations.activeGeneration(version.document_id, key)) return true;
    const newest = await this.storage.jobs.newestEmbedJob(clientId, version.document_id, key);
    if (!newest) return false;
    const job = await this.storage.jobs.getById(newest.jobId);
    return job !== null && !FINISHED_STATES.has(job.status);
  }

  /** Queues the versions (already checked whole, domain/client-export.ts) the Client does not hold. */
  async importVersions(clientId: string, versions: readonly ExportedVersion[]): Promise<ImportAccepted> {
    const jobs: ImportedJob[] = [];
    let skipped = 0;
    for (const version of versions) {
      if (await this.holds(clientId, version)) {
        skipped++;
        continue;
      }
      const accepted = await this.uploads.acceptImported(clientId, version);
      jobs.push({ job_id: accepted.job_id, status: 'pending', operation: 'embed', document_id: version.document_id, version_id: version.version_id });
    }
    return { client_id: clientId, jobs, skipped };
  }
}
