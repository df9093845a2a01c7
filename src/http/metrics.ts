// Prometheus metrics of one process: requests by route and status with latency histograms, job transitions
// and jobs by operation and state. Under the supervisor, /metrics answers for every process at once: the
// supervisor gathers each process's registry (prom-client's cluster aggregation) and sums series whose labels
// match. The service's counters are the deployment's once summed; Node's process metrics (memory, CPU, event
// loop, heap) and the serving gauges mean something only per process, so they carry its `process` label.

import { AggregatorRegistry, Counter, Histogram, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
/** What the job gauges read: job counts by operation and state (the job store answers it). */
export interface JobCounts {
  countsByOperationAndState(): Promise<{ operation: string; status: string; count: number }[]>;
}

/** What an api process serves, read when /metrics is scraped (ServingIndex.stats and the follower's lag). */
export interface ServingGauges {
  stats(): { clients: number; versions: number; chunks: number; segments: number; segmentRows: number; estimatedBytes: number };
  /** Publication-log entries committed and not yet applied, summed over the Clients the process has loaded. */
  followerLag(): Promise<number>;
}

/** Job states that wait for a worker: the queue. */
export const QUEUED_JOB_STATES: ReadonlySet<string> = new Set(['pending', 'retrying']);
/** Job durations run from seconds (text) to minutes (OCR of a long scan). */
export const JOB_DURATION_BUCKETS_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** What the build_info gauge names: the product version and the durable store of this deployment. */
export interface BuildInfo {
  version: string;
  store: string;
}

export interface MetricsOptions {
  /** The `process` label of this process's per-process series (process-settings.ts: `api-0`, `worker-1`). */
  process: string;
  build: BuildInfo;
  /** The exposition of every process of the deployment, when this one runs under the supervisor. */
  clusterExposition?: () => Promise<string>;
}

export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Aggregator of series that carry a `process` label: one value per label set, taken as it is. */
const PER_PROCESS_AGGREGATOR = 'first';

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
  readonly jobTransitions: Counter<'operation' | 'state'>;
  /** POST /search by scope: the whole search (lane "all") and each lane it ran (content, metadata). */
  readonly searchLatency: Histogram<'scope' | 'lane'>;
  /** A job's run in a worker, from its claim to the outcome recorded (or its hand-back), by operation and outcome. */
  readonly jobDurations: Histogram<'operation' | 'outcome'>;
  /** Pages whose text came from OCR. */
  readonly ocrPages: Counter;

  /** The `process` label of this process's series. */
  readonly process: string;
  /** The exposition of every process of the deployment, when this one runs under the supervisor. */
  private readonly clusterExposition: (() => Promise<string>) | null;

  constructor(jobs: JobCounts, options: MetricsOptions) {
    this.process = options.process;
    this.clusterExposition = options.clusterExposition ?? null;
    collectDefaultMetrics({ register: this.registry, labels: { process: this.process } });
    // Each process's series of Node's metrics has a label set of its own, so the aggregation meets one value
    // per set and any aggregator keeps it as it is. prom-client's own choices (`omit` for the start time,
    // `average` for event-loop lag) were made for unlabelled series, which they would drop or blend.
    for (const metric of this.registry.getMetricsAsArray()) (metric as { aggregator?: string }).aggregator = PER_PROCESS_AGGREGATOR;
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method and route',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [this.registry],
    });
    this.jobTransitions = new Counter({
      name: 'jobs_transitions_total',
      help: 'Job state transitions by operation and state entered',
      labelNames: ['operation', 'state'],
      registers: [this.registry],
    });
    this.searchLatency = new Histogram({
      name: 'search_duration_seconds',
      help: 'POST /search latency by scope, for the whole search (lane "all") and for each lane it ran',
      labelNames: ['scope', 'lane'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [this.registry],
    });
    this.jobDurations = new Histogram({
      name: 'job_duration_seconds',
      help: 'Job runs in a worker, from claim to recorded outcome, by operation and outcome',
      labelNames: ['operation', 'outcome'],
      buckets: JOB_DURATION_BUCKETS_SECONDS,
      registers: [this.registry],
    });
    this.ocrPages = new Counter({ name: 'ocr_pages_total', help: 'Pages whose text came from OCR', registers: [this.registry] });
    new Gauge({
      name: 'jobs_queued',
      help: 'Jobs waiting for a worker (pending or retrying), by operation',
      labelNames: ['operation'],
      registers: [this.registry],
      aggregator: 'first',
      async collect() {
        this.reset();
        const queued = new Map<string, number>();
        for (const row of await jobs.countsByOperationAndState()) {
          if (QUEUED_JOB_STATES.has(row.status)) queued.set(row.operation, (queued.get(row.operation) ?? 0) + row.count);
        }
        for (const [operation, count] of queued) this.set({ operation }, count);
      },
    });
    new Gauge({
      name: 'jobs',
      help: 'Jobs currently recorded, by operation and state',
      labelNames: ['operation', 'state'],
      registers: [this.registry],
      // Every process reads the same durable counts: aggregated, they are taken once, not summed.
      aggregator: 'first',
      async collect() {
        this.reset();
        for (const row of await jobs.countsByOperationAndState()) this.set({ operation: row.operation, state: row.status }, row.count);
      },
    });
    const build = new Gauge({
      name: 'build_info',
      help: 'Always 1: the product version, the Node.js version and the durable store this deployment runs',
      labelNames: ['version', 'node_version', 'store'],
      registers: [this.registry],
      // Every process of one supervisor runs the same build: 1, not the number of processes.
      aggregator: 'first',
    });
    build.set({ version: options.build.version, node_version: process.version, store: options.build.store }, 1);
  }

  /**
   * The serving gauges of an api process. Labelled with its process: summed over the deployment they would mean
   * nothing, since every api process serves the Clients it was asked for.
   */
  addServingGauges(serving: ServingGauges): void {
    const gauge = (name: string, help: string, read: () => number | Promise<number>) => this.perProcessGauge(name, help, read);
    gauge('serving_clients', 'Clients whose snapshot this api process holds', () => serving.stats().clients);
    gauge('serving_versions', 'Document Versions in the snapshots this api process holds', () => serving.stats().versions);
    gauge('serving_chunks', 'Live chunks in the snapshots this api process holds', () => serving.stats().chunks);
    gauge('serving_segments', 'Segments in the snapshots this api process holds', () => serving.stats().segments);
    gauge('serving_segment_rows', 'Rows in those segments: live chunks and replaced or deleted ones not yet merged away', () => serving.stats().segmentRows);
    gauge('serving_snapshot_bytes', 'Estimated bytes of the snapshots this api process holds', () => serving.stats().estimatedBytes);
    gauge('follower_lag_entries', 'Publication-log entries committed and not yet applied by this api process, over its loaded Clients', () => serving.followerLag());
  }

  /**
   * The connection gauges of an api process (http/connection-balance.ts), by process: how the cluster spread the
   * keep-alive connections is exactly what a sum would hide.
   */
  addConnectionGauges(connections: { openConnections(): number; connectionsClosedForBalance(): number }): void {
    this.perProcessGauge('http_open_connections', 'HTTP connections open on this api process', () => connections.openConnections());
    this.perProcessGauge('http_connections_rebalanced', 'Keep-alive connections this api process closed after an answer so that the cluster deals them out again, since it started', () => connections.connectionsClosedForBalance());
  }

  private perProcessGauge(name: string, help: string, read: () => number | Promise<number>): Gauge {
    const label = this.process;
    return new Gauge({
      name,
      help,
      labelNames: ['process'],
      registers: [this.registry],
      aggregator: PER_PROCESS_AGGREGATOR,
      async collect() {
        this.set({ process: label }, await read());
      },
    });
  }

  /** Lets the supervisor collect this registry from this process (cluster aggregation). */
  joinCluster(): void {
    AggregatorRegistry.setRegistries([this.registry]);
    new AggregatorRegistry(); // installs the responder for the supervisor's requests
  }

  /** The Prometheus exposition: every process's when under the supervisor, else this process's. */
  async exposition(): Promise<string> {
    if (this.clusterExposition) {
      try {
        return await this.clusterExposition();
      } catch {
        // The supervisor could not gather everyone in time: this process's own figures beat none.
      }
    }
    return this.registry.metrics();
  }
}
