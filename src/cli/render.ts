// How the CLI shows answers to a person: search rows with their evidence, matched spans emphasised (the
// highlights' UTF-16 offsets); tables of documents and of failed uploads, cut to the terminal's width; a job, a
// deletion or a restore in words; a refusal with its envelope's details. Styles are dropped when the output is
// not a terminal (util.styleText checks the stream and NO_COLOR).

import { styleText } from 'node:util';
import type { DeleteResult, DocumentSummary, JobStatus, RestoreResult, SearchResponse } from '../../clients/typescript/src/index.ts';
import { SearchServiceError } from '../../clients/typescript/src/index.ts';

type Style = Parameters<typeof styleText>[0];
export type Paint = (style: Style, text: string) => string;

/** Paints for `stream`: styled when it is a terminal that takes colour, plain otherwise. */
export function paintFor(stream: NodeJS.WriteStream): Paint {
  return (style, text) => styleText(style, text, { stream });
}

/** Evidence text with each [start, end) span emphasised; spans are sorted and do not overlap (DESIGN.md). */
export function highlighted(text: string, spans: readonly { start: number; end: number }[] | undefined, paint: Paint): string {
  if (!spans?.length) return text;
  let out = '';
  let at = 0;
  for (const { start, end } of spans) {
    if (start < at || end <= start || end > text.length) continue;
    out += text.slice(at, start) + paint(['bold', 'yellow'], text.slice(start, end));
    at = end;
  }
  return out + text.slice(at);
}

/** One passage of evidence at most this long (a chunk can be a page of text), and at most two lines of the terminal. */
const EVIDENCE_WIDTH = 240;
const EVIDENCE_LINES = 2;
/** Evidence is indented under its hit by this much. */
const EVIDENCE_INDENT = 3;

function clipAround(text: string, spans: readonly { start: number; end: number }[] | undefined, width: number): { text: string; spans: { start: number; end: number }[] } {
  const flat = text.replace(/\s+/g, ' ');
  // Whitespace runs collapse to one space: offsets move, so spans are mapped through the same collapse.
  const map: number[] = [];
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    map.push(j);
    if (!(/\s/.test(text[i]) && i > 0 && /\s/.test(text[i - 1]))) j++;
  }
  map.push(j);
  const moved = (spans ?? []).map(({ start, end }) => ({ start: map[start], end: map[end] }));
  if (flat.length <= width) return { text: flat, spans: moved };
  // The passage starts a little before the first match, so that the match reads in its sentence.
  const from = Math.max(0, Math.min((moved[0]?.start ?? 0) - Math.floor(width / 4), flat.length - width));
  const to = from + width;
  const inside = moved.filter((span) => span.start >= from && span.end <= to).map((span) => ({ start: span.start - from + (from > 0 ? 1 : 0), end: span.end - from + (from > 0 ? 1 : 0) }));
  return { text: `${from > 0 ? '…' : ''}${flat.slice(from, to)}${to < flat.length ? '…' : ''}`, spans: inside };
}

interface HitLocation {
  page_number?: number | null;
  page_label?: string | null;
}

/**
 * Where an evidence passage is, before its text: "p.12 " for a page; for a chunk of a sheet or CSV file (one with
 * `rows`), its rows, after the sheet's name where the hit's location names the page the passage is on
 * ("Income Slab rows 1-18 "); nothing for a format without pages.
 */
export function placeOf(item: { page?: number | null; rows?: { first: number; last: number } }, location: HitLocation | undefined): string {
  const page = item.page ?? null;
  if (item.rows) {
    const rows = item.rows.first === item.rows.last ? `row ${item.rows.first}` : `rows ${item.rows.first}-${item.rows.last}`;
    const label = page !== null && location?.page_number === page ? (location.page_label ?? null) : null;
    const sheet = label ?? (page !== null ? `sheet ${page}` : null);
    return `${sheet ? `${sheet} ` : ''}${rows} `;
  }
  return page !== null ? `p.${page} ` : '';
}

export function renderSearch(answer: SearchResponse, paint: Paint, width = Number.POSITIVE_INFINITY): string {
  // Two ellipses and a page label ("p.12 ") fit beside the passage on its lines (a sheet's name and rows may wrap).
  const passage = Math.max(40, Math.min(EVIDENCE_WIDTH, EVIDENCE_LINES * (width - EVIDENCE_INDENT) - 8));
  const lines: string[] = [];
  const meta = answer.meta;
  if (answer.results.length === 0) return `${paint('dim', `nothing found (${meta.query_time_ms} ms)`)}\n`;
  lines.push(paint('dim', `${meta.total}${meta.total_is_lower_bound ? '+' : ''} found, showing ${meta.offset + 1}-${meta.offset + answer.results.length} (${meta.query_time_ms} ms, alpha ${meta.retrieval.alpha}${meta.retrieval.reranked ? ', reranked' : ''})`));
  for (const hit of answer.results) {
    const { document_id, version_id } = hit.document_version;
    const metadata = hit.canonical_metadata as { source?: { filename?: string }; extracted?: { title?: string }; location?: HitLocation };
    const name = metadata.extracted?.title ?? metadata.source?.filename ?? '';
    const version = version_id !== null && version_id !== document_id ? paint('dim', ` @ ${version_id}`) : '';
    lines.push('');
    lines.push(`${paint('bold', `${hit.rank}.`)} ${paint(['bold', 'cyan'], document_id)}${version}${name ? `  ${name}` : ''}`);
    for (const item of hit.content_evidence.items) {
      if (!item.text) continue;
      const clipped = clipAround(item.text, item.highlights, passage);
      const where = paint('dim', placeOf(item, metadata.location));
      lines.push(`   ${where}${highlighted(clipped.text, clipped.spans, paint)}`);
    }
    for (const item of hit.metadata_evidence.items) {
      const value = typeof item.value === 'string' ? item.value : JSON.stringify(item.value);
      const shown = typeof item.value === 'string' ? highlighted(value, item.highlights, paint) : value;
      lines.push(`   ${paint('dim', `${(item.path ?? []).join('.')}${item.match_kind ? ` (${item.match_kind})` : ''}:`)} ${shown}`);
    }
  }
  if (meta.has_more) lines.push('', paint('dim', `more: --offset ${meta.offset + answer.results.length}`));
  return `${lines.join('\n')}\n`;
}

/** A column is never cut narrower than this (or its title). */
const MIN_COLUMN_WIDTH = 6;
const COLUMN_GAP = 2;

/** The columns a table may fill: the terminal's, else COLUMNS, else no bound (a pipe keeps whole cells). */
export function outputWidth(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): number {
  if (stream.isTTY && stream.columns > 0) return stream.columns;
  const columns = Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? columns : Number.POSITIVE_INFINITY;
}

/** A cell cut to `width` characters, its end marked. */
const cut = (cell: string, width: number) => (cell.length <= width ? cell : `${cell.slice(0, Math.max(0, width - 1))}…`);

/**
 * Rows as columns padded to their widest cell, under a header. When that is wider than `width`, the widest of the
 * `flexible` columns (names, free text) are cut first, one character at a time, down to MIN_COLUMN_WIDTH; the
 * others (ids, counts, times) only when that is not enough.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[], paint: Paint, width = Number.POSITIVE_INFINITY, flexible: readonly string[] = header): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const floor = header.map((title) => Math.max(title.length, MIN_COLUMN_WIDTH));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + COLUMN_GAP * (widths.length - 1);
  const widestOf = (columns: number[]) => columns.filter((column) => widths[column] > floor[column]).reduce((widest, column) => (widest < 0 || widths[column] > widths[widest] ? column : widest), -1);
  const all = header.map((_, column) => column);
  const first = all.filter((column) => flexible.includes(header[column]));
  while (total() > width) {
    const column = widestOf(first) >= 0 ? widestOf(first) : widestOf(all);
    if (column < 0) break;
    widths[column]--;
  }
  const line = (cells: readonly string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cut(cell, widths[column]) : cut(cell, widths[column]).padEnd(widths[column]))).join(' '.repeat(COLUMN_GAP));
  return `${[paint('bold', line(header)), ...rows.map(line)].join('\n')}\n`;
}

/** An ISO timestamp to the minute, as a table shows it. */
const minute = (iso: string | undefined) => (iso ? iso.slice(0, 16).replace('T', ' ') : '');

export function renderDocuments(documents: readonly DocumentSummary[], total: number, paint: Paint, width: number, withDeleted = false): string {
  const header = ['DOCUMENT', 'VERSION', 'CHUNKS', 'CREATED', ...(withDeleted ? ['DELETED'] : []), 'FILENAME', 'CUSTOM'];
  const rows = documents.map((document) => {
    const metadata = document.metadata as { source?: { filename?: string }; custom?: Record<string, unknown> };
    const deleted = withDeleted ? [document.deleted ? minute(document.deleted_at ?? undefined) || 'yes' : 'no'] : [];
    return [document.document_id, document.version_id ?? '', String(document.chunk_count), minute(document.created_at), ...deleted, metadata.source?.filename ?? '', JSON.stringify(metadata.custom ?? {})];
  });
  return table(header, rows, paint, width, ['DOCUMENT', 'FILENAME', 'CUSTOM']) + paint('dim', `${documents.length} of ${total}\n`);
}

/** A span of milliseconds as a person reads it: 45 s, 2 min 05 s. */
export function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** A field's value on one line. */
const shown = (value: unknown) => (typeof value === 'string' ? value : Array.isArray(value) && value.every((item) => typeof item !== 'object') ? value.join(', ') : JSON.stringify(value));

/** A job's status as `field  value` lines, its state first; fields the service left null are left out. */
export function renderJob(job: JobStatus, paint: Paint): string {
  const fields = Object.entries(job).filter(([key, value]) => value !== null && value !== undefined && !['job_id', 'status', 'operation', 'document_id'].includes(key));
  const state = job.status === 'completed' ? paint('green', job.status) : ['failed', 'partial_failed'].includes(job.status) ? paint('red', job.status) : job.status;
  const head = `${paint('bold', job.job_id)}  ${job.operation}  ${state}${job.document_id ? `  ${job.document_id}` : ''}`;
  const width = Math.max(0, ...fields.map(([key]) => key.length));
  return `${[head, ...fields.map(([key, value]) => `  ${paint('dim', key.padEnd(width))}  ${shown(value)}`)].join('\n')}\n`;
}

/** `n things`, singular for one. */
export const count = (n: number, thing: string) => `${n} ${thing}${n === 1 ? '' : 's'}`;

export function renderDeletion(result: DeleteResult): string {
  if (result.status === 'hard_deleted') return `${result.document_id}: removed for good (${count(result.deleted_chunks, 'chunk')})\n`;
  return `${result.document_id}: soft-deleted, ${count(result.deleted_chunks, 'chunk')} hidden (hds restore ${result.document_id} brings it back)\n`;
}

export function renderRestore(result: RestoreResult): string {
  return `${result.document_id}: restored, ${count(result.restored_chunks, 'chunk')} searchable again\n`;
}

/** The envelope's details in words: each validation failure, or the message a details object carries. */
export function detailsText(details: unknown): string {
  if (details === undefined || details === null) return '';
  if (Array.isArray(details)) {
    return details
      .map((item) => {
        if (typeof item !== 'object' || item === null) return shown(item);
        const { loc, msg } = item as { loc?: unknown; msg?: unknown };
        const where = Array.isArray(loc) ? loc.filter((part) => !['body', 'query', 'path'].includes(String(part))).join('.') : '';
        return typeof msg === 'string' ? `${where ? `${where}: ` : ''}${msg}` : shown(item);
      })
      .join('; ');
  }
  if (typeof details === 'object') {
    const { message, code: _code, ...rest } = details as Record<string, unknown>;
    if (typeof message === 'string') return message;
    return Object.keys(rest).length > 0 ? shown(rest) : '';
  }
  return shown(details);
}

/** An error as one line: a refusal with its status, code, detail and details; anything else its message. */
export function errorText(error: unknown): string {
  if (error instanceof SearchServiceError) {
    const details = detailsText(error.details);
    return `${error.status} ${error.code || 'error'}: ${error.detail}${details && details !== error.detail ? ` (${details})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}
