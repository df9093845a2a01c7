// Ingestion throughput through the service's own upload path (UploadService -> durable job -> worker):
// documents/s and pages/s over the corpus PDFs, and chunks/s for SciFact sent as JSON text. An api and a
// worker (startApi + startWorker) run in this process; a load counts as done once every job is terminal and
// the api's serving snapshot shows the result. Peak RSS is this process's, with both in it.
// Usage: node bench/ingest.ts [workerConcurrency=2]

import { readdirSync, readFileSync } from 'node:fs';
import { loadDataset } from './datasets.ts';
import { startBenchService, loadDocuments, waitForJobs, servedSnapshot, BENCH_CLIENT } from './bench-service.ts';
import { validateUploadFields } from '../src/ingest/upload-service.ts';

const CONCURRENCY = process.argv[2] ?? '2';
const PDF_DIR = new URL('../../shared/corpus/pdf/', import.meta.url);

// 1. Corpus PDFs as file uploads.
{
  const bench = await startBenchService({ WORKER_CONCURRENCY: CONCURRENCY });
  try {
    const files = readdirSync(PDF_DIR).filter((name) => name.endsWith('.pdf')).sort();
    const started = performance.now();
    const jobIds: string[] = [];
    for (const name of files) {
      const upload = validateUploadFields({ documentId: name, versionId: undefined, filename: name, metadata: undefined });
      jobIds.push((await bench.service.services.uploads.acceptFile(BENCH_CLIENT, upload, readFileSync(new URL(name, PDF_DIR)))).job_id);
    }
    const outcomes = await waitForJobs(bench.service, BENCH_CLIENT, jobIds);
    const seconds = (performance.now() - started) / 1000;
    const snapshot = await servedSnapshot(bench.service, BENCH_CLIENT);
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
    const chunks = (await servedSnapshot(bench.service, BENCH_CLIENT)).liveChunkCount;
    console.log(`SciFact as JSON text (worker concurrency ${CONCURRENCY}): ${scifact.documents.length} documents, ${chunks} chunks in ${(ms / 1000).toFixed(1)} s`);
    console.log(`  ${(chunks / (ms / 1000)).toFixed(0)} chunks/s, ${(scifact.documents.length / (ms / 1000)).toFixed(0)} documents/s; peak RSS ${Math.round((process.resourceUsage().maxRSS * 1024) / 1048576)} MiB`);
  } finally {
    await bench.close();
  }
}
