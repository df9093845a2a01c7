// The document classifier port (SPEC.md "Classification", DESIGN.md "Models"): text in, a subset of the
// allowed categories out. Providers never see storage or jobs and never return a category outside the list.

export interface Classifier {
  /** Model name reported as embedding.classifier_model. */
  readonly model: string;
  /** Path of the loaded model file (embedding.classifier_model_file), or null for the built-in model. */
  readonly modelFile: string | null;
  /** Matching categories, best first; possibly empty; every one taken from `categories`. */
  classify(text: string, categories: readonly string[]): Promise<string[]>;
}
