// The key a person entered, kept for the browser tab (sessionStorage), and the typed client that sends it.

import { createSearchClient } from '../../clients/typescript/src/index.ts';
import type { SearchClient } from '../../clients/typescript/src/index.ts';

const STORAGE_KEY = 'hds-console-key';

export interface Session {
  client: SearchClient;
  key: string;
}

export function sessionFor(key: string): Session {
  return { key, client: createSearchClient({ baseUrl: location.origin, apiKey: key, retries: 3, maxRetryAfterSeconds: 10 }) };
}

export function rememberedKey(): string | null {
  return sessionStorage.getItem(STORAGE_KEY);
}

export function remember(key: string | null): void {
  if (key === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, key);
}

/** The key as shown on the page: its first characters only. */
export function maskedKey(key: string): string {
  return key.length <= 4 ? '••••' : `${key.slice(0, 4)}…`;
}
