// Starts the real service in-process on a temporary DATA_DIR for benchmarks and loads documents through
// its own upload path (UploadService + worker), waiting until every job is terminal.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import type { RunningService } from '../src/service.ts';
import { validateUploadFields } from '../src/ingest/upload-service.ts';

export const BENCH_CLIENT = 'bench-client';
export const BENCH_KEY = 'bench-key';

/** Settings of a benchmark instance: silent, unlimited rate, fast polling, on a temporary DATA_DIR. */
export function benchEnv(dataDir: string, clientId: string, key: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS: JSON.stringify({ [key]: clientId }),
    RATE_LIMIT_PER_MINUTE: '1000000',
    SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
    WORKER_POLL_MS: '20',
    ...overrides,
  };
}

export async function startBenchService(overrides: Record<string, string> = {}): Promise<{ service: RunningService; dataDir: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hds-bench-'));
  const service = await startService(loadConfig(benchEnv(dataDir, BENCH_CLIENT, BENCH_KEY, overrides)));
  return {
    service,
    dataDir,
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Uploads documents as Markdown text (title as the heading) and waits until all jobs are terminal. */
export async function loadDocuments(service: RunningService, documents: { id: string; title: string; text: string }[]): Promise<number> {
  const started = performance.now();
  const jobIds: string[] = [];
  for (const doc of documents) {
    const upload = validateUploadFields({ documentId: doc.id, versionId: undefined, filename: `${doc.id}.md`, metadata: undefined });
    const body = doc.title ? `# ${doc.title}\n\n${doc.text}` : doc.text;
    jobIds.push(service.services.uploads.acceptText(BENCH_CLIENT, upload, body || '(empty)').job_id);
  }
  const jobs = service.services.storage.jobs;
  for (const jobId of jobIds) {
    for (;;) {
      const job = jobs.get(BENCH_CLIENT, jobId)!;
      if (['completed', 'failed', 'partial_failed', 'superseded'].includes(job.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return performance.now() - started;
}
