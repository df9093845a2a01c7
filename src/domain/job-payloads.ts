// What a job of each operation carries in its durable record: the request its accept recorded, the progress a
// run records for a later attempt, and the result it ends with (SPEC.md's status fields of that operation).
// Every shape here is a type alias, never an interface: a record is stored as JSON, and TypeScript sees an alias
// of JSON members as a JsonObject, where an interface would need a cast. Pure types; the handlers fill them.

import type { JsonObject } from './canonical-metadata.ts';
import type { Entities } from './entities.ts';
import type { ClassificationStatus, JobOperation, ReadinessState, SupersededReason } from './job-states.ts';
import type { Truncation } from './limits.ts';
import type { EmbedJobRequest } from './upload.ts';

export type { EmbedJobRequest } from './upload.ts';

/** SPEC.md's superseded fields: a newer upload owns the version, or another publication overtook this one. */
export type SupersededResult = {
  publication_status: 'superseded';
  /** The job that owns the version now ('' when the activation found it gone); null when overtaken. */
  superseded_by_job_id: string | null;
  superseded_reason: SupersededReason;
};

// --- embed ----------------------------------------------------------------------------------------------

/** What an upload job remembers about its staged generation while it waits for publication. */
export type StagedProgress = {
  staged_generation: number;
  /** The version's active generation when this job staged (null: none); a different one at activation means overtaken. */
  source_generation: number | null;
  failed_chunks: number;
  first_error: string | null;
  /** Size of the staged generation, for the quota check before activation (absent in progress of older versions). */
  chunks?: number;
  text_bytes?: number;
  /** Per-document limits that cut the document short: the job ends partial_failed. */
  truncations?: Truncation[];
};

/** A published upload: what GET /status shows of it, and the evidence a poll verifies (generation, digest). */
export type EmbedResult = {
  generation: number;
  manifest_digest: string;
  chunks_created: number;
  failed_chunks: number;
  categories: string[];
  classification_status: ClassificationStatus;
  entities_extracted: Entities;
  created_at: string;
};

// --- metadata_update ------------------------------------------------------------------------------------

/** PATCH /update as accepted: the custom metadata patch, a rename, and the canonical paths the 202 named. */
export type MetadataUpdateRequest = {
  metadata: JsonObject;
  filename?: string;
  updated_fields: string[];
};

/** The counters of a metadata update, whatever its end. */
export type MetadataUpdateCounts = {
  versions_total: number;
  versions_completed: number;
  versions_unchanged: number;
  updated_chunks: number;
  cleanup_tasks_scheduled: number;
};

/** One generation an update published, with the manifest digest a status poll verifies before saying ready. */
export type PublishedGeneration = {
  generation: number;
  version_key: string;
  manifest_digest: string;
};

export type MetadataUpdateResult =
  | MetadataUpdateCounts
  | (MetadataUpdateCounts & { publication_status: 'ready'; version_id: string | null; published: PublishedGeneration[] })
  | SupersededResult;

// --- metadata_backfill ----------------------------------------------------------------------------------

/** A backfill asks nothing: it covers every active version of its Client. */
export type BackfillJobRequest = Record<string, never>;

/** A remediation entry: where a version breaks the contract, never its value. */
export type BackfillViolation = {
  document_id: string;
  version_id: string | null;
  path: string[];
  cap: number;
};

/** What a running backfill records, so a crashed run resumes where it stopped and polls show its progress. */
export type BackfillProgress = {
  readiness_state: 'backfilling';
  versions_total: number;
  versions_completed: number;
  versions_backfilled: number;
  versions_pending: number;
  versions_blocked: number;
  violations: BackfillViolation[];
  violations_total: number;
  /** The last version handled, in identity order. */
  cursor: { document_id: string; version_key: string } | null;
  /**
   * The version being republished, recorded before its publication: a run that dies between the publication
   * and the record of its outcome leaves this, and the run that resumes reads the store to know which it was.
   */
  republishing?: { document_id: string; version_key: string; generation: number } | null;
};

/** The counters of a backfill that ended, ready or blocked: its progress without what only the job itself reads. */
export type BackfillReport = Omit<BackfillProgress, 'readiness_state' | 'cursor' | 'republishing'> & {
  readiness_state: Extract<ReadinessState, 'ready' | 'blocked'>;
  violations_truncated: boolean;
};

/** A backfill refused because another holds the Client's lock: the readiness now, and when to try again. */
export type BackfillRefused = {
  readiness_state: ReadinessState;
  next_retry_in_seconds: number;
};

export type BackfillResult = BackfillProgress | BackfillReport | BackfillRefused;

// --- by operation ---------------------------------------------------------------------------------------

/**
 * The payloads of each operation. `progress` is what a run records while it works (recordProgress), and is read
 * back as the record's result on the next attempt; a metadata update records none (it publishes in one step).
 */
type Payloads = {
  embed: { request: EmbedJobRequest; progress: StagedProgress; result: StagedProgress | EmbedResult | SupersededResult };
  metadata_update: { request: MetadataUpdateRequest; progress: never; result: MetadataUpdateResult };
  metadata_backfill: { request: BackfillJobRequest; progress: BackfillProgress; result: BackfillResult };
};

/** Every operation has its payloads (this fails to type-check when JOB_OPERATIONS gains one without them). */
type EveryOperation = { [O in JobOperation]: Payloads[O] };

export type JobRequest<O extends JobOperation> = EveryOperation[O]['request'];
export type JobProgress<O extends JobOperation> = EveryOperation[O]['progress'];
export type JobResult<O extends JobOperation> = EveryOperation[O]['result'];
