// The SQLite secret repository, in the control database: secrets shared by every process of a deployment.

import { randomBytes } from 'node:crypto';
import type { Database } from './database.ts';
import type { SecretRepository } from '../port.ts';

export class SqliteSecretRepository implements SecretRepository {
  private readonly db: Database;

  constructor(db: Database) {
    this.db = db;
  }

  /**
   * A secret shared by every process of the deployment: the first caller creates it (random, 32 bytes),
   * everyone after reads the same value. Never logged or returned to callers.
   */
  async deploymentSecret(name: string): Promise<string> {
    this.db.prepare('INSERT OR IGNORE INTO deployment_secrets (name, value) VALUES (?, ?)').run(name, randomBytes(32).toString('hex'));
    return (this.db.prepare('SELECT value FROM deployment_secrets WHERE name = ?').get(name) as { value: string }).value;
  }
}
