// What an accepted upload asks its job to do: the text itself or the name of the durably stored file.

import type { JsonObject } from './canonical-metadata.ts';
import type { ExportedVersion } from './client-export.ts';

/** A type, not an interface: a job's request is stored as JSON, and only a type alias is a JsonObject to TypeScript. */
export type EmbedJobRequest = {
  /** `import`: a version of an export (POST /admin/clients/{client_id}/import), re-embedded from its chunks. */
  source: 'text' | 'file' | 'import';
  text?: string;
  upload?: string;
  /**
   * The stored file's size and SHA-256 (hex) as accepted: the job reads the file back and parses it only when both
   * still match, so a file cut short or altered on disk fails the job and is never indexed as if whole. Jobs
   * accepted before these were recorded carry neither and are read as they are.
   */
  uploadBytes?: number;
  uploadSha256?: string;
  filename: string | null;
  metadata: JsonObject;
  /** An import's: the version as exported (chunks, canonical metadata, created_at, deletion markers). */
  imported?: ExportedVersion;
};
