// The PostgreSQL upload repository: uploaded files as rows, so that a worker on any host reads the file an
// api process on another host accepted (see the uploads table in migrations.ts for why not a shared directory).

import type pg from 'pg';
import { UPLOAD_SWEEP_GRACE_MS } from '../port.ts';
import type { UploadRepository } from '../port.ts';

export class PgUploadRepository implements UploadRepository {
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Committed before it returns, so the job that names the upload is recorded after the file is durable. */
  async save(name: string, bytes: Uint8Array): Promise<void> {
    await this.pool.query('INSERT INTO uploads (name, bytes) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET bytes = excluded.bytes, saved_at = db_now()', [
      name,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ]);
  }

  async read(name: string): Promise<Buffer | null> {
    const { rows } = await this.pool.query<{ bytes: Buffer }>('SELECT bytes FROM uploads WHERE name = $1', [name]);
    return rows[0]?.bytes ?? null;
  }

  async delete(name: string): Promise<void> {
    await this.pool.query('DELETE FROM uploads WHERE name = $1', [name]);
  }

  async sweep(liveNames: Set<string>, graceMs = UPLOAD_SWEEP_GRACE_MS): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM uploads WHERE NOT (name = ANY($1::text[])) AND saved_at <= db_now() - make_interval(secs => $2::double precision / 1000)`,
      [[...liveNames], graceMs],
    );
    return rowCount ?? 0;
  }
}
