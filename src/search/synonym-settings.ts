// GET and PUT /settings/synonyms, and the synonym set a search expands its keyword query with.
//
// "A change holds for every search that starts after it was accepted, on every api process": each search reads
// the set's version from the store (one indexed row of the shared records) and parses the set only when the
// version moved since this process last read it. The publication log was the other way to carry it, but it
// orders document versions and a follower applies it on its poll: a search that started between the PUT's answer
// and the next poll would still use the old set. The version read is what makes "after it was accepted" exact.
// Searches side by side share a version read, but only one begun after they started (runtime/fresh-reads.ts).

import type { SettingsRepository } from '../storage/port.ts';
import { RecentCache } from '../text/recent-cache.ts';
import { FreshReads } from '../runtime/fresh-reads.ts';
import { NO_SYNONYMS, SynonymExpander } from './synonyms.ts';
import type { SynonymRule } from './synonyms.ts';

/** Clients whose compiled set a process keeps (a set evicted is read and compiled again on its next search). */
export const REMEMBERED_SYNONYM_SETS = 256;

export class SynonymSettings {
  private readonly store: SettingsRepository;
  private readonly compiled = new RecentCache<string, { version: number; expander: SynonymExpander }>(REMEMBERED_SYNONYM_SETS);
  private readonly versions: FreshReads<string, number>;

  constructor(store: SettingsRepository) {
    this.store = store;
    this.versions = new FreshReads((clientId) => this.store.synonymsVersion(clientId));
  }

  /** The Client's rules as last accepted; none when never set. */
  async rules(clientId: string): Promise<SynonymRule[]> {
    const stored = await this.store.synonyms(clientId);
    return stored ? (JSON.parse(stored.rules) as SynonymRule[]) : [];
  }

  /** Replaces the Client's whole set (validated by the route); holds for every search that starts after this settles. */
  async replace(clientId: string, rules: readonly SynonymRule[]): Promise<void> {
    await this.store.setSynonyms(clientId, JSON.stringify(rules));
  }

  /** The set a search of the Client starting now expands with. */
  async expanderFor(clientId: string): Promise<SynonymExpander> {
    const version = await this.versions.get(clientId);
    if (version === 0) return NO_SYNONYMS;
    const known = this.compiled.get(clientId);
    if (known !== undefined && known.version === version) return known.expander;
    const stored = await this.store.synonyms(clientId);
    if (stored === null) return NO_SYNONYMS;
    const expander = new SynonymExpander(JSON.parse(stored.rules) as SynonymRule[]);
    this.compiled.set(clientId, { version: stored.version, expander });
    return expander;
  }
}
