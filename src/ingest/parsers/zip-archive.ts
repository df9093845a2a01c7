// Opens a ZIP from memory behind the archive guard and streams single entries out of it, verifying sizes and CRC-32.
// It never inflates an entry that failed the guard's screening and never reads an entry it was not asked for.

import { crc32 } from 'node:zlib';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import { IngestError } from '../parsed-document.ts';
import { archiveRejected, encrypted, unreadable } from '../errors.ts';
import {
  checkDeclaredEntry,
  checkEntryCount,
  checkEntryTable,
  createInflationMeter,
  meterInflation,
} from '../guards/archive-guard.ts';
import type { InflationMeter } from '../guards/archive-guard.ts';

export interface ZipArchive {
  zip: ZipFile;
  entries: Entry[];
  /** Entries by lower-cased name (OPC part names are case-insensitive); the first of duplicates wins. */
  byName: Map<string, Entry>;
  meter: InflationMeter;
}

function asIngestError(error: unknown): IngestError {
  return error instanceof IngestError ? error : unreadable(error);
}

/** yauzl's size validation firing means an entry inflates past its declared size: a guard matter, not mere damage. */
function streamError(entry: Entry, error: unknown): IngestError {
  if (error instanceof Error && /too many bytes in the stream/u.test(error.message)) {
    return archiveRejected(`part ${entry.fileName} inflates past its declared size`);
  }
  return asIngestError(error);
}

function openZip(bytes: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    const options = { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: false };
    yauzl.fromBuffer(bytes, options, (error, zip) => (error ? reject(unreadable(error)) : resolve(zip)));
  });
}

function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      try {
        checkEntryCount(entries.length);
      } catch (error) {
        zip.close();
        reject(error);
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (error: unknown) => reject(asIngestError(error)));
    zip.readEntry();
  });
}

/** Opens the archive and screens its entry table (count, overlap, declared total) before any inflation. */
export async function openArchive(bytes: Buffer): Promise<ZipArchive> {
  const zip = await openZip(bytes);
  checkEntryCount(zip.entryCount);
  const entries = await listEntries(zip);
  checkEntryTable(entries);
  const byName = new Map<string, Entry>();
  for (const entry of entries) {
    const key = entry.fileName.replace(/^\/+/u, '').toLowerCase();
    if (!byName.has(key)) byName.set(key, entry);
  }
  return { zip, entries, byName, meter: createInflationMeter() };
}

export function closeArchive(archive: ZipArchive): void {
  archive.zip.close();
}

/**
 * Streams one entry's inflated bytes to `onChunk`, metered by the guard; rejects on a limit, bad data or CRC mismatch.
 * `onChunk` returning false stops the read there (the reader has all it may keep): nothing more is inflated, and the
 * promise resolves with false instead of true.
 */
export function readEntry(archive: ZipArchive, entry: Entry, onChunk: (chunk: Buffer) => boolean | void): Promise<boolean> {
  checkDeclaredEntry(entry);
  if (entry.isEncrypted()) return Promise.reject(encrypted(`ZIP entry ${entry.fileName} is encrypted`));
  return new Promise<boolean>((resolve, reject) => {
    archive.zip.openReadStream(entry, (openError, stream) => {
      if (openError) return reject(asIngestError(openError));
      let inflated = 0;
      let checksum = 0;
      let settled = false;
      const fail = (error: unknown): void => {
        if (settled) return;
        settled = true;
        stream.destroy();
        reject(asIngestError(error));
      };
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        try {
          inflated += chunk.length;
          meterInflation(archive.meter, entry, inflated, chunk.length);
          checksum = crc32(chunk, checksum);
          if (onChunk(chunk) === false) {
            settled = true;
            stream.destroy();
            resolve(false);
          }
        } catch (error) {
          fail(error);
        }
      });
      stream.on('error', (error: unknown) => fail(streamError(entry, error)));
      stream.on('end', () => {
        if (settled) return;
        if (checksum >>> 0 !== entry.crc32 >>> 0) return fail(new Error(`CRC-32 mismatch in ${entry.fileName}`));
        settled = true;
        resolve(true);
      });
    });
  });
}
