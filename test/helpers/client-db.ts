// A Client's database file in a DATA_DIR, opened beside the running service as an operator's tool or a
// damaged disk would touch it: tests corrupt, lock or inspect real rows through it.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export function clientDbFile(dataDir: string, clientId: string): string {
  const dir = join(dataDir, 'clients');
  const file = readdirSync(dir).find((name) => name.startsWith(`${clientId}-`) && name.endsWith('.db'));
  if (!file) throw new Error(`no database file for ${clientId} under ${dir}`);
  return join(dir, file);
}

/** The Client's database, waiting out the service's locks like any other connection. */
export function openClientDb(dataDir: string, clientId: string): DatabaseSync {
  const db = new DatabaseSync(clientDbFile(dataDir, clientId));
  db.exec('PRAGMA busy_timeout = 5000');
  return db;
}
