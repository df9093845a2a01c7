// The operator's view and control of the durable publication authority (GET and POST /admin/authority...):
// the record as stored, and the mode an operator sets.

import type { StoragePort } from '../storage/port.ts';
import type { AuthorityRecord } from '../storage/port.ts';
import type { DurableAuthorityMode } from '../domain/publication-log.ts';
import { ServiceError } from '../domain/service-error.ts';

export class AuthorityService {
  private readonly storage: StoragePort;
  private readonly enabled: boolean;

  constructor(storage: StoragePort, options: { enabled: boolean }) {
    this.storage = storage;
    this.enabled = options.enabled;
  }

  /** The durable record, or null without publication. */
  async record(): Promise<AuthorityRecord | null> {
    return this.enabled ? this.storage.authority.authority() : null;
  }

  async setMode(mode: DurableAuthorityMode): Promise<AuthorityRecord> {
    if (!this.enabled) throw new ServiceError('publication_disabled', 'Publication is disabled');
    return this.storage.authority.setAuthorityMode(mode);
  }
}
