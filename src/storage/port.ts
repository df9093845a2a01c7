// The storage port: what services may ask of the durable store, as repositories by aggregate. Every method is
// asynchronous, so that a network store (PostgreSQL) fits behind it as well as the embedded SQLite adapter,
// and every method is one transaction: it reads one consistent state, and what it writes commits whole or
// not at all. No transaction spans two calls. A write that touches two aggregates (an activation appends its
// publication-log entry; the start of a purge appends a removal) is one method of the aggregate that owns it,
// and says so. Nothing here names a driver's types; services import these types only.

import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';
import type { RowRange } from '../domain/row-range.ts';
import type {
  ActivationResult,
  ChunkRecord,
  GenerationInput,
  GenerationRecord,
  LoadedGeneration,
  ServingGeneration,
} from '../domain/generation.ts';
import type { JobState, ReadinessState } from '../domain/job-states.ts';
import type { JobIdentity, JobRecord, NewJob } from '../domain/jobs.ts';
import type { UsageBesides } from '../domain/limits.ts';
import type { StoreFailure } from '../domain/store-failure.ts';
import type { DurableAuthorityMode, PublicationLogEntry } from '../domain/publication-log.ts';
import type { DeliveryRecord, LeasedDelivery, SigningWebhook, WebhookRecord } from '../domain/webhooks.ts';

/** A generation's publication record: its manifest and the identity it was published under. */
/** What an answer reads of a chunk it shows: its text, and the language that chose its analyzer (for highlights). */
export interface StoredChunkEntities {
  chunkIndex: number;
  entitiesJson: string;
}

export interface StoredChunkText {
  text: string;
  language: ChunkLanguage | null;
  /** The spreadsheet rows the chunk holds; null for other chunks and chunks stored before rows were recorded. */
  rows: RowRange | null;
}

export interface ManifestRecord {
  generation: number;
  state: string;
  documentId: string;
  versionKey: string;
  jobId: string | null;
  chunkCount: number;
  /** Parsed manifest JSON, or null when the stored text is not JSON (corrupt evidence). */
  manifest: JsonObject | null;
}

/** Whether an activation may replace the version's current active generation (null: none yet). */
export type ActivationVeto = (current: GenerationRecord | null) => boolean;

/**
 * One Client's generations with their chunks, metadata leaves and lane data: staging, activation, and the
 * reads that serving, documents and quotas need. A generation never changes once staged; activation moves
 * the version's pointer to it and retires the one it replaces.
 */
export interface GenerationRepository {
  /** Writes a generation in state staged (invisible to every read) and returns its number. */
  stage(input: GenerationInput): Promise<number>;
  /** The staged generation a job left behind while it waited for publication, if any. */
  stagedGenerationOf(jobId: string): Promise<number | null>;
  /** Removes a staged generation that will never be activated (its job was superseded or failed). */
  discardStaged(generation: number): Promise<void>;
  /**
   * Activates a staged generation when `allow` agrees, retiring the version's previous generation and
   * appending the publication-log entry, in one transaction. Null when vetoed or no longer staged.
   */
  activateStaged(generation: number, allow?: ActivationVeto): Promise<ActivationResult | null>;
  /** Stages and activates one generation (with its log entry) in one transaction when `allow` agrees; null when vetoed. */
  stageAndActivate(input: GenerationInput, allow?: ActivationVeto): Promise<ActivationResult | null>;
  /**
   * Stages and activates several generations (with their log entries) in one transaction, each replacing the
   * generation its caller read (`expected`). If any version moved meanwhile, nothing is written: null.
   */
  replaceGenerations(replacements: { input: GenerationInput; expected: number | null }[]): Promise<ActivationResult[] | null>;

  /** A version's active generation, unreadable parts named (GenerationRecord.unreadable). */
  activeGeneration(documentId: string, versionKey: string): Promise<GenerationRecord | null>;
  /** A generation's record as stored, unreadable parts named. */
  generation(generation: number): Promise<GenerationRecord | null>;
  /** Active generations of every version of one document, in version-key order. */
  activeGenerationsOf(documentId: string): Promise<GenerationRecord[]>;
  /** Only the manifest of a generation (what publication-ready polls may read). */
  manifest(generation: number): Promise<ManifestRecord | null>;
  /** The manifest record of a version's active generation (successor verification reads nothing else). */
  activeManifest(documentId: string, versionKey: string): Promise<ManifestRecord | null>;
  /** The whole generation with chunks and leaves; UnreadableGeneration when part of it does not read. */
  loadGeneration(generation: number): Promise<LoadedGeneration | null>;
  /** The stored texts (and languages) of these chunks in the order asked, null where one is gone (its generation was purged). */
  chunkTexts(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(StoredChunkText | null)[]>;
  /**
   * The stored full-precision vectors of these chunks in the order asked, null where one is gone: what the dense
   * lane rescores its best rows with (serving holds int8 codes only).
   */
  chunkVectors(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(Float32Array | null)[]>;
  /** Up to `limit` chunks of a generation from the `offset`-th, in document order. */
  chunkRange(generation: number, offset: number, limit: number): Promise<ChunkRecord[]>;
  /** Every chunk's entities of a generation as stored (their JSON text), in document order: what their evidence is checked against. */
  chunkEntities(generation: number): Promise<StoredChunkEntities[]>;

  /**
   * The next active versions (not under purge) after `cursor` in identity order, loaded, unreadable ones
   * named as such: a scan that can stop and resume, since a replacement keeps its version's place.
   */
  activeGenerationsAfter(cursor: { documentId: string; versionKey: string } | null, limit: number): Promise<LoadedGeneration[]>;
  /** How many active versions (not under purge) the Client has. */
  activeVersionCount(): Promise<number>;
  /** Active generations a serving snapshot holds (not under purge), in activation order: ids only. */
  servedGenerationIds(): Promise<number[]>;
  /**
   * These generations as serving loads them, those still active only (a rebuild loads them in batches).
   * `content: false` leaves out their lane data and chunks (lanes null, no chunks): a load that reads their
   * index back from the segment cache needs their records and leaves only.
   */
  loadActiveGenerations(generations: readonly number[], options?: { content?: boolean }): Promise<ServingGeneration[]>;
  /** True when an active generation's metadata lane was never indexed (pre-discovery data). */
  hasUnindexedLeaves(): Promise<boolean>;
  /** What the Client holds over its active generations, without the given Document Version (quotas). */
  usage(besides: { documentId: string; versionKey: string }): Promise<UsageBesides>;
  /**
   * Removes the chunks, leaves and lane data of generations retired at or before `cutoff` (an ISO time);
   * their records and manifests stay for successor verification. Returns the chunk rows removed.
   */
  cleanupRetiredBefore(cutoff: string): Promise<number>;
}

/** What a follower must apply to move from one log position to the head, read in one consistent state. */
export interface PublicationChanges {
  head: number;
  /** The oldest entry still in the log (0 when the log is empty). */
  floor: number;
  entries: PublicationLogEntry[];
  /** The generations named by the entries that are still active, as serving loads them. */
  generations: Map<number, ServingGeneration>;
}

/** One Client's publication log: the ordered record of activations and removals that followers replay. */
export interface PublicationLogRepository {
  /**
   * The sequence number of the newest publication (0 before the first). `until` names the fence being served
   * (its start, an ISO time): the head is then the fence's position, the same on every host. Every adapter
   * refuses appends once a fence has begun (LogPolicy); one whose refusal is serialized with the mode change
   * (PostgreSQL: the authority row's lock) serves its head as the fence's position, and one whose refusal is
   * not (SQLite: the authority is in another database file) records the position under the Client's write
   * lock at the fence's first read, so that no append lands above it. No adapter compares clocks.
   */
  head(until?: string): Promise<number>;
  /**
   * Entries after `since` up to the head (or the position of the fence `until` names), at most `maxEntries` of
   * them, and the still-active generations they name, in one consistent read.
   */
  changesSince(since: number, maxEntries: number, until?: string): Promise<PublicationChanges>;
  /**
   * Whether an entry after `since` (up to the head, or to what `until` pins) names this Document Version; true as
   * well when the entries after `since` were compacted away and cannot tell.
   */
  touchedSince(since: number, documentId: string, versionKey: string, until?: string): Promise<boolean>;
}

/** One Client's purge journal: hard deletes recorded before they remove anything, so a crash resumes them. */
export interface PurgeJournalRepository {
  /** Records the intent to purge these versions and hides them (a removal in the publication log), in one transaction. */
  begin(documentId: string, versionKeys: string[]): Promise<void>;
  /** Version keys of this document whose purge was started and not finished. */
  open(documentId: string): Promise<string[]>;
  /**
   * Physically removes every generation of a version with its chunks and leaves, and closes its entry; returns
   * how many chunks the version served (its active generation's).
   */
  purgeVersion(documentId: string, versionKey: string): Promise<number>;
  /** What is left of a version in every lane (a purge is verified by this reaching 0). */
  remainingRecords(documentId: string, versionKey: string): Promise<number>;
}

/** Everything the store holds for one Client. */
export interface ClientRepositories {
  readonly clientId: string;
  readonly generations: GenerationRepository;
  readonly publicationLog: PublicationLogRepository;
  readonly purges: PurgeJournalRepository;
  /** The stored schema of the Client's lanes (health reports it). */
  laneSchemas(): Promise<string[]>;
  /** A cheap read that proves the Client's store answers. */
  probe(): Promise<void>;
}

/** Durable jobs with leases: enqueue, claim, heartbeat, retry, finish, look up. */
export interface JobRepository {
  enqueue(job: NewJob): Promise<JobRecord>;
  /** A Client's job (never another Client's). */
  get(clientId: string, jobId: string): Promise<JobRecord | null>;
  getById(jobId: string): Promise<JobRecord | null>;
  /** Takes the next runnable job for `owner` with a lease of `leaseMs`, or null. */
  claim(owner: string, leaseMs: number): Promise<JobRecord | null>;
  /** Extends the owner's lease (and sets a status); false when the lease was lost. */
  heartbeat(jobId: string, owner: string, leaseMs: number, status?: JobState): Promise<boolean>;
  finish(jobId: string, owner: string, outcome: { status: JobState; result?: JsonObject | null; error?: string | null; errorDetails?: JsonObject | null }): Promise<boolean>;
  scheduleRetry(jobId: string, owner: string, error: string, delayMs: number): Promise<boolean>;
  recordProgress(jobId: string, owner: string, progress: JsonObject): Promise<boolean>;
  /** Puts a job back to wait for publication (no attempt spent). */
  waitForPublication(jobId: string, owner: string, message: string, delayMs: number): Promise<boolean>;
  release(jobId: string, owner: string): Promise<void>;
  /** The newest upload job accepted for a Document Version (the one that owns it), by its identity alone. */
  newestEmbedJob(clientId: string, documentId: string, versionKey: string): Promise<JobIdentity | null>;
  /** Deletes a document's jobs (hard delete); returns their ids. */
  deleteForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]>;
  /**
   * The uploads named by the jobs deleteForDocument would delete (one not yet parsed still has its file): a hard
   * delete removes them first, so that no copy of an uploaded file outlives it.
   */
  uploadsForDocument(clientId: string, documentId: string, versionKey: string | null): Promise<string[]>;
  countsByOperationAndState(): Promise<{ operation: string; status: string; count: number }[]>;
  /** Upload files that live jobs still need. */
  liveUploadNames(): Promise<Set<string>>;
}

/** How one delivery attempt ended: delivered, retried after `retryInMs`, or given up (`retryInMs` null). */
export interface DeliveryAttempt {
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  retryInMs: number | null;
}

/**
 * Webhooks and their outbox, in the store of the jobs: JobRepository.finish writes one pending delivery per matching
 * webhook in the transaction that records the outcome, so none is lost when a process dies right after it.
 */
export interface WebhookRepository {
  /** Registers a webhook, unless the Client holds `max` already (then null). */
  create(webhook: SigningWebhook, max: number): Promise<WebhookRecord | null>;
  /** A Client's webhooks, oldest first (never their secrets). */
  list(clientId: string): Promise<WebhookRecord[]>;
  /** Removes a Client's webhook with its deliveries; false for an unknown id and another Client's alike. */
  remove(clientId: string, webhookId: string): Promise<boolean>;
  /** The newest `limit` deliveries of a Client's webhook, newest first; null when it is not the Client's. */
  deliveries(clientId: string, webhookId: string, limit: number): Promise<DeliveryRecord[] | null>;
  /**
   * Takes up to `limit` due deliveries for `owner` with a lease of `leaseMs`: pending, due, not leased (or the lease
   * expired: its sender died), and with no earlier delivery of the same webhook and document still pending, so that
   * a document's outcomes reach each receiver in the order they were recorded.
   */
  lease(owner: string, leaseMs: number, limit: number): Promise<LeasedDelivery[]>;
  /** Records an attempt of a delivery this owner leased; false when the lease was lost (or the webhook removed). */
  recordAttempt(deliveryId: string, owner: string, attempt: DeliveryAttempt): Promise<boolean>;
}

/** A Client's Metadata Discovery readiness as recorded (reads/discovery-readiness.ts derives what readers see). */
export interface RecordedReadiness {
  state: ReadinessState;
  backfillJobId: string | null;
  /** Null when nothing was ever recorded for the Client. */
  updatedAt: string | null;
}

/** Durable Metadata Discovery readiness per Client. */
export interface DiscoveryRepository {
  readiness(clientId: string): Promise<RecordedReadiness>;
  setReadiness(clientId: string, state: ReadinessState, backfillJobId?: string | null): Promise<void>;
}

/** A Client's synonym set as stored: its JSON text and the version each accepted change increments. */
export interface StoredSynonyms {
  version: number;
  /** The set as the Client sent it (canonical JSON of search/synonyms.ts SynonymRule[]). */
  rules: string;
}

/** Per-Client search settings: the synonym set of the content lane (DESIGN.md "Facets, sorting, synonyms"). */
export interface SettingsRepository {
  /** The version of the Client's synonym set: 0 when none was ever set. One cheap read per search. */
  synonymsVersion(clientId: string): Promise<number>;
  /** The Client's synonym set, or null when none was ever set. */
  synonyms(clientId: string): Promise<StoredSynonyms | null>;
  /** Replaces the Client's whole synonym set; answers the new version. */
  setSynonyms(clientId: string, rules: string): Promise<number>;
}

export interface AuthorityRecord {
  mode: DurableAuthorityMode;
  authorityId: string;
  changedAt: string;
}

/** The durable publication authority record and named leases (lifecycle fences, single-writer locks). */
export interface AuthorityRepository {
  /** The record; AuthorityUnreadable when it is missing, damaged or cannot be read. */
  authority(): Promise<AuthorityRecord>;
  setAuthorityMode(mode: DurableAuthorityMode): Promise<AuthorityRecord>;
  /** Takes the named lease for `owner` when it is free, expired or already this owner's (then renews it). */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Extends a lease this owner holds; false when it was lost (expired and taken). */
  renewLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;
  /** The live holder of a lease, or null. */
  leaseHolder(name: string): Promise<{ owner: string; expiresAt: number } | null>;
  /** A cheap read that proves the record's store answers. */
  probe(): Promise<void>;
}

/** A bucket a request draws on. */
export interface RateSlotRequest {
  bucket: string;
  limit: number;
  /**
   * Slots wanted (default 1, this request's own). More asks for a batch that the caller hands out to its
   * next requests itself; it is granted only while the window has room for it (RateBatchPolicy).
   */
  wanted?: number;
}

/** When a store may count a batch of slots at once, and for how long the caller may hand them out. */
export interface RateBatchPolicy {
  /** The batch's slots are counted as taken this much later than now: a slot handed out within it is never counted early. */
  lifetimeMs: number;
  /** A batch takes at most this share of the room left in the window (room / roomShare slots). */
  roomShare: number;
  /** Below this much room left, one slot at a time: near its limit a window is decided request by request. */
  minRoom: number;
}

export interface RateWindowDecision {
  allowed: boolean;
  /** When refused: ms until the oldest hit in the window leaves it. */
  retryAfterMs: number;
  /** When allowed: per bucket asked for, in order, the slots counted (1, or a batch). */
  granted: number[];
  /** When a batch was counted: the time (the store's clock) its slots were counted at, to give unused ones back. */
  stampedAt: number;
}

/** Sliding rate-limit windows per (Client, bucket), shared by every process. */
export interface RateLimitRepository {
  /**
   * Counts one request in every bucket if each window has room, all or nothing; with a batch policy, a
   * bucket that asks for more and has room for them counts a batch instead (RateSlotRequest.wanted).
   */
  takeSlots(clientId: string, buckets: readonly RateSlotRequest[], windowMs: number, batch?: RateBatchPolicy): Promise<RateWindowDecision>;
  /** Uncounts up to `count` slots of a batch counted at `stampedAt` (those its taker did not hand out). */
  returnSlots(clientId: string, bucket: string, count: number, stampedAt: number): Promise<void>;
  /** The hits the bucket's window holds now, by reading only (a full store still answers it). */
  countSlots(clientId: string, bucket: string, windowMs: number): Promise<number>;
  /**
   * Counts hits that were allowed without the store (while it refused writes), each `agesMs[i]` ms before the
   * store's now, so they leave the window when they would have had they been counted then.
   */
  recordSlots(clientId: string, bucket: string, agesMs: readonly number[]): Promise<void>;
}

/** A Client created or changed at runtime (the operator routes); a Client of API_KEY_CLIENTS has one once changed. */
export interface ClientRecord {
  clientId: string;
  createdAt: string;
  disabled: boolean;
  /** Overrides RATE_LIMIT_PER_MINUTE for this Client; null: the deployment's. */
  rateLimitPerMinute: number | null;
  /** Overrides SEARCH_RATE_LIMIT_PER_MINUTE for this Client; null: the deployment's. */
  searchRateLimitPerMinute: number | null;
}

/** What may change of a Client (absent fields stay as they are). */
export interface ClientChanges {
  disabled?: boolean;
  rateLimitPerMinute?: number | null;
  searchRateLimitPerMinute?: number | null;
}

/** A key issued at runtime, as stored: its secret's hash, never the secret. */
export interface IssuedKeyRecord {
  keyId: string;
  clientId: string;
  secretHash: string;
  scopes: string[];
  expiresAt: string | null;
  /** A POST /search filter object that confines every read of the key, or null. */
  filter: JsonObject | null;
  label: string | null;
  createdAt: string;
}

/** Clients and keys made at runtime, shared by every process (each api process reads them all on a short interval). */
export interface AccessRepository {
  /** Records a new Client; false when one of that id is recorded already. */
  createClient(clientId: string, createdAt: string): Promise<boolean>;
  /**
   * Changes a recorded Client, or records it with these changes when `createdAt` is given (a Client of
   * API_KEY_CLIENTS changed for the first time); null when there is none and none was to be made.
   */
  changeClient(clientId: string, changes: ClientChanges, createdAt?: string): Promise<ClientRecord | null>;
  issueKey(key: IssuedKeyRecord): Promise<void>;
  /** Removes a key; false when there was none of that id. */
  revokeKey(keyId: string): Promise<boolean>;
  /** Every recorded Client and every key not revoked, read in one consistent state. */
  accessRecords(): Promise<{ clients: ClientRecord[]; keys: IssuedKeyRecord[] }>;
}

/** Secrets shared by every process of a deployment, created by the first that asks. */
export interface SecretRepository {
  /** The named secret (random, 32 bytes, hex); never logged or returned to callers. */
  deploymentSecret(name: string): Promise<string>;
}

/**
 * The page cache a Client's open database connection keeps, at least and at most (the SQLite store sizes it to the
 * Client's file in between: sqlite/client-page-cache.ts); processes that serve Clients count it in their memory budgets.
 */
export const CLIENT_CONNECTION_CACHE_MIN_KIB = 256;
export const CLIENT_CONNECTION_CACHE_MAX_KIB = 8192;

/**
 * How old an upload no live job names must be before a sweep removes it. An api process saves the file first
 * and records its job a moment later; a worker starting meanwhile (on any host) must not take the file from
 * under that job.
 */
export const UPLOAD_SWEEP_GRACE_MS = 60 * 60_000;

/** Uploaded files, written durably before the job that needs them is recorded. */
export interface UploadRepository {
  save(name: string, bytes: Uint8Array): Promise<void>;
  read(name: string): Promise<Buffer | null>;
  delete(name: string): Promise<void>;
  /**
   * Removes uploads no live job refers to (left by a crash between write and enqueue) that were saved more
   * than `graceMs` ago (UPLOAD_SWEEP_GRACE_MS by default); returns how many.
   */
  sweep(liveNames: Set<string>, graceMs?: number): Promise<number>;
}

export interface StoragePort {
  readonly jobs: JobRepository;
  readonly discovery: DiscoveryRepository;
  readonly settings: SettingsRepository;
  readonly authority: AuthorityRepository;
  readonly rateLimits: RateLimitRepository;
  readonly secrets: SecretRepository;
  readonly access: AccessRepository;
  readonly uploads: UploadRepository;
  readonly webhooks: WebhookRepository;
  /** The Client's repositories (opened on first use; no I/O is needed to name them). */
  client(clientId: string): ClientRepositories;
  /** Lets go of what the process holds open for the Client (its connection); the next use opens it again. */
  releaseClient(clientId: string): void;
  knownClientIds(): Promise<string[]>;
  /**
   * After a hard delete's purge: lets no copy of what it removed stay in the store's own files where the store
   * can see to it (SQLite: the Client's database and the control database checkpoint their write-ahead logs
   * and truncate them; deleted content is already overwritten, secure_delete). PostgreSQL keeps dead tuples until
   * its VACUUM reclaims them, which is the database's own business: nothing here.
   */
  erasePurged(clientId: string): Promise<void>;
  /** Whether the store answers: the shared records and, in turn, a bounded number of Client stores. */
  probe(): Promise<void>;
  /**
   * The store failure an error of this store means (it cannot be reached or read, or it is full), or null for
   * any other error: callers answer the first with a retryable refusal that names the storage, never a 500.
   */
  failureOf(error: unknown): StoreFailure | null;
  provisionedClients(): Promise<number>;
  /** The lane tables' stored schemas, and the engine with its version (`sqlite-3.50.4`, `postgresql-16.10`). */
  laneSchemas(): Promise<{ engineVersion: string; schemas: string[] }>;
  /**
   * Present when the store announces publications (PostgreSQL's NOTIFY): `onPublished` hears the Client of
   * every publication committed from now on, or null when announcements may have been missed (the listening
   * connection was lost and is back) and every Client should be checked. A store without it is polled.
   * Announcements only wake followers early: reads still read the log head, so none depends on one arriving.
   */
  watchPublications?(onPublished: (clientId: string | null) => void): PublicationWatch;
  /** Lets go of what the process holds open (for a network store, starts closing its connections). */
  close(): void;
  /** Closes, and settles once everything is let go (a network store's connections have ended). */
  end(): Promise<void>;
}

/** A watch of publications (StoragePort.watchPublications). */
export interface PublicationWatch {
  /** Settles once the watch is listening (announcements committed before may not be heard). */
  readonly listening: Promise<void>;
  stop(): Promise<void>;
}
