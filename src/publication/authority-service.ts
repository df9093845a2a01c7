// The operator's control of the durable publication authority (POST /admin/authority/mode): the mode an
// operator sets. What GET /admin/authority shows of it is a read: reads/authority-view.ts.

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

  async setMode(mode: DurableAuthorityMode): Promise<AuthorityRecord> {
    if (!this.enabled) throw new ServiceError('publication_disabled', 'Publication is disabled');
    return this.storage.authority.setAuthorityMode(mode);
  }
}
