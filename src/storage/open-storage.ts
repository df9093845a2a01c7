// Opens the durable store a deployment is configured for (STORE): the embedded SQLite adapter under DATA_DIR,
// or the PostgreSQL adapter at DATABASE_URL when api and worker processes run on several machines. The
// composition roots (api, worker, the health probe thread) call this; services see only the port. The PostgreSQL
// adapter (and its driver) is loaded only when STORE names it: a process on SQLite starts without it.

import type { StoreSettings } from '../config.ts';
import type { StoragePort } from './port.ts';
import { Storage } from './sqlite/sqlite-storage.ts';

export interface OpenOptions {
  /** Overrides the setting's connection bound (SQLite: Client files kept open; PostgreSQL: pool size). */
  connectionsMax?: number;
}

export async function openStorage(settings: StoreSettings, options: OpenOptions = {}): Promise<StoragePort> {
  if (settings.store === 'postgres') {
    if (!settings.databaseUrl) throw new Error('STORE=postgres needs DATABASE_URL');
    const { PostgresStorage } = await import('./postgres/postgres-storage.ts');
    return PostgresStorage.open(settings.databaseUrl, { poolMax: options.connectionsMax ?? settings.databasePoolMax, publicationEnabled: settings.publicationEnabled });
  }
  return new Storage(settings.dataDir, { connectionsMax: options.connectionsMax ?? settings.clientConnectionsMax, publicationEnabled: settings.publicationEnabled });
}
