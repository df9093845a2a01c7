// A set of distinct strings in three typed arrays: their UTF-8 bytes end to end, where each starts, and a hash
// index of their ids for lookups. It stands in for a string array plus a Map or Set over it (a term dictionary,
// a vocabulary's words) at about a fifth of the memory, with no object per string for the collector to trace,
// and it crosses to another thread as transferable buffers instead of being cloned string by string.

/** Strings by id as plain data: string i is the UTF-8 of bytes[starts[i] .. starts[i + 1]). */
export interface ByteStrings {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly starts: Uint32Array;
  /** True when a separator byte follows each string: string i then ends at starts[i + 1] - 1. */
  readonly separated?: boolean;
}

/** Where string `id` of the list ends in its bytes. */
export function endOf(list: ByteStrings, id: number): number {
  return list.separated ? list.starts[id + 1] - 1 : list.starts[id + 1];
}

/** Distinct strings that can also be looked up (structured-cloneable). */
export interface StringTable extends ByteStrings {
  /**
   * Open addressing over the 32-bit FNV-1a hash of each string's bytes: id + 1 per slot, 0 for none; its
   * length is a power of two, at most three quarters full.
   */
  readonly slots: Int32Array;
}

const encoder = new TextEncoder();

/** 32-bit FNV-1a over bytes[from .. to). */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}

/** The table of `strings` in the order given (string i gets id i); repeats are refused. */
export function stringTable(strings: readonly string[]): StringTable {
  const interner = new StringInterner();
  strings.forEach((value, id) => {
    if (interner.internString(value) !== id) throw new RangeError(`"${value}" appears twice in a string table`);
  });
  return interner.table();
}

/** Slots for `count` strings at most three quarters full. */
function slotCount(count: number): number {
  let size = 4;
  while (size * 3 < count * 4) size *= 2;
  return size;
}

function placeAll(hashes: Uint32Array, count: number, slots: Int32Array): void {
  const mask = slots.length - 1;
  for (let id = 0; id < count; id++) {
    let slot = hashes[id] & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id + 1;
  }
}

/** Whether string `id` of the list is exactly bytes[from .. to). */
function sameBytes(list: ByteStrings, id: number, bytes: Uint8Array, from: number, to: number): boolean {
  const start = list.starts[id];
  if (endOf(list, id) - start !== to - from) return false;
  const stored = list.bytes;
  for (let i = 0; i < to - from; i++) if (stored[start + i] !== bytes[from + i]) return false;
  return true;
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
export function stringAt(table: ByteStrings, id: number): string {
  return viewOf(table.bytes).toString('utf8', table.starts[id], endOf(table, id));
}

/** Every string of the table, by id. */
export function tableStrings(table: ByteStrings): string[] {
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
  const { slots } = table;
  const mask = slots.length - 1;
  for (let slot = hashBytes(scratch, 0, length) & mask; ; slot = (slot + 1) & mask) {
    const entry = slots[slot];
    if (entry === 0) return -1;
    if (sameBytes(table, entry - 1, scratch, 0, length)) return entry - 1;
  }
}

export function tableHas(table: StringTable, value: string): boolean {
  return idOf(table, value) >= 0;
}

/** Strings by id: an array (what a writer holds), or bytes and offsets (decoded lane data, built indexes). */
export type StringList = readonly string[] | ByteStrings;

export function listSize(list: StringList): number {
  return holdsBytes(list) ? list.size : list.length;
}

export function listStrings(list: StringList): readonly string[] {
  return holdsBytes(list) ? tableStrings(list) : list;
}

function holdsBytes(list: StringList): list is ByteStrings {
  return !Array.isArray(list);
}

/** The buffers of a table (to transfer it to another thread). */
export function tableBuffers(table: StringTable): ArrayBuffer[] {
  return [table.bytes.buffer as ArrayBuffer, table.starts.buffer as ArrayBuffer, table.slots.buffer as ArrayBuffer];
}

/** What the table holds, in bytes. */
export function tableBytes(table: StringTable): number {
  return table.bytes.byteLength + table.starts.byteLength + table.slots.byteLength;
}

/** Below this many bytes of strings an interner starts; it doubles as it fills. */
const INTERNER_INITIAL_BYTES = 4096;

/**
 * Gives each distinct string an id in order of first sight, taking strings as UTF-8 byte ranges: merging
 * lane data interns every term and word of every generation, and hashing the bytes where they lie is several
 * times faster than decoding each to a string for a Map. The strings end up as a table without being copied.
 */
export class StringInterner {
  private pool = new Uint8Array(INTERNER_INITIAL_BYTES);
  private used = 0;
  private starts = new Uint32Array(1024);
  private hashes = new Uint32Array(1024);
  private count = 0;
  /** Open addressing: id + 1 per slot, 0 for an empty slot. */
  private slots = new Int32Array(2048);

  get size(): number {
    return this.count;
  }

  /** The id of the string in bytes[from .. to), added when new. */
  intern(bytes: Uint8Array, from: number, to: number): number {
    const hash = hashBytes(bytes, from, to);
    const mask = this.slots.length - 1;
    const length = to - from;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot];
      if (entry === 0) break;
      const id = entry - 1;
      if (this.hashes[id] !== hash) continue;
      const start = this.starts[id];
      if (this.starts[id + 1] - start !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (this.pool[start + i] !== bytes[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
    return this.add(bytes, from, to, hash);
  }

  /** The id of string `id` of a list: interned from its bytes where the list holds bytes. */
  internAt(list: StringList, id: number): number {
    return holdsBytes(list) ? this.intern(list.bytes, list.starts[id], endOf(list, id)) : this.internString(list[id]);
  }

  /** The id of a string given as text. */
  internString(value: string): number {
    if (value.length * 3 > scratch.length) scratch = new Uint8Array(value.length * 3);
    return this.intern(scratch, 0, encoder.encodeInto(value, scratch).written);
  }

  private add(bytes: Uint8Array, from: number, to: number, hash: number): number {
    const id = this.count++;
    if (this.count + 1 > this.starts.length) {
      this.starts = grown(this.starts, this.starts.length * 2);
      this.hashes = grown(this.hashes, this.hashes.length * 2);
    }
    if (this.used + (to - from) > this.pool.length) this.pool = grown(this.pool, Math.max(this.pool.length * 2, this.used + (to - from)));
    this.pool.set(bytes.subarray(from, to), this.used);
    this.used += to - from;
    this.starts[id + 1] = this.used;
    this.hashes[id] = hash;
    if (this.count * 2 > this.slots.length) this.rehash();
    else this.place(id);
    return id;
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[id] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = id + 1;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2);
    for (let id = 0; id < this.count; id++) this.place(id);
  }

  /** The strings interned so far, by id. */
  strings(): ByteStrings {
    return { size: this.count, bytes: this.pool.subarray(0, this.used), starts: this.starts.subarray(0, this.count + 1) };
  }

  /** The strings as a table that owns its buffers, indexed by the hashes taken while interning. */
  table(): StringTable {
    const slots = new Int32Array(slotCount(this.count));
    placeAll(this.hashes, this.count, slots);
    return Object.freeze({ size: this.count, bytes: this.pool.slice(0, this.used), starts: this.starts.slice(0, this.count + 1), slots });
  }
}

function grown<T extends Uint8Array | Uint32Array>(array: T, capacity: number): T {
  const bigger = new (array.constructor as new (n: number) => T)(capacity);
  bigger.set(array);
  return bigger;
}

/**
 * A list of strings from their UTF-8 joined by one separator byte (lane data's form), read in place: neither
 * decoded nor copied (string i ends one byte before starts[i + 1]).
 */
export function splitBytes(joined: Uint8Array, separator: number): ByteStrings {
  if (joined.length === 0) return { size: 0, bytes: joined, starts: new Uint32Array(1), separated: true };
  const starts: number[] = [0];
  for (let at = joined.indexOf(separator); at >= 0; at = joined.indexOf(separator, at + 1)) starts.push(at + 1);
  starts.push(joined.length + 1);
  return { size: starts.length - 1, bytes: joined, starts: Uint32Array.from(starts), separated: true };
}

/**
 * splitBytes, done when the list's size or starts are first read: a load that never reads a section (a
 * segment that derives its words' terms at the end instead of uniting the sources') does not split it.
 */
export class JoinedStrings implements ByteStrings {
  readonly bytes: Uint8Array;
  readonly separated = true;
  private readonly separator: number;
  private split: ByteStrings | null = null;

  constructor(joined: Uint8Array, separator: number) {
    this.bytes = joined;
    this.separator = separator;
  }

  get size(): number {
    return this.strings().size;
  }

  get starts(): Uint32Array {
    return this.strings().starts;
  }

  private strings(): ByteStrings {
    return (this.split ??= splitBytes(this.bytes, this.separator));
  }
}
