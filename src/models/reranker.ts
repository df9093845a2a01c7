// The reranker port (DESIGN.md "Models"): scores passages against a query for the reranked prefix of the
// content lane. Scores only order results; they never leave the service.

export interface Reranker {
  /** Provider kind: lexical, transformers, http. */
  readonly provider: string;
  /** Model name reported as reranker_model. */
  readonly model: string;
  /**
   * One score per passage, in input order; higher means more relevant. Passages arrive best first in the
   * fused order, which a reranker may use as evidence (the built-in one does).
   */
  rerank(query: string, passages: string[]): Promise<number[]>;
}
