// Wires the ingestion stages (isolated parsing, entities, languages, classification, embedding) from configuration.
// The pipeline receives plain functions; this file is the only one that knows which implementations.

import type { Config } from '../config.ts';
import type { Models } from '../models/compose.ts';
import type { IngestDependencies } from './pipeline.ts';
import { parseDocumentIsolated } from './parse.ts';
import { PARSES_AT_ONCE } from './parse-isolated.ts';
import { extractEntities } from './entities/extract.ts';
import { detectLanguages } from './language.ts';
import { runClassification } from '../models/classifier-status.ts';
import pLimit from 'p-limit';

export function createIngestDependencies(config: Config, models: Models): Omit<IngestDependencies, 'onStage'> {
  const parseSlots = pLimit(PARSES_AT_ONCE);
  return {
    parse: (bytes, filename) =>
      parseSlots(() => parseDocumentIsolated(bytes, filename, {
        timeoutMs: config.parseTimeoutMs,
        maxHeapMb: config.parseMaxHeapMb,
        maxTextChars: config.documentMaxChars,
        maxPages: config.documentMaxPages,
        maxSheets: config.documentMaxSheets,
        maxCells: config.documentMaxCells,
        ocr: {
          enabled: config.ocrEnabled,
          tesseractPath: config.tesseractPath,
          pdftoppmPath: config.pdftoppmPath,
          languages: config.ocrLanguages,
          maxPages: config.ocrMaxPages,
          pageTimeoutMs: config.ocrPageTimeoutMs,
          totalTimeoutMs: config.ocrTotalTimeoutMs,
          pdfDpi: config.ocrPdfDpi,
        },
      })),
    extractEntities: async (texts) => texts.map((text) => extractEntities(text)),
    detectLanguages,
    classify: async (text) => {
      const outcome = await runClassification({ enabled: config.classificationEnabled, classifier: models.classifier, text, allowedCategories: config.allowedCategories });
      return { status: outcome.status, categories: outcome.categories };
    },
    embedder: models.embedder,
    chunkOptions: { targetChars: config.chunkTargetChars, overlapChars: config.chunkOverlapChars },
    limits: { maxChars: config.documentMaxChars, maxChunks: config.documentMaxChunks },
  };
}
