// Prometheus metrics of one service instance: requests by route and status with latency histograms, and
// jobs by operation and state. A registry per instance, so tests can run several servers in one process.

import { Counter, Histogram, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { JobStore } from '../storage/job-store.ts';

export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly latency: Histogram<'method' | 'route'>;
  readonly jobTransitions: Counter<'operation' | 'state'>;

  constructor(jobs: JobStore) {
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
      collect() {
        this.reset();
        for (const row of jobs.countsByOperationAndState()) this.set({ operation: row.operation, state: row.status }, row.count);
      },
    });
  }
}
