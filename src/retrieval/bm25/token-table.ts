/**
 * A string-interning hash table keyed by substrings: `intern(s, start, end)` gives the id of
 * `s.slice(start, end)` without allocating that slice unless the token is new. This is what
 * keeps tokenizing ~100 MB of text fast (no per-token string allocation, no Map hashing of
 * fresh strings). Ids are dense, assigned in first-seen order. Token characters are also kept
 * in one Uint16Array pool, so a lookup compares code units without touching string objects.
 */

/** FNV-1a offset basis and prime; `findWordRuns` computes the same hash inline. */
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of s[start, end) (the raw hash, before `mix`). */
export function fnv1a(s: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

/** Final avalanche so the low bits of an FNV hash are usable as a table index. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x45d9f3b);
  return h ^ (h >>> 16);
}

export class TokenTable {
  private slots: Int32Array = new Int32Array(1 << 12); // id + 1, 0 = empty
  private mask = (1 << 12) - 1;
  private hashes: Int32Array = new Int32Array(1 << 10);
  /** Token id -> start offset in `pool`; entry id+1 is its end. */
  private offsets: Int32Array = new Int32Array((1 << 10) + 1);
  private pool: Uint16Array = new Uint16Array(1 << 14);
  private readonly strings: string[] = [];

  /** Number of distinct tokens. */
  get size(): number {
    return this.strings.length;
  }

  /** The token with id `id`. */
  token(id: number): string {
    const t = this.strings[id];
    if (t === undefined) throw new RangeError(`token id ${id} out of range 0..${this.strings.length - 1}`);
    return t;
  }

  /** All tokens, index = id. */
  tokens(): readonly string[] {
    return this.strings;
  }

  /** Id of `s.slice(start, end)`, or -1 if absent. */
  get(s: string, start: number, end: number): number {
    const slot = this.find(s, start, end, mix(fnv1a(s, start, end)));
    return (this.slots[slot] as number) - 1;
  }

  /** Id of `s.slice(start, end)`, adding it if absent. */
  intern(s: string, start: number, end: number): number {
    return this.internHashed(s, start, end, fnv1a(s, start, end));
  }

  /** `intern` with the FNV-1a hash of the range already computed (`fnv1a(s, start, end)`). */
  internHashed(s: string, start: number, end: number, rawHash: number): number {
    const h = mix(rawHash);
    const slot = this.find(s, start, end, h);
    const e = this.slots[slot] as number;
    if (e !== 0) return e - 1;
    return this.insertAt(slot, s, start, end, h);
  }

  /** Id of `token`, adding it if absent. */
  add(token: string): number {
    return this.intern(token, 0, token.length);
  }

  private find(s: string, start: number, end: number, h: number): number {
    const slots = this.slots;
    const mask = this.mask;
    const hashes = this.hashes;
    const offsets = this.offsets;
    const pool = this.pool;
    const len = end - start;
    let p = h & mask;
    for (;;) {
      const e = slots[p] as number;
      if (e === 0) return p;
      const id = e - 1;
      if (hashes[id] === h) {
        const o = offsets[id] as number;
        if ((offsets[id + 1] as number) - o === len) {
          let j = 0;
          while (j < len && pool[o + j] === s.charCodeAt(start + j)) j++;
          if (j === len) return p;
        }
      }
      p = (p + 1) & mask;
    }
  }

  private insertAt(slot: number, s: string, start: number, end: number, h: number): number {
    const id = this.strings.length;
    const len = end - start;
    this.strings.push(s.slice(start, end));
    if (id + 1 >= this.hashes.length) {
      const hashes = new Int32Array(this.hashes.length * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
      const offsets = new Int32Array(this.hashes.length + 1);
      offsets.set(this.offsets);
      this.offsets = offsets;
    }
    const o = this.offsets[id] as number;
    if (o + len > this.pool.length) {
      const pool = new Uint16Array(Math.max(this.pool.length * 2, o + len));
      pool.set(this.pool);
      this.pool = pool;
    }
    const pool = this.pool;
    for (let j = 0; j < len; j++) pool[o + j] = s.charCodeAt(start + j);
    this.offsets[id + 1] = o + len;
    this.hashes[id] = h;
    this.slots[slot] = id + 1;
    if (this.strings.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const cap = this.slots.length * 2;
    const mask = cap - 1;
    const slots = new Int32Array(cap);
    const hashes = this.hashes;
    for (let id = 0; id < this.strings.length; id++) {
      let p = (hashes[id] as number) & mask;
      while (slots[p] !== 0) p = (p + 1) & mask;
      slots[p] = id + 1;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
