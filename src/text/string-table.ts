// A set of distinct strings in three typed arrays: their UTF-8 bytes end to end, where each starts, and their
// ids in byte order for lookups. It stands in for a string array plus a Map or Set over it (a term dictionary,
// a vocabulary's words) at about a fifth of the memory, with no object per string for the collector to trace,
// and it crosses to another thread as transferable buffers instead of being cloned string by string.

/** Plain data (structured-cloneable); string i is bytes[starts[i] .. starts[i + 1]). */
export interface StringTable {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
  /** Ids ordered by their strings' UTF-8 bytes (code point order). */
  readonly sorted: Uint32Array;
}

const encoder = new TextEncoder();

/** The table of `strings` in the order given (string i gets id i); repeats are refused. */
export function stringTable(strings: readonly string[]): StringTable {
  const starts = new Uint32Array(strings.length + 1);
  let total = 0;
  for (let i = 0; i < strings.length; i++) {
    total += Buffer.byteLength(strings[i], 'utf8');
    starts[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < strings.length; i++) encoder.encodeInto(strings[i], bytes.subarray(starts[i], starts[i + 1]));
  const sorted = new Uint32Array(strings.length);
  for (let i = 0; i < sorted.length; i++) sorted[i] = i;
  sorted.sort((a, b) => compareStored(bytes, starts, a, b));
  for (let i = 1; i < sorted.length; i++) {
    if (compareStored(bytes, starts, sorted[i - 1], sorted[i]) === 0) throw new RangeError(`"${strings[sorted[i]]}" appears twice in a string table`);
  }
  return Object.freeze({ size: strings.length, bytes, starts, sorted });
}

function compareStored(bytes: Uint8Array, starts: Uint32Array, a: number, b: number): number {
  let i = starts[a];
  let j = starts[b];
  const endA = starts[a + 1];
  const endB = starts[b + 1];
  for (; i < endA && j < endB; i++, j++) {
    if (bytes[i] !== bytes[j]) return bytes[i] - bytes[j];
  }
  return endA - i - (endB - j);
}

/** Buffer views of tables, for fast decoding (a table itself stays plain data). */
const views = new WeakMap<Uint8Array, Buffer>();

function viewOf(bytes: Uint8Array): Buffer {
  let view = views.get(bytes);
  if (view === undefined) {
    view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    views.set(bytes, view);
  }
  return view;
}

/** String `id` of the table. */
export function stringAt(table: StringTable, id: number): string {
  return viewOf(table.bytes).toString('utf8', table.starts[id], table.starts[id + 1]);
}

/** Every string of the table, by id. */
export function tableStrings(table: StringTable): string[] {
  const out = new Array<string>(table.size);
  for (let id = 0; id < table.size; id++) out[id] = stringAt(table, id);
  return out;
}

/** Scratch for the query string's bytes (lookups are synchronous, so no two share it at once). */
let scratch = new Uint8Array(256);

/** The id of `value` in the table, or -1. */
export function idOf(table: StringTable, value: string): number {
  if (table.size === 0) return -1;
  if (value.length * 3 > scratch.length) scratch = new Uint8Array(value.length * 3);
  const length = encoder.encodeInto(value, scratch).written;
  const { bytes, starts, sorted } = table;
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const id = sorted[middle];
    let i = starts[id];
    const end = starts[id + 1];
    let j = 0;
    for (; i < end && j < length; i++, j++) {
      if (bytes[i] !== scratch[j]) break;
    }
    const order = i < end && j < length ? bytes[i] - scratch[j] : end - i - (length - j);
    if (order === 0) return id;
    if (order < 0) low = middle + 1;
    else high = middle;
  }
  return -1;
}

export function tableHas(table: StringTable, value: string): boolean {
  return idOf(table, value) >= 0;
}

/** Strings by id: an array, or a table (what decoded lane data and built indexes hold respectively). */
export type StringList = readonly string[] | StringTable;

export function listSize(list: StringList): number {
  return isTable(list) ? list.size : list.length;
}

export function listString(list: StringList, id: number): string {
  return isTable(list) ? stringAt(list, id) : list[id];
}

export function listStrings(list: StringList): readonly string[] {
  return isTable(list) ? tableStrings(list) : list;
}

function isTable(list: StringList): list is StringTable {
  return !Array.isArray(list);
}

/** The buffers of a table (to transfer it to another thread). */
export function tableBuffers(table: StringTable): ArrayBuffer[] {
  return [table.bytes.buffer as ArrayBuffer, table.starts.buffer as ArrayBuffer, table.sorted.buffer as ArrayBuffer];
}

/** What the table holds, in bytes. */
export function tableBytes(table: StringTable): number {
  return table.bytes.byteLength + table.starts.byteLength + table.sorted.byteLength;
}
