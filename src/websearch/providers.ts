// Web search providers: SearXNG (JSON API) and Brave. Each turns a query into title/url/snippet results
// and reports failures as ProviderFailure with the meta.status they map to; nothing else leaves here.

export interface WebResult {
  title: string;
  url: string;
  snippet: string;
}

export interface WebProvider {
  readonly name: string;
  search(query: string, limit: number, signal: AbortSignal): Promise<WebResult[]>;
}

export class ProviderFailure extends Error {
  readonly status: 'rate_limited' | 'unavailable' | 'provider_error';
  constructor(status: 'rate_limited' | 'unavailable' | 'provider_error', message: string) {
    super(message);
    this.name = 'ProviderFailure';
    this.status = status;
  }
}

export const BRAVE_DEFAULT_URL = 'https://api.search.brave.com/res/v1/web/search';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

async function fetchJson(url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Accept: 'application/json', ...headers }, signal });
  } catch (error) {
    if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) throw error;
    throw new ProviderFailure('unavailable', 'provider unreachable');
  }
  if (response.status === 429) throw new ProviderFailure('rate_limited', 'provider rate limit');
  if (response.status === 502 || response.status === 503 || response.status === 504) throw new ProviderFailure('unavailable', `provider answered ${response.status}`);
  if (!response.ok) throw new ProviderFailure('provider_error', `provider answered ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new ProviderFailure('provider_error', 'provider sent invalid JSON');
  }
}

function results(list: unknown, snippetField: string): WebResult[] {
  if (!Array.isArray(list)) throw new ProviderFailure('provider_error', 'provider response has no result list');
  return list
    .filter((item): item is Record<string, unknown> => item !== null && typeof item === 'object' && typeof item.url === 'string')
    .map((item) => ({ title: text(item.title), url: text(item.url), snippet: text(item[snippetField]) }));
}

export function searxngProvider(baseUrl: string): WebProvider {
  return {
    name: 'searxng',
    async search(query, limit, signal) {
      const url = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const body = (await fetchJson(url, {}, signal)) as { results?: unknown } | null;
      return results(body?.results, 'content').slice(0, limit);
    },
  };
}

export function braveProvider(apiKey: string, endpoint: string = BRAVE_DEFAULT_URL): WebProvider {
  return {
    name: 'brave',
    async search(query, limit, signal) {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(limit));
      const body = (await fetchJson(url, { 'X-Subscription-Token': apiKey }, signal)) as { web?: { results?: unknown } } | null;
      return results(body?.web?.results ?? [], 'description').slice(0, limit);
    },
  };
}
