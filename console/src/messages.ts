// The page's one live region: what just happened, or what went wrong (the envelope's code and detail).

import { SearchServiceError } from '../../clients/typescript/src/index.ts';
import { byId } from './dom.ts';

export function say(text: string, kind: 'info' | 'error' = 'info'): void {
  const region = byId('message');
  region.textContent = text;
  region.className = kind;
}

export function describeError(error: unknown): string {
  if (error instanceof SearchServiceError) return `${error.status} ${error.code}: ${error.detail}`;
  return error instanceof Error ? error.message : String(error);
}

export function sayError(error: unknown): void {
  say(describeError(error), 'error');
}
