// The analyzer a chunk's language chooses, at indexing (lane data) and for its highlights: English texts get
// Porter alone; Malay texts, and texts of other or unknown language, get Malay affixes first and Porter for roots
// that do not look Malay (which serves both languages). A chunk indexed before languages were recorded has none:
// its mode is detected from its function words, as it was then (undefined here).

import type { ChunkLanguage } from '../domain/chunk-language.ts';
import type { AnalysisMode } from '../text/analyzer.ts';

export function analysisModeOf(language: ChunkLanguage | null): AnalysisMode | undefined {
  if (language === null) return undefined;
  return language === 'en' ? 'english' : 'malay';
}
