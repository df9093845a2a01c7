// Entity groups extracted from document text (SPEC.md "Entities").
// Pure data: no extraction logic lives here.

export const ENTITY_TYPES = [
  'persons',
  'organizations',
  'dates',
  'locations',
  'monetary_amounts',
  'account_numbers',
  'transaction_refs',
  'account_types',
] as const;

export type EntityType = (typeof ENTITY_TYPES)[number];

export type Entities = Record<EntityType, string[]>;

export function emptyEntities(): Entities {
  return Object.fromEntries(ENTITY_TYPES.map((t) => [t, [] as string[]])) as Entities;
}

export function isEntityType(key: string): key is EntityType {
  return (ENTITY_TYPES as readonly string[]).includes(key);
}

/** Union of several entity sets, keeping first-seen order and dropping duplicates. */
export function mergeEntities(sets: Iterable<Entities>): Entities {
  const merged = emptyEntities();
  const seen = Object.fromEntries(ENTITY_TYPES.map((t) => [t, new Set<string>()])) as Record<EntityType, Set<string>>;
  for (const set of sets) {
    for (const type of ENTITY_TYPES) {
      for (const value of set[type] ?? []) {
        if (!seen[type].has(value)) {
          seen[type].add(value);
          merged[type].push(value);
        }
      }
    }
  }
  return merged;
}
