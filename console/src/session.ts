// The key a person entered, kept for the browser tab (sessionStorage), and the typed client that sends it. The
// client itself repeats nothing (retries: 0): every refusal comes back to the console's rate gate (budget.ts),
// which waits as long as the service asks and shows the wait.

import { createSearchClient } from '../../clients/typescript/src/index.ts';
import type { SearchClient } from '../../clients/typescript/src/index.ts';
import type { RateGate } from './budget.ts';

const STORAGE_KEY = 'hds-console-key';

export interface Session {
  client: SearchClient;
  key: string;
  /** A read through the gate: repeated after any 429 or 503 with Retry-After. */
  read<T>(call: (client: SearchClient) => Promise<T>): Promise<T>;
  /** A write through the gate: repeated after a 429 only (refused before any work). */
  write<T>(call: (client: SearchClient) => Promise<T>): Promise<T>;
  /** How long a job poll waits besides its own pause, by the budget the service told (RateGate.pollHoldMs). */
  pollHoldMs(): number;
}

export function sessionFor(key: string, gate: RateGate): Session {
  // The budget each answer tells goes to the gate, which closes itself (and shows the wait) when no room is left.
  const client = createSearchClient({ baseUrl: location.origin, apiKey: key, retries: 0, onBudget: (budget) => gate.learn(budget) });
  return {
    key,
    client,
    read: (call) => gate.call('read', () => call(client)),
    write: (call) => gate.call('write', () => call(client)),
    pollHoldMs: () => gate.pollHoldMs(),
  };
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
