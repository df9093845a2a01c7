// The backup archive's container: a POSIX tar (ustar) of regular files, written and read here in plain Node so
// that `tar -tvf` lists a backup and `tar -xf` unpacks it by hand, and nothing outside the checkout is needed
// to take or restore one. Only what a backup holds is supported: regular files under short relative names.

import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';

export const TAR_BLOCK_BYTES = 512;
/** ustar's name field; the backup's paths (control.db, clients/<57 characters>, uploads/<uuid>.upload) fit in it. */
export const TAR_NAME_BYTES = 100;
/** An 11-digit octal size field: 8 GiB less one byte per file. */
export const TAR_MAX_FILE_BYTES = 8 ** 11 - 1;
/** Bytes copied per read and write. */
const COPY_BYTES = 1024 * 1024;

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0');
}

function header(name: string, size: number, mtimeSeconds: number): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.byteLength > TAR_NAME_BYTES) throw new ArchiveError(`${name} is longer than a tar name (${TAR_NAME_BYTES} bytes)`);
  if (size > TAR_MAX_FILE_BYTES) throw new ArchiveError(`${name} is larger than a tar entry holds (${TAR_MAX_FILE_BYTES} bytes)`);
  const block = Buffer.alloc(TAR_BLOCK_BYTES);
  nameBytes.copy(block, 0);
  block.write(octal(0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(Math.floor(mtimeSeconds), 12), 136, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  // The checksum is summed with its own field as spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${octal(sum, 7)}\u0000 `, 148, 'ascii');
  return block;
}

function padding(size: number): Buffer {
  const rest = size % TAR_BLOCK_BYTES;
  return Buffer.alloc(rest === 0 ? 0 : TAR_BLOCK_BYTES - rest);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.byteLength) written += writeSync(fd, bytes, written, bytes.byteLength - written);
}

/** Writes a tar archive to an open file, entry by entry; `finish` writes the two zero blocks that end it. */
export class TarWriter {
  private readonly fd: number;

  constructor(fd: number) {
    this.fd = fd;
  }

  addBytes(name: string, bytes: Uint8Array): void {
    writeAll(this.fd, header(name, bytes.byteLength, Date.now() / 1000));
    writeAll(this.fd, bytes);
    writeAll(this.fd, padding(bytes.byteLength));
  }

  /** Copies the file at `path` whole; its size is read once, so a file that changes meanwhile is an error. */
  addFile(name: string, path: string): void {
    const source = openSync(path, 'r');
    try {
      const { size, mtimeMs } = fstatSync(source);
      writeAll(this.fd, header(name, size, mtimeMs / 1000));
      const buffer = Buffer.alloc(COPY_BYTES);
      let copied = 0;
      while (copied < size) {
        const count = readSync(source, buffer, 0, Math.min(COPY_BYTES, size - copied), copied);
        if (count <= 0) throw new ArchiveError(`${path} ended at ${copied} of its ${size} bytes while it was archived`);
        writeAll(this.fd, buffer.subarray(0, count));
        copied += count;
      }
      writeAll(this.fd, padding(size));
    } finally {
      closeSync(source);
    }
  }

  finish(): void {
    writeAll(this.fd, Buffer.alloc(2 * TAR_BLOCK_BYTES));
  }
}

export interface TarEntry {
  name: string;
  size: number;
  /** Reads the entry's bytes in order, COPY_BYTES at a time. */
  chunks(): Generator<Buffer>;
}

function readExactly(fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const count = readSync(fd, buffer, read, length - read, position + read);
    if (count <= 0) break;
    read += count;
  }
  return buffer.subarray(0, read);
}

function checksumHolds(block: Buffer): boolean {
  const stored = Number.parseInt(block.subarray(148, 156).toString('ascii').replace(/[\u0000 ]+$/g, '').trim(), 8);
  let sum = 0;
  for (let at = 0; at < TAR_BLOCK_BYTES; at++) sum += at >= 148 && at < 156 ? 0x20 : block[at];
  return stored === sum;
}

/**
 * The regular-file entries of the tar archive at `path`, in order. Anything else (a link, a device, a damaged
 * header, an archive cut short) is an ArchiveError: a backup never holds one.
 */
export function* readTar(path: string): Generator<TarEntry> {
  const fd = openSync(path, 'r');
  try {
    const total = fstatSync(fd).size;
    let position = 0;
    for (;;) {
      const block = readExactly(fd, TAR_BLOCK_BYTES, position);
      if (block.byteLength < TAR_BLOCK_BYTES) throw new ArchiveError(`${path} ends inside an entry header at byte ${position}: it is cut short`);
      if (block.every((byte) => byte === 0)) return;
      if (!checksumHolds(block)) throw new ArchiveError(`${path}: the entry header at byte ${position} is damaged (its checksum does not hold)`);
      const name = block.subarray(0, TAR_NAME_BYTES).toString('utf8').replace(/\u0000.*$/s, '');
      const type = String.fromCharCode(block[156]);
      if (type !== '0' && type !== '\u0000') throw new ArchiveError(`${path}: ${name} is not a regular file (tar type ${JSON.stringify(type)})`);
      const size = Number.parseInt(block.subarray(124, 136).toString('ascii').replace(/[\u0000 ]+$/g, '').trim(), 8);
      if (!Number.isSafeInteger(size) || size < 0) throw new ArchiveError(`${path}: ${name} has no readable size`);
      const start = position + TAR_BLOCK_BYTES;
      if (start + size > total) throw new ArchiveError(`${path}: ${name} needs ${size} bytes but the archive ends first: it is cut short`);
      yield {
        name,
        size,
        *chunks() {
          for (let at = 0; at < size; at += COPY_BYTES) yield readExactly(fd, Math.min(COPY_BYTES, size - at), start + at);
        },
      };
      position = start + size + padding(size).byteLength;
    }
  } finally {
    closeSync(fd);
  }
}
