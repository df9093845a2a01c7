// SPEC.md search rule 12, where a search really reads over the network (the query embedding by a remote
// embedder, the http reranker): a read whose connection dropped is retried once; a second consecutive drop
// fails the search with 503 internal_error and Retry-After 1. Other transport errors are not retried, and
// no write ever comes here. In-memory scans cannot drop and are not wrapped.

import { ServiceError } from '../domain/service-error.ts';
import { ModelProviderError } from '../models/model-error.ts';
import { SEARCH_READ_RETRIES } from '../spec-limits.ts';


function dropped(error: unknown): boolean {
  return error instanceof ModelProviderError && error.code === 'provider_connection_dropped';
}

/** Attempts of one idempotent read: the first and its retries. */
export const IDEMPOTENT_READ_ATTEMPTS = 1 + SEARCH_READ_RETRIES;

export async function readOverNetwork<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!dropped(error)) throw error;
      if (attempt >= IDEMPOTENT_READ_ATTEMPTS) {
        throw new ServiceError('search_connection_dropped', 'The connection of a search read dropped twice in a row');
      }
    }
  }
}
