// extractEntities: every entity type of SPEC.md "Entities" from one text (a chunk, or a whole short
// document), English and Malay, by patterns and gazetteers. It never loads a model and never throws on input.

import type { Entities, EntityType } from '../../domain/entities.ts';
import { findAccountNumbers } from './account-numbers.ts';
import { findAccountTypes } from './account-types.ts';
import { createEntityCollector, type EntityCollector } from './collector.ts';
import { findDates } from './dates.ts';
import { MAX_ENTITIES_PER_TYPE } from './limits.ts';
import { findAddresses, findPlaces } from './locations.ts';
import { findMonetaryAmounts } from './money.ts';
import { findMt940Entities } from './mt940.ts';
import { findOrganizations } from './organizations.ts';
import { findPersons } from './persons.ts';
import { createSpanIndex, type Span } from './spans.ts';
import { findTransactionRefs } from './transaction-refs.ts';

export interface ExtractOptions {
  /** Distinct values kept per type (default MAX_ENTITIES_PER_TYPE). */
  limitPerType?: number;
}

// Links and e-mail addresses carry slugs like "/-/notice-20-october-2009" and "ref-2-ijarah" that are not
// entities; blanking them (same length, so offsets stay true) keeps every finder out of them.
// Both alternatives may only start where a link or address can start: otherwise a long run of word characters
// would be rescanned from every position (quadratic).
const URL_OR_EMAIL = /(?<![\w.+-])(?:(?:https?:\/\/|www\.)[^\s"'<>]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)/giu;

/** What every link or address holds (a scheme's "://", "www." or an "@"): most texts have none and skip the scan. */
const WWW = /www\./i;

function blankLinks(text: string): string {
  if (!text.includes('://') && !text.includes('@') && !WWW.test(text)) return text;
  return text.replace(URL_OR_EMAIL, (link) => ' '.repeat(link.length));
}

const emitter = (collector: EntityCollector, type: EntityType) => (value: string): boolean => collector.add(type, value);

function emitSpans(collector: EntityCollector, type: EntityType, spans: readonly Span[]): void {
  for (const span of spans) if (!collector.add(type, span.value)) return;
}

/** Named spans claim their text in this order: addresses, then organizations, then persons. */
function extractNames(text: string, collector: EntityCollector): void {
  const addresses = findAddresses(text);
  const addressIndex = createSpanIndex(addresses);
  const organizations = findOrganizations(text, addressIndex);
  const organizationIndex = createSpanIndex(organizations);
  const persons = findPersons(text, createSpanIndex([...addresses, ...organizations]));
  emitSpans(collector, 'organizations', organizations);
  emitSpans(collector, 'persons', persons);
  emitSpans(collector, 'locations', [...addresses].sort((a, b) => a.start - b.start));
  findPlaces(text, organizationIndex, emitter(collector, 'locations'));
}

export function extractEntities(text: string, options: ExtractOptions = {}): Entities {
  const collector = createEntityCollector(options.limitPerType ?? MAX_ENTITIES_PER_TYPE);
  if (typeof text !== 'string' || text.trim() === '') return collector.entities();
  text = blankLinks(text);
  findMt940Entities(text, (type, value) => void collector.add(type, value));
  findAccountNumbers(text, emitter(collector, 'account_numbers'));
  findTransactionRefs(text, emitter(collector, 'transaction_refs'));
  findMonetaryAmounts(text, emitter(collector, 'monetary_amounts'));
  findDates(text, emitter(collector, 'dates'));
  findAccountTypes(text, emitter(collector, 'account_types'));
  extractNames(text, collector);
  return collector.entities();
}
