// The segment thread of an api process: builds segment indexes from generations' lane data and merges them,
// decodes segment files read back from the segment cache, and verifies publication evidence, off the event
// loop. Plain data in, plain data out, no I/O.

import { answerRequests } from '../runtime/answer-requests.js';
import { addPart, indexParts, mergeIndexes, SegmentAssembler } from './segment-assembler.ts';
import type { MergeInput, SegmentPart } from './segment-assembler.ts';
import type { SegmentIndex } from '../codec/segment-index.ts';
import { verifyEvidence } from '../codec/evidence.ts';
import { decodeSegmentFile } from '../codec/segment-file.ts';
import { tableBuffers } from '../text/string-table.ts';
import type { Evidence, EvidenceInput } from '../codec/evidence.ts';

export type SegmentThreadRequest =
  | { id: number; kind: 'build'; parts: SegmentPart[]; dimensions: number }
  | { id: number; kind: 'merge'; parts: MergeInput[]; live: Uint8Array; dimensions: number }
  | { id: number; kind: 'verify'; generations: EvidenceInput[] }
  | { id: number; kind: 'begin'; session: number; dimensions: number; expectedParts: number }
  | { id: number; kind: 'add'; session: number; parts: SegmentPart[] }
  | { id: number; kind: 'finish'; session: number }
  | { id: number; kind: 'drop'; session: number }
  | { id: number; kind: 'restore'; file: Uint8Array; firstOrdinal: number };

export type SegmentThreadReply =
  | { id: number; index: SegmentIndex }
  | { id: number; evidence: Evidence[] }
  | { id: number; added: number }
  | { id: number; error: string };

/** Builds in progress: one assembler per session, fed batch by batch. */
const sessions = new Map<number, SegmentAssembler>();

/** The buffers of an index's arrays and string tables: moved to the api thread, not copied. */
function transferables(index: SegmentIndex): ArrayBuffer[] {
  const { bm25, vocabulary } = index;
  const arrays = [bm25.docIds, bm25.textLengths, bm25.titleLengths, bm25.postingStarts, bm25.postingDocs, bm25.postingTextTf, bm25.postingTitleTf, index.codes, index.wordIds, index.wordCounts, index.chunkIndexes, index.pages, index.textHashes, vocabulary.counts, vocabulary.lengths, vocabulary.byLength, vocabulary.lengthStarts];
  const [bigramIds] = vocabulary.bigrams?.values() ?? [];
  const tables = [bm25.terms, vocabulary.words, vocabulary.terms, vocabulary.malayRoots].flatMap(tableBuffers);
  return [...new Set([...arrays.map((array) => array.buffer as ArrayBuffer), ...tables, ...(bigramIds ? [bigramIds.buffer as ArrayBuffer] : [])])];
}

function assemblerOf(session: number): SegmentAssembler {
  const assembler = sessions.get(session);
  if (!assembler) throw new Error(`no build session ${session}`);
  return assembler;
}

answerRequests<SegmentThreadRequest, SegmentThreadReply>(
  (request) => {
    if (request.kind === 'begin') {
      sessions.set(request.session, new SegmentAssembler(request.dimensions, request.expectedParts));
      return { reply: { id: request.id, added: 0 } };
    }
    if (request.kind === 'add') {
      const assembler = assemblerOf(request.session);
      for (const part of request.parts) addPart(assembler, part);
      return { reply: { id: request.id, added: request.parts.length } };
    }
    if (request.kind === 'drop') {
      sessions.delete(request.session);
      return { reply: { id: request.id, added: 0 } };
    }
    if (request.kind === 'finish') {
      const index = assemblerOf(request.session).finish();
      sessions.delete(request.session);
      return { reply: { id: request.id, index }, transfer: transferables(index) };
    }
    if (request.kind === 'verify') return { reply: { id: request.id, evidence: request.generations.map(verifyEvidence) } };
    if (request.kind === 'restore') {
      const { index } = decodeSegmentFile(request.file, request.firstOrdinal);
      // The index was copied out of the file: its buffer is let go now rather than whenever this thread next
      // collects garbage (an idle thread may not for seconds, holding the whole file).
      const { buffer } = request.file;
      if (buffer instanceof ArrayBuffer && request.file.byteLength === buffer.byteLength) buffer.transfer(0);
      return { reply: { id: request.id, index }, transfer: transferables(index) };
    }
    const index = request.kind === 'build' ? indexParts(request.parts, request.dimensions) : mergeIndexes(request.parts, request.live, request.dimensions);
    return { reply: { id: request.id, index }, transfer: transferables(index) };
  },
  // A failed request ends its build session: what the session had assembled is let go.
  (request) => {
    if ('session' in request) sessions.delete(request.session);
  },
);
