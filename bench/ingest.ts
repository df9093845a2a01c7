// Ingestion throughput through the service's own upload path (UploadService -> durable job -> worker):
// documents/s and pages/s over the corpus PDFs, and chunks/s for SciFact sent as JSON text.
// Usage: node bench/ingest.ts [workerConcurrency=2]

import { readdirSync, readFileSync } from 'node:fs';
import { loadDataset } from './datasets.ts';
import { startBenchService, loadDocuments, BENCH_CLIENT } from './bench-service.ts';
import type { RunningService } from '../src/service.ts';
import { validateUploadFields } from '../src/ingest/upload-service.ts';

const CONCURRENCY = process.argv[2] ?? '2';
const PDF_DIR = new URL('../../shared/corpus/pdf/', import.meta.url);

async function waitAll(service: RunningService, jobIds: string[]): Promise<Map<string, string>> {
  const outcomes = new Map<string, string>();
  for (const jobId of jobIds) {
    for (;;) {
      const job = service.services.storage.jobs.get(BENCH_CLIENT, jobId)!;
      if (['completed', 'failed', 'partial_failed', 'superseded'].includes(job.status)) {
        outcomes.set(jobId, job.status);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return outcomes;
}

// 1. Corpus PDFs as file uploads.
{
  const bench = await startBenchService({ WORKER_CONCURRENCY: CONCURRENCY });
  try {
    const files = readdirSync(PDF_DIR).filter((name) => name.endsWith('.pdf')).sort();
    const started = performance.now();
    const jobIds = files.map((name) => {
      const upload = validateUploadFields({ documentId: name, versionId: undefined, filename: name, metadata: undefined });
      return bench.service.services.uploads.acceptFile(BENCH_CLIENT, upload, readFileSync(new URL(name, PDF_DIR))).job_id;
    });
    const outcomes = await waitAll(bench.service, jobIds);
    const seconds = (performance.now() - started) / 1000;
    const snapshot = bench.service.services.authority.snapshot(BENCH_CLIENT);
    const pages = [...snapshot.versions.values()].reduce((sum, version) => sum + (version.canonicalMetadata.document.page_count ?? 0), 0);
    const completed = [...outcomes.values()].filter((status) => status === 'completed').length;
    console.log(`corpus PDFs (worker concurrency ${CONCURRENCY}): ${files.length} files (${completed} completed, ${files.length - completed} failed as expected) in ${seconds.toFixed(1)} s`);
    console.log(`  ${(files.length / seconds).toFixed(2)} documents/s, ${(pages / seconds).toFixed(1)} pages/s (${pages} pages indexed), ${(snapshot.liveChunkCount / seconds).toFixed(0)} chunks/s`);
  } finally {
    await bench.close();
  }
}

// 2. SciFact abstracts as JSON text uploads.
{
  const bench = await startBenchService({ WORKER_CONCURRENCY: CONCURRENCY });
  try {
    const scifact = loadDataset('scifact', 'train.tsv');
    const ms = await loadDocuments(bench.service, scifact.documents);
    const chunks = bench.service.services.authority.snapshot(BENCH_CLIENT).liveChunkCount;
    console.log(`SciFact as JSON text (worker concurrency ${CONCURRENCY}): ${scifact.documents.length} documents, ${chunks} chunks in ${(ms / 1000).toFixed(1)} s`);
    console.log(`  ${(chunks / (ms / 1000)).toFixed(0)} chunks/s, ${(scifact.documents.length / (ms / 1000)).toFixed(0)} documents/s; peak RSS ${Math.round((process.resourceUsage().maxRSS * 1024) / 1048576)} MiB`);
  } finally {
    await bench.close();
  }
}
