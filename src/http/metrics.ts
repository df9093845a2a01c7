// Prometheus metrics of one process: requests by route and status with latency histograms, job transitions
// and jobs by operation and state. Under the supervisor, /metrics answers for every process at once: the
// supervisor gathers each process's registry (prom-client's cluster aggregation) and sums them.

import { AggregatorRegistry, Counter, Histogram, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
/** What the job gauges read: job counts by operation and state (the job store answers it). */
export interface JobCounts {
  countsByOperationAndState(): Promise<{ operation: string; status: string; count: number }[]>;
}

export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
  readonly jobTransitions: Counter<'operation' | 'state'>;

  /** The exposition of every process of the deployment, when this one runs under the supervisor. */
  private readonly clusterExposition: (() => Promise<string>) | null;

  constructor(jobs: JobCounts, options: { clusterExposition?: () => Promise<string> } = {}) {
    this.clusterExposition = options.clusterExposition ?? null;
    collectDefaultMetrics({ register: this.registry });
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
