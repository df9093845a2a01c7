// Chooses the classifier from settings: the model file when CLASSIFIER_MODEL_FILE is set, else the built-in
// keyword prototypes. It never falls back silently from a bad model file: the error stops start-up.

import type { Classifier } from './classifier.ts';
import { createKeywordClassifier } from './classifier-keyword.ts';
import { loadClassifierModelFile } from './classifier-model-file.ts';

export interface ClassifierSettings {
  /** CLASSIFIER_MODEL_FILE, or null for the built-in model. */
  modelFile: string | null;
}

export async function createClassifier(settings: ClassifierSettings): Promise<Classifier> {
  return settings.modelFile === null || settings.modelFile.trim() === ''
    ? createKeywordClassifier()
    : loadClassifierModelFile(settings.modelFile);
}
