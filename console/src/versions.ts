// A document's versions for its view. GET /documents has no document filter, so the Client's versions are read
// page after page (each page a request of the budget, through the gate) and this document's kept, until the list
// ends or VERSION_PAGES_MAX pages have been read: a Client with more versions than that is not walked whole to open
// one document, and the view then says its list may be cut.

import type { DocumentPage, DocumentSummary } from '../../clients/typescript/src/index.ts';
import { MAX_DOCUMENTS_PAGE } from '../../clients/typescript/src/index.ts';

/** Pages of GET /documents one document view reads at most (5,000 versions at the largest page). */
export const VERSION_PAGES_MAX = 5;

export interface DocumentVersions {
  /** This document's versions, each once, in the order listed. */
  rows: DocumentSummary[];
  /** Whether the Client's whole list was read (false: cut at the bound, this document may have more). */
  complete: boolean;
  /** Versions of the Client read, and how many the service counts. */
  read: number;
  total: number;
}

/** Reads pages through `page(offset, limit)` until the list ends or `maxPages` were read, keeping `documentId`'s rows. */
export async function versionsOf(
  documentId: string,
  page: (offset: number, limit: number) => Promise<DocumentPage>,
  pageSize = MAX_DOCUMENTS_PAGE,
  maxPages = VERSION_PAGES_MAX,
): Promise<DocumentVersions> {
  const rows: DocumentSummary[] = [];
  // Offset paging can show a row twice when a version is published between two pages: each is kept once.
  const seen = new Set<string>();
  let read = 0;
  let total = 0;
  for (let pages = 0, offset = 0; pages < maxPages; pages++) {
    const answer = await page(offset, pageSize);
    total = answer.total;
    read += answer.documents.length;
    for (const row of answer.documents) {
      const key = JSON.stringify([row.document_id, row.version_id]);
      if (row.document_id !== documentId || seen.has(key)) continue;
      seen.add(key);
      rows.push(row);
    }
    // An empty page ends the walk too: a list that shrank under it has nothing further.
    if (!answer.has_more || answer.documents.length === 0) return { rows, complete: true, read, total };
    offset += answer.documents.length;
  }
  return { rows, complete: false, read, total };
}
