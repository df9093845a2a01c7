// What an accepted upload asks its job to do: the text itself or the name of the durably stored file.

import type { JsonObject } from './canonical-metadata.ts';

export interface EmbedJobRequest {
  source: 'text' | 'file';
  text?: string;
  upload?: string;
  filename: string | null;
  metadata: JsonObject;
}
