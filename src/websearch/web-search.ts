// The operator-gated public web search (SPEC.md POST /web-search): one provider call with a deadline,
// failing open: every provider problem becomes an empty result list with a non-ok meta.status.

import type { WebProvider, WebResult } from './providers.ts';
import { ProviderFailure } from './providers.ts';

export const WEB_SEARCH_STATUSES = ['ok', 'no_results', 'timeout', 'rate_limited', 'unavailable', 'provider_error'] as const;
export type WebSearchStatus = (typeof WEB_SEARCH_STATUSES)[number];

export interface WebSearchResponse {
  results: (WebResult & { source: 'web'; rank: number })[];
  meta: { provider: string; status: WebSearchStatus; count: number; query_time_ms: number };
}

export interface WebSearchOptions {
  enabled: boolean;
  provider: WebProvider | null;
  timeoutMs: number;
}

export class WebSearchService {
  private readonly options: WebSearchOptions;

  constructor(options: WebSearchOptions) {
    this.options = options;
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  async search(query: string, limit: number): Promise<WebSearchResponse> {
    const started = performance.now();
    const { enabled, provider, timeoutMs } = this.options;
    const answer = (status: WebSearchStatus, results: WebResult[] = []): WebSearchResponse => ({
      results: results.slice(0, limit).map((result, index) => ({ source: 'web', ...result, rank: index + 1 })),
      meta: { provider: provider?.name ?? 'none', status, count: Math.min(results.length, limit), query_time_ms: Math.round(performance.now() - started) },
    });
    // With the gate off (or no provider configured) the provider is never called.
    if (!enabled || !provider) return answer('unavailable');
    try {
      const results = await provider.search(query, limit, AbortSignal.timeout(timeoutMs));
      return answer(results.length > 0 ? 'ok' : 'no_results', results);
    } catch (error) {
      if (error instanceof ProviderFailure) return answer(error.status);
      if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return answer('timeout');
      return answer('unavailable');
    }
  }
}
