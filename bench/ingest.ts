// Ingestion throughput through the service's own upload path (UploadService -> durable job -> worker):
// documents/s, pages/s and chunks/s over the corpus files format by format (text PDFs apart from scanned ones),
// and chunks/s for SciFact sent as JSON text. An api and a
// worker (startApi + startWorker) run in this process; a load counts as done once every job is terminal and
// the api's serving snapshot shows the result. Peak RSS is this process's, with both in it.
// --rounds N uploads each group's files N times (as new documents) on one service: the first round pays for
// starting the parse and lanes threads, later ones show the steady rate. --only picks groups by a label's start.
// Usage: node bench/ingest.ts [--concurrency 4 (WORKER_CONCURRENCY, the service's default)] [--rounds 1] [--only "text PDFs"]

import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadDataset } from './datasets.ts';
import { startBenchService, loadDocuments, waitForJobs, servedSnapshot, BENCH_CLIENT } from './bench-service.ts';
import { validateUploadFields } from '../src/ingest/upload-service.ts';
import { parseDocument } from '../src/ingest/parse.ts';
import { DEFAULT_WORKER_CONCURRENCY } from '../src/config.ts';

const { values } = parseArgs({ options: { concurrency: { type: 'string', default: String(DEFAULT_WORKER_CONCURRENCY) }, rounds: { type: 'string', default: '1' }, only: { type: 'string' } }, strict: true });
const CONCURRENCY = values.concurrency;
const ROUNDS = Number(values.rounds);

// 1. Corpus files as file uploads, format by format: one load per group, each on a fresh service. PDFs are split
//    into text PDFs (every page has a text layer) and scanned ones (OCR), told apart by a first parse in this process.
const CORPUS = new URL('../../shared/corpus/', import.meta.url);
const corpusFiles = (folder: string, keep: (name: string) => boolean = () => true) =>
  readdirSync(new URL(`${folder}/`, CORPUS)).filter(keep).sort().map((name) => ({ name, url: new URL(`${folder}/${name}`, CORPUS) }));
const pdfNeedsOcr = new Map<string, boolean>();
for (const { name, url } of corpusFiles('pdf', (name) => name.endsWith('.pdf'))) {
  pdfNeedsOcr.set(name, await parseDocument(readFileSync(url), name, { ocr: { enabled: false } }).then((doc) => doc.pages.some((page) => page.text.trim() === ''), () => true));
}
const GROUPS: { label: string; files: { name: string; url: URL }[] }[] = [
  { label: 'text PDFs', files: corpusFiles('pdf', (name) => pdfNeedsOcr.get(name) === false) },
  { label: 'PDFs with scanned pages (OCR)', files: corpusFiles('pdf', (name) => pdfNeedsOcr.get(name) === true) },
  { label: 'DOCX', files: corpusFiles('docx') },
  { label: 'XLSX', files: corpusFiles('xlsx') },
  { label: 'PPTX', files: corpusFiles('pptx') },
  { label: 'legacy .doc/.xls/.ppt', files: corpusFiles('legacy') },
  { label: 'documents with embedded objects', files: corpusFiles('embedded') },
  { label: 'HTML', files: corpusFiles('html') },
  { label: 'text, CSV, Markdown', files: corpusFiles('txt') },
  { label: 'images (OCR)', files: corpusFiles('images') },
];
for (const group of GROUPS.filter((candidate) => values.only === undefined || candidate.label.startsWith(values.only))) {
  const bench = await startBenchService({ WORKER_CONCURRENCY: CONCURRENCY });
  try {
    const rssBefore = process.resourceUsage().maxRSS;
    const started = performance.now();
    const jobIds: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { name, url } of group.files) {
        const upload = validateUploadFields({ documentId: ROUNDS === 1 ? name : `${name}#${round}`, versionId: undefined, filename: name, metadata: undefined });
        jobIds.push((await bench.service.services.uploads.acceptFile(BENCH_CLIENT, upload, readFileSync(url))).job_id);
      }
    }
    const outcomes = await waitForJobs(bench.service, BENCH_CLIENT, jobIds);
    const seconds = (performance.now() - started) / 1000;
    const snapshot = await servedSnapshot(bench.service, BENCH_CLIENT);
    const pages = [...snapshot.versions.values()].reduce((sum, version) => sum + (version.canonicalMetadata.document.page_count ?? 0), 0);
    const completed = [...outcomes.values()].filter((status) => status === 'completed').length;
    const peak = Math.round((process.resourceUsage().maxRSS * 1024) / 1048576);
    const files = group.files.length * ROUNDS;
    console.log(`${group.label} (worker concurrency ${CONCURRENCY}${ROUNDS > 1 ? `, ${ROUNDS} rounds` : ''}): ${files} files (${completed} completed) in ${seconds.toFixed(1)} s`);
    console.log(`  ${(files / seconds).toFixed(2)} documents/s, ${pages > 0 ? `${(pages / seconds).toFixed(1)} pages/s (${pages} pages), ` : ''}${(snapshot.liveChunkCount / seconds).toFixed(0)} chunks/s; peak RSS ${peak} MiB${process.resourceUsage().maxRSS > rssBefore ? ' (new peak)' : ''}`);
  } finally {
    await bench.close();
  }
}

// 2. SciFact abstracts as JSON text uploads.
if (values.only === undefined || 'SciFact'.startsWith(values.only)) {
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
