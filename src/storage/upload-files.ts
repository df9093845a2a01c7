// The embedded adapter's upload repository: files in the data directory, each written durably (fsync, then
// an atomic rename) before the job that needs it is recorded.

import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { UPLOAD_SWEEP_GRACE_MS } from './port.ts';
import type { UploadRepository } from './port.ts';

export class UploadFiles implements UploadRepository {
  private readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  async save(name: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.dir, name);
    const temp = `${path}.partial`;
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }

  async read(name: string): Promise<Buffer | null> {
    const path = join(this.dir, name);
    return existsSync(path) ? readFileSync(path) : null;
  }

  async delete(name: string): Promise<void> {
    rmSync(join(this.dir, name), { force: true });
  }

  async sweep(liveNames: Set<string>, graceMs = UPLOAD_SWEEP_GRACE_MS): Promise<number> {
    const savedBefore = Date.now() - graceMs;
    let removed = 0;
    for (const file of readdirSync(this.dir)) {
      if (liveNames.has(file)) continue;
      const path = join(this.dir, file);
      const saved = statSync(path, { throwIfNoEntry: false });
      if (!saved || saved.mtimeMs > savedBefore) continue;
      rmSync(path, { force: true });
      removed++;
    }
    return removed;
  }
}
