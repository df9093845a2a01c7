// The embedded adapter's upload repository: files in the data directory, each written whole and durably
// (every byte written, fsync, its size checked, then an atomic rename) before the job that needs it is
// recorded. A file that does not fit is never kept cut short: the save fails whole and leaves nothing behind.

import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { UPLOAD_SWEEP_GRACE_MS } from '../port.ts';
import type { UploadRepository } from '../port.ts';
import { fileFailure } from '../shared/store-failures.ts';
import { StoreFailure } from '../../domain/store-failure.ts';

/**
 * Writes every byte of `bytes` at the start of `fd`. One write may store fewer bytes than asked (a disk that
 * fills up part way stores what fits and reports that count; the next write then fails with ENOSPC).
 */
function writeWhole(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.byteLength) {
    const count = writeSync(fd, bytes, written, bytes.byteLength - written, written);
    // A write that stores nothing and reports no error would loop forever: it is a full disk by another name.
    if (count <= 0) throw new StoreFailure('full', 'uploads', 'No space is left for the upload files (a write stored nothing)');
    written += count;
  }
}

export class UploadFiles implements UploadRepository {
  /** Where the files are (the state-store probe checks its free space). */
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  async save(name: string, bytes: Uint8Array): Promise<void> {
    const path = join(this.dir, name);
    const temp = `${path}.partial`;
    try {
      const fd = openSync(temp, 'w');
      try {
        writeWhole(fd, bytes);
        fsyncSync(fd);
        // What the disk holds now, not what was handed to it: a file of another size is never renamed into place.
        const stored = fstatSync(fd).size;
        if (stored !== bytes.byteLength) throw new StoreFailure('full', 'uploads', `The upload file holds ${stored} of its ${bytes.byteLength} bytes`);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, path);
    } catch (error) {
      rmSync(temp, { force: true });
      throw fileFailure(error, 'uploads') ?? error;
    }
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
