// GET /health as a service: the status of each component, the publishing block and the publication diagnostics
// of the answering api process (SPEC.md "GET /health"), with the HTTP status they decide: 503 only when
// publication is enabled and serving is unsafe. The store's reads run on the probe thread (health/health-probes.ts).

import type { Config } from '../config.ts';
import type { HealthProbes } from '../health/health-probes.ts';
import type { ReadGuard } from '../serving/read-guard.ts';
import type { ServingIndex } from '../serving/serving-index.ts';
import { HEALTH_PROBE_DEADLINE_MS } from '../spec-limits.ts';
import { SchemaEvidenceCache } from './schema-evidence.ts';

/** The answer of GET /health: its status code and body. */
export interface HealthAnswer {
  statusCode: 200 | 503;
  body: Record<string, unknown>;
}

export interface HealthServiceDependencies {
  version: string;
  config: Pick<Config, 'classificationEnabled' | 'store'>;
  readGuard: ReadGuard;
  /** The store reads, each within its deadline, off the event loop. */
  probes: Pick<HealthProbes, 'authority' | 'stateStore' | 'laneSchemas' | 'provisionedClients'>;
  /** Reads the classifier's model file again (resolves at once for the built-in classifier). */
  probeClassifier: () => Promise<void>;
  /** Whether this process saw the store refuse its writes for want of space lately (rate-limit budget or a request's). */
  storeRefusingWrites: () => boolean;
  serving: Pick<ServingIndex, 'stats'>;
  /** The dense lane's dimensions: part of the collection schema digest. */
  dimensions: number;
}

/** Resolves with the probe's value, or null when it fails or misses the deadline. */
async function probeWithin<T>(probe: () => Promise<T>, deadlineMs: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      probe().catch(() => null),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), deadlineMs))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export class HealthService {
  private readonly deps: HealthServiceDependencies;
  private readonly schemaCache: SchemaEvidenceCache;

  constructor(deps: HealthServiceDependencies) {
    this.deps = deps;
    this.schemaCache = new SchemaEvidenceCache({
      read: () => deps.probes.laneSchemas(),
      provisioned: () => deps.probes.provisionedClients(),
      dimensions: deps.dimensions,
    });
  }

  async check(): Promise<HealthAnswer> {
    const { readGuard, probes, config } = this.deps;
    const recovering = readGuard.isRecovering;
    // Every component is probed, side by side, each read within its own 2-second deadline (the store's reads on
    // the probe thread, where the deadline can fire whatever they do: health-probes.ts, which also re-makes a
    // read another call's stuck one held up). The thread reads in this order, the authority record first: a
    // stuck Client database fails the state store, not publication. The schema evidence is two such reads, each
    // with its deadline: no deadline of its own over both, which would fail it when one of them was re-made.
    const [authority, schema, stateStore, classifier] = await Promise.all([
      readGuard.enabled ? probes.authority() : Promise.resolve(null),
      this.schemaCache.evidence().catch(() => null),
      probes.stateStore(),
      config.classificationEnabled ? probeWithin(() => this.deps.probeClassifier().then(() => true), HEALTH_PROBE_DEADLINE_MS) : Promise.resolve(null),
    ]);
    // A store that refused this process's writes for want of space (its budget writes, or a request's own) is
    // degraded even where the probe's reads pass: a full PostgreSQL disk still serves every read.
    const stateStoreOk = stateStore === true && !this.deps.storeRefusingWrites();
    // The serving index of this process: built (not recovering) and its lane schemas readable.
    const vectorStoreOk = !recovering && schema !== null;
    const components: Record<string, string> = {
      api: 'ok',
      state_store: stateStoreOk ? 'ok' : 'error',
      vector_store: vectorStoreOk ? 'ok' : 'error',
      worker_queue: 'ok', // SPEC.md: always ok; workers are not probed
    };
    if (config.classificationEnabled) components.classifier = classifier === true ? 'ok' : 'error';
    const healthy = () => Object.values(components).every((value) => value === 'ok');
    if (!readGuard.enabled) {
      return {
        statusCode: 200,
        body: {
          status: healthy() ? 'healthy' : 'degraded',
          version: this.deps.version,
          components,
          publishing: { status: 'ready', reason: null, authority_mode: 'DISABLED' },
        },
      };
    }
    // Publication alone decides the HTTP status: RECOVERING is this process's own; otherwise the durable
    // record decides, and an unreadable record is unsafe. Other failing components degrade with 200.
    const mode = recovering ? 'RECOVERING' : (authority?.mode ?? null);
    const servingSafe = mode === 'READY' || mode === 'FENCING';
    components.publication = servingSafe ? 'ok' : 'error';
    const reportedMode = mode ?? 'UNKNOWN';
    const publishing = servingSafe
      ? mode === 'FENCING'
        ? { status: 'degraded', reason: 'fencing', authority_mode: reportedMode }
        : { status: 'ready', reason: null, authority_mode: reportedMode }
      : { status: 'unavailable', reason: mode ? mode.toLowerCase() : 'authority_unreadable', authority_mode: reportedMode };
    const stats = this.deps.serving.stats();
    return {
      statusCode: servingSafe ? 200 : 503,
      body: {
        status: healthy() ? 'healthy' : 'degraded',
        version: this.deps.version,
        components,
        publishing,
        diagnostics: {
          publication: {
            status: servingSafe ? 'ok' : 'error',
            serving_status: servingSafe ? 'serving' : 'unavailable',
            publishing_status: publishing.status,
            authority_mode: reportedMode,
            authority_id: authority?.authorityId ?? null,
            state_store_id: config.store === 'postgres' ? 'postgresql' : 'sqlite',
            vector_store_id: 'in-memory-snapshot',
            vector_store_version: schema?.vectorStoreVersion ?? null,
            collection_schema_digest: schema?.collectionSchemaDigest ?? null,
            recovery_evidence: { recovered_at: readGuard.recoveredAt, process_id: process.pid, clients: stats.clients, versions: stats.versions, chunks: stats.chunks },
          },
        },
      },
    };
  }
}
