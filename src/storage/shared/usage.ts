// A Client's quota usage as both adapters keep it: running totals (kept by triggers in each schema) less the
// version an upload would replace, never a sum over the generations or their chunks. The arithmetic only: each
// adapter reads the three rows in one consistent read of its own.

import type { UsageBesides } from '../../domain/limits.ts';

/** The Client's running totals (usage_totals). */
export interface UsageTotalsRow {
  documents: number;
  chunks: number;
  text_bytes: number;
}

/** The size of the active generation an upload of the version would replace. */
export interface ReplacedGenerationRow {
  chunk_count: number;
  text_bytes: number;
}

/**
 * What the Client holds besides the version: `replaced` is that version's active generation (none when the
 * upload is its first), `documentVersions` the document's active versions (active_documents), the version
 * included. The document leaves the count only when the replaced version was its last.
 */
export function usageBesides(totals: UsageTotalsRow, replaced: ReplacedGenerationRow | undefined, documentVersions: number): UsageBesides {
  const otherVersions = documentVersions - (replaced ? 1 : 0);
  return {
    documents: totals.documents - (replaced && otherVersions === 0 ? 1 : 0),
    chunks: totals.chunks - (replaced?.chunk_count ?? 0),
    textBytes: totals.text_bytes - (replaced?.text_bytes ?? 0),
    documentPresent: otherVersions > 0,
  };
}
