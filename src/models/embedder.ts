// The dense embedding provider port (DESIGN.md "Models"). Providers turn texts into L2-normalized vectors
// of a fixed dimension and name their model for provenance; they never know about chunks or storage.

export interface EmbedOptions {
  singleAttempt?: boolean;
}

export interface Embedder {
  /** Provider kind: hashing, model2vec, transformers, openai. */
  readonly provider: string;
  /** Model name recorded in embedding provenance (dense_model). */
  readonly model: string;
  readonly dimensions: number;
  /**
   * Embeds each text; every returned vector has `dimensions` entries and unit L2 norm (or is all zeros for
   * empty text). `singleAttempt`: a remote provider makes one request and leaves retrying to the caller
   * (a search applies SPEC.md rule 12 itself).
   */
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
