// How the CLI shows answers to a person: search rows with their evidence, matched spans emphasised (the
// highlights' UTF-16 offsets); tables of documents and of failed uploads. Styles are dropped when the output is
// not a terminal (util.styleText checks the stream and NO_COLOR).

import { styleText } from 'node:util';
import type { DocumentSummary, SearchResponse } from '../../clients/typescript/src/index.ts';

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

/** One line of evidence at most this long (a chunk can be a page of text). */
const EVIDENCE_WIDTH = 240;

function clipAround(text: string, spans: readonly { start: number; end: number }[] | undefined): { text: string; spans: { start: number; end: number }[] } {
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
  if (flat.length <= EVIDENCE_WIDTH) return { text: flat, spans: moved };
  const from = Math.max(0, Math.min((moved[0]?.start ?? 0) - 60, flat.length - EVIDENCE_WIDTH));
  const to = from + EVIDENCE_WIDTH;
  const inside = moved.filter((span) => span.start >= from && span.end <= to).map((span) => ({ start: span.start - from + (from > 0 ? 1 : 0), end: span.end - from + (from > 0 ? 1 : 0) }));
  return { text: `${from > 0 ? '…' : ''}${flat.slice(from, to)}${to < flat.length ? '…' : ''}`, spans: inside };
}

export function renderSearch(answer: SearchResponse, paint: Paint): string {
  const lines: string[] = [];
  const meta = answer.meta;
  if (answer.results.length === 0) return `${paint('dim', `nothing found (${meta.query_time_ms} ms)`)}\n`;
  lines.push(paint('dim', `${meta.total}${meta.total_is_lower_bound ? '+' : ''} found, showing ${meta.offset + 1}-${meta.offset + answer.results.length} (${meta.query_time_ms} ms, alpha ${meta.retrieval.alpha}${meta.retrieval.reranked ? ', reranked' : ''})`));
  for (const hit of answer.results) {
    const { document_id, version_id } = hit.document_version;
    const metadata = hit.canonical_metadata as { source?: { filename?: string }; extracted?: { title?: string } };
    const name = metadata.extracted?.title ?? metadata.source?.filename ?? '';
    const version = version_id !== null && version_id !== document_id ? paint('dim', ` @ ${version_id}`) : '';
    lines.push('');
    lines.push(`${paint('bold', `${hit.rank}.`)} ${paint(['bold', 'cyan'], document_id)}${version}${name ? `  ${name}` : ''}`);
    for (const item of hit.content_evidence.items) {
      if (!item.text) continue;
      const clipped = clipAround(item.text, item.highlights);
      const where = item.page !== null && item.page !== undefined ? paint('dim', `p.${item.page} `) : '';
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

/** Rows as columns padded to their widest cell, under a header. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], paint: Paint): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ');
  return `${[paint('bold', line(header)), ...rows.map(line)].join('\n')}\n`;
}

export function renderDocuments(documents: readonly DocumentSummary[], total: number, paint: Paint): string {
  const rows = documents.map((document) => {
    const metadata = document.metadata as { source?: { filename?: string }; custom?: Record<string, unknown> };
    return [document.document_id, document.version_id ?? '', String(document.chunk_count), document.created_at, metadata.source?.filename ?? '', JSON.stringify(metadata.custom ?? {})];
  });
  return table(['DOCUMENT', 'VERSION', 'CHUNKS', 'CREATED', 'FILENAME', 'CUSTOM'], rows, paint) + paint('dim', `${documents.length} of ${total}\n`);
}
