/**
 * MinHash signatures of shingle sets and the banded LSH index that turns them into candidate pairs
 * (Broder 1997; Leskovec, Rajaraman & Ullman, Mining of Massive Datasets §3.4). Candidates only:
 * the leakage audit verifies every candidate by exact Jaccard (training/shingles.ts), so a pair it
 * reports carries the exact value, never an estimate.
 *
 * - Shingle hash: FNV-1a (32-bit) over the shingle's UTF-16 code units, then murmur3's fmix32.
 * - Permutations: `permutations` of them, π_i(x) = fmix32(x XOR m_i), each m_i a 32-bit word drawn
 *   from the seeded generator of stats/rng.ts (`seed`). XOR with a constant and fmix32 are both
 *   bijections of the 32-bit words, so each π_i is a permutation of the hash space.
 * - Signature: for each i, the least π_i(h(s)) over the set's shingles (an empty set: all 0xffffffff;
 *   the audit never indexes one).
 * - Bands: `rows` consecutive signature values per band, `bands` = ⌊permutations / rows⌋ bands (the
 *   last permutations left over are unused). Two sets become candidates when any band is equal in
 *   full; at Jaccard j that happens with probability 1 − (1 − j^rows)^bands. `lshBands` picks the
 *   largest `rows` (the fewest spurious candidates) for which a pair at the threshold becomes a
 *   candidate with probability at least `recall` (default 0.99).
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { seededRng } from '../stats/rng.js';

/** murmur3's 32-bit finaliser: a bijection of the 32-bit words with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over the UTF-16 code units, then fmix32. */
export function hashString32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h >>> 0);
}

/** The probability that a pair at Jaccard `j` shares at least one band of `rows` rows among `bands`. */
export function candidateProbability(j: number, bands: number, rows: number): number {
  return 1 - Math.pow(1 - Math.pow(j, rows), bands);
}

/** The band layout for a threshold (see the module comment). */
export function lshBands(permutations: number, threshold: number, recall = 0.99): { bands: number; rows: number } {
  if (!Number.isInteger(permutations) || permutations < 1) throw new RangeError(`permutations must be a positive integer, got ${permutations}`);
  if (!(threshold > 0 && threshold <= 1)) throw new RangeError(`threshold must be in (0, 1], got ${threshold}`);
  for (let rows = permutations; rows > 1; rows--) {
    const bands = Math.floor(permutations / rows);
    if (candidateProbability(threshold, bands, rows) >= recall) return { bands, rows };
  }
  return { bands: permutations, rows: 1 };
}

export class MinHasher {
  readonly permutations: number;
  private readonly masks: Uint32Array;

  constructor(permutations: number, seed: number) {
    if (!Number.isInteger(permutations) || permutations < 1) throw new RangeError(`permutations must be a positive integer, got ${permutations}`);
    this.permutations = permutations;
    const rng = seededRng(seed);
    this.masks = new Uint32Array(permutations);
    for (let i = 0; i < permutations; i++) this.masks[i] = uniformInt(rng, 0, 0xffffffff);
  }

  /** The signature of a set of shingles (see the module comment). */
  signature(shingles: readonly string[]): Uint32Array {
    const sig = new Uint32Array(this.permutations).fill(0xffffffff);
    for (const s of shingles) {
      const h = hashString32(s);
      for (let i = 0; i < this.permutations; i++) {
        const v = fmix32((h ^ this.masks[i]!) >>> 0);
        if (v < sig[i]!) sig[i] = v;
      }
    }
    return sig;
  }
}

/** The key of band `b` of a signature: its `rows` values hashed into 53 bits (a collision only adds a candidate). */
function bandKey(sig: Uint32Array, b: number, rows: number): number {
  let h1 = 0x9e3779b9 ^ b;
  let h2 = 0x85ebca6b ^ b;
  for (let r = b * rows; r < (b + 1) * rows; r++) {
    h1 = fmix32((h1 ^ sig[r]!) >>> 0);
    h2 = fmix32((Math.imul(h2, 31) + sig[r]!) >>> 0);
  }
  return (h1 & 0x1fffff) * 0x100000000 + h2;
}

/**
 * A banded LSH index of signatures, by item number. Each band keeps its keys and items in two flat
 * arrays, sorted by key on the first look-up after an add (binary search then): a few bytes per item
 * and band, not a map entry, so a training split of 10^5 queries fits in tens of MB.
 */
export class LshIndex {
  private readonly keys: number[][];
  private readonly items: number[][];
  private sorted: { keys: Float64Array; items: Int32Array }[] | undefined;

  constructor(
    readonly bands: number,
    readonly rows: number,
  ) {
    this.keys = Array.from({ length: bands }, () => []);
    this.items = Array.from({ length: bands }, () => []);
  }

  add(item: number, sig: Uint32Array): void {
    for (let b = 0; b < this.bands; b++) {
      this.keys[b]!.push(bandKey(sig, b, this.rows));
      this.items[b]!.push(item);
    }
    this.sorted = undefined;
  }

  private tables(): { keys: Float64Array; items: Int32Array }[] {
    this.sorted ??= this.keys.map((keys, b) => {
      const order = Array.from({ length: keys.length }, (_, i) => i).sort((x, y) => keys[x]! - keys[y]! || x - y);
      return { keys: Float64Array.from(order, (i) => keys[i]!), items: Int32Array.from(order, (i) => this.items[b]![i]!) };
    });
    return this.sorted;
  }

  /** Every item that shares at least one band with `sig`, in ascending order. */
  candidates(sig: Uint32Array): number[] {
    const found = new Set<number>();
    const tables = this.tables();
    for (let b = 0; b < this.bands; b++) {
      const { keys, items } = tables[b]!;
      const key = bandKey(sig, b, this.rows);
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid]! < key) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < keys.length && keys[i] === key; i++) found.add(items[i]!);
    }
    return [...found].sort((a, b) => a - b);
  }
}
