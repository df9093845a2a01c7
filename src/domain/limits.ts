// What one document and one Client may cost (issue 9): the per-document limits applied while a document is
// parsed and chunked, the per-Client quotas checked at upload and before a job stages its generation, and the
// bound on one GET /document/{id}/text answer. Pure types and rules; the values come from src/config.ts.

/** Per-document limits. A document over one is indexed truncated, with a quality warning (see pipeline.ts). */
export interface DocumentLimits {
  /** Characters of text extracted from one document (every page, sheet, note and comment together). */
  maxChars: number;
  /** Chunks indexed for one document. */
  maxChunks: number;
  /** Pages read from one document: PDF pages and presentation slides (image frames are bounded by OCR_MAX_PAGES). */
  maxPages: number;
  /** Worksheets read from one workbook. */
  maxSheets: number;
  /** Cells read from one workbook, over all its sheets (empty cells count: they cost reading too). */
  maxCells: number;
}

/**
 * A per-document limit (docs/configuration.md "Limits") that cut a document short: what was indexed is a prefix
 * of it. Recorded with the job that staged the document (a type alias: JSON to TypeScript).
 */
export type Truncation = {
  limit: 'characters' | 'chunks' | 'pages' | 'sheets' | 'cells';
  /** The limit's value. */
  max: number;
};

/** Per-Client quotas, counted over the Client's active generations (soft-deleted ones included). */
export interface ClientQuotas {
  /** Documents (distinct document_id) with at least one active version. */
  maxDocuments: number;
  /** Chunks of all active generations. */
  maxChunks: number;
  /** UTF-8 bytes of the text of all active chunks (what the serving snapshots hold in memory). */
  maxTextBytes: number;
}

/** Per-Client quotas from the settings CLIENT_MAX_DOCUMENTS, CLIENT_MAX_CHUNKS and CLIENT_MAX_TEXT_BYTES. */
export function clientQuotasOf(settings: { clientMaxDocuments: number; clientMaxChunks: number; clientMaxTextBytes: number }): ClientQuotas {
  return { maxDocuments: settings.clientMaxDocuments, maxChunks: settings.clientMaxChunks, maxTextBytes: settings.clientMaxTextBytes };
}

/** What a Client holds now, counted from its store. */
export interface ClientUsage {
  documents: number;
  chunks: number;
  textBytes: number;
}

/** A Client's usage without one Document Version (the one an upload would replace). */
export interface UsageBesides extends ClientUsage {
  /** The document has another active version, so it is already counted in `documents`. */
  documentPresent: boolean;
}

export type QuotaName = 'documents' | 'chunks' | 'text_bytes';

/**
 * The first quota a Client breaches, in the shape of error_details (code, quota, observed, limit, unit): a type
 * alias, not an interface, so that TypeScript sees it as the JSON a job records.
 */
export type QuotaBreach = {
  code: 'client_quota_exceeded';
  quota: QuotaName;
  /** What the Client holds (at upload) or would hold (in the worker) on this quota. */
  observed: number;
  limit: number;
  unit: 'documents' | 'chunks' | 'utf8_bytes';
};

function breach(quota: QuotaName, observed: number, limit: number): QuotaBreach {
  const unit = quota === 'text_bytes' ? 'utf8_bytes' : quota;
  return { code: 'client_quota_exceeded', quota, observed, limit, unit };
}

/**
 * At upload: refused when the new version cannot fit whatever its size, that is when the Client, without the
 * version the upload replaces, is already at or over a quota (a new document counts one more document; a new
 * version of a known document does not). `observed` is what the Client holds now.
 */
export function uploadRefusal(besides: UsageBesides, quotas: ClientQuotas): QuotaBreach | null {
  if (!besides.documentPresent && besides.documents >= quotas.maxDocuments) return breach('documents', besides.documents, quotas.maxDocuments);
  if (besides.chunks >= quotas.maxChunks) return breach('chunks', besides.chunks, quotas.maxChunks);
  if (besides.textBytes >= quotas.maxTextBytes) return breach('text_bytes', besides.textBytes, quotas.maxTextBytes);
  return null;
}

/** In the worker, once the new generation's size is known: the first quota it would push the Client over. */
export function projectedBreach(besides: UsageBesides, added: { chunks: number; textBytes: number }, quotas: ClientQuotas): QuotaBreach | null {
  const documents = besides.documents + (besides.documentPresent ? 0 : 1);
  if (documents > quotas.maxDocuments) return breach('documents', documents, quotas.maxDocuments);
  if (besides.chunks + added.chunks > quotas.maxChunks) return breach('chunks', besides.chunks + added.chunks, quotas.maxChunks);
  if (besides.textBytes + added.textBytes > quotas.maxTextBytes) return breach('text_bytes', besides.textBytes + added.textBytes, quotas.maxTextBytes);
  return null;
}

const QUOTA_WORDS: Record<QuotaName, string> = { documents: 'documents', chunks: 'indexed chunks', text_bytes: 'bytes of indexed text' };

/** The legible sentence of a breach, for the upload refusal and the failed job alike. */
export function quotaMessage(found: QuotaBreach, when: 'upload' | 'job'): string {
  const words = QUOTA_WORDS[found.quota];
  const state = when === 'upload' ? `the Client holds ${found.observed} ${words}` : `indexing this document would bring the Client to ${found.observed} ${words}`;
  return `Client quota exceeded: ${state}, and its quota is ${found.limit}. Hard-delete documents to make room (soft-deleted documents still count) or ask the operator to raise the quota.`;
}

/** UTF-8 bytes of the chunks' text: what the per-Client text quota counts. */
export function chunkTextBytes(chunks: readonly { text: string }[]): number {
  let bytes = 0;
  for (const chunk of chunks) bytes += Buffer.byteLength(chunk.text, 'utf8');
  return bytes;
}

/** The bound on one GET /document/{id}/text answer; further chunks are read with chunk_offset. */
export interface TextReadLimits {
  /** Chunks returned in one answer (also the largest chunk_limit a caller may ask for). */
  maxChunks: number;
  /** Characters of chunk text in one answer; a single longer chunk is still returned whole. */
  maxChars: number;
}
