// The language of a chunk's text, as indexing records it: English, Malay, or other (any other language, or a
// text too short or too mixed to tell). It chooses the chunk's analyzer (text/analyzer.ts AnalysisMode).

export const CHUNK_LANGUAGES = ['en', 'ms', 'other'] as const;
export type ChunkLanguage = (typeof CHUNK_LANGUAGES)[number];

export function isChunkLanguage(value: unknown): value is ChunkLanguage {
  return typeof value === 'string' && (CHUNK_LANGUAGES as readonly string[]).includes(value);
}
