// The document-level entity set: the union of its chunks' entities in first-seen order, de-duplicated the
// same way as within a chunk and capped per type. It never re-reads text.

import { ENTITY_TYPES, type Entities } from '../../domain/entities.ts';
import { createEntityCollector } from './collector.ts';
import { MAX_DOCUMENT_ENTITIES_PER_TYPE } from './limits.ts';

export function aggregateEntities(perChunk: Iterable<Entities>, limitPerType: number = MAX_DOCUMENT_ENTITIES_PER_TYPE): Entities {
  const collector = createEntityCollector(limitPerType);
  for (const entities of perChunk) {
    for (const type of ENTITY_TYPES) for (const value of entities[type] ?? []) collector.add(type, value);
  }
  return collector.entities();
}
