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
