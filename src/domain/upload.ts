// What an accepted upload asks its job to do: the text itself or the name of the durably stored file.

import type { JsonObject } from './canonical-metadata.ts';

/** A type, not an interface: a job's request is stored as JSON, and only a type alias is a JsonObject to TypeScript. */
export type EmbedJobRequest = {
  source: 'text' | 'file';
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
};
