// Accumulates entity values per type with normalization, case-insensitive de-duplication and a per-type
// cap. It never grows past its cap, whatever the input size.

import { ENTITY_TYPES, emptyEntities, type Entities, type EntityType } from '../../domain/entities.ts';
import { MAX_ENTITIES_PER_TYPE } from './limits.ts';
import { entityKey, normalizeEntityValue } from './normalize.ts';

export interface EntityCollector {
  /** Adds one raw value; returns false once the type is full, so a scanner can stop early. */
  add(type: EntityType, raw: string): boolean;
  isFull(type: EntityType): boolean;
  entities(): Entities;
}

export function createEntityCollector(limitPerType: number = MAX_ENTITIES_PER_TYPE): EntityCollector {
  const values = emptyEntities();
  const seen = Object.fromEntries(ENTITY_TYPES.map((t) => [t, new Set<string>()])) as Record<EntityType, Set<string>>;
  const isFull = (type: EntityType): boolean => values[type].length >= limitPerType;
  return {
    add(type, raw) {
      if (isFull(type)) return false;
      const value = normalizeEntityValue(raw);
      const key = entityKey(value);
      if (value !== '' && !seen[type].has(key)) {
        seen[type].add(key);
        values[type].push(value);
      }
      return !isFull(type);
    },
    isFull,
    entities() {
      const copy = emptyEntities();
      for (const type of ENTITY_TYPES) copy[type] = [...values[type]];
      return copy;
    },
  };
}
