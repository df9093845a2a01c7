// SPEC.md rule 12: an idempotent vector-store read is retried once when its connection drops; a second
// consecutive drop fails the search with 503 internal_error. Other errors pass through; writes never come here.

import { ServiceError } from '../domain/service-error.ts';

/** Thrown by a store adapter when the connection carrying a read was dropped mid-request. */
export class ConnectionDropped extends Error {
  constructor(message = 'connection dropped') {
    super(message);
    this.name = 'ConnectionDropped';
  }
}

/** Attempts of one idempotent read: the first and one retry. */
export const IDEMPOTENT_READ_ATTEMPTS = 2;

export async function readWithRetry<T>(read: () => Promise<T> | T): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ConnectionDropped)) throw error;
      if (attempt >= IDEMPOTENT_READ_ATTEMPTS) {
        throw new ServiceError('search_connection_dropped', 'The vector store connection dropped twice');
      }
    }
  }
}
