// The page's one live region: what just happened, or what went wrong (the envelope's code, detail and its
// details, e.g. which field failed validation and why). A new message replaces the last one whole, and switching
// tabs clears it, so nothing said about an earlier answer stays under a later one.

import { SearchServiceError } from '../../clients/typescript/src/index.ts';
import { byId, el } from './dom.ts';
import { leaves, valueText } from './format.ts';

export function describeError(error: unknown): string {
  if (error instanceof SearchServiceError) return `${error.status} ${error.code}: ${error.detail}`;
  return error instanceof Error ? error.message : String(error);
}

/** One entry of a details list: a validation entry ({loc, msg}) as "limit: must be <= 100", others as text. */
function entryLine(entry: unknown): string {
  if (typeof entry !== 'object' || entry === null) return valueText(entry);
  const { loc, msg, path, message } = entry as { loc?: unknown; msg?: unknown; path?: unknown; message?: unknown };
  const where = Array.isArray(loc) ? loc.join('.') : Array.isArray(path) ? path.join('.') : typeof path === 'string' ? path : '';
  const what = typeof msg === 'string' ? msg : typeof message === 'string' ? message : null;
  if (what === null) return leaves(entry).map(([key, value]) => `${key}: ${valueText(value)}`).join('; ');
  return where ? `${where}: ${what}` : what;
}

/** The envelope's `details` as lines a person reads: each entry of a list, each leaf of an object. */
export function detailLines(error: unknown): string[] {
  if (!(error instanceof SearchServiceError) || error.details === undefined || error.details === null) return [];
  const details = error.details;
  if (Array.isArray(details)) return details.map(entryLine);
  if (typeof details !== 'object') return [String(details)];
  // {code, message, ...}: the code repeats the envelope's error_code; the message and the other fields say more.
  const { code: _code, message, ...rest } = details as Record<string, unknown>;
  return [...(typeof message === 'string' && message !== '' ? [message] : []), ...leaves(rest).map(([key, value]) => `${key}: ${valueText(value)}`)];
}

/** An error as a block: its one-line description and the list of its details. */
export function errorBlock(error: unknown): HTMLElement {
  const lines = detailLines(error);
  return el('div', { class: 'error-block' }, el('p', {}, describeError(error)), lines.length > 0 ? el('ul', { class: 'details' }, ...lines.map((line) => el('li', {}, line))) : null);
}

export function say(text: string, kind: 'info' | 'error' = 'info'): void {
  const region = byId('message');
  region.replaceChildren(text === '' ? '' : el('p', {}, text));
  region.className = text === '' ? '' : kind;
}

export function sayError(error: unknown): void {
  const region = byId('message');
  region.replaceChildren(errorBlock(error));
  region.className = 'error';
}

export function clearMessage(): void {
  say('');
}
