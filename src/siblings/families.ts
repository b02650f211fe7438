/**
 * Sibling families: skills that are near-copies of each other (forks, renamed variants). Two skills
 * are siblings when the Jaccard similarity of their word-shingle sets (shingles.ts: name,
 * description and SKILL.md body) is at least the threshold t; a family is a connected component of
 * the sibling relation (union-find), so a chain of siblings is one family even when its ends are
 * further apart than t.
 *
 * Family id: the smallest member id (JavaScript string order); members listed in that order;
 * families of two or more skills ordered by size descending, then id. A skill without a sibling is
 * a family of its own (its id), not listed.
 *
 * The pairs are found without comparing every pair (exact all-pairs similarity join with prefix
 * filtering, Chaudhuri et al. 2006 / Bayardo et al. 2007): shingles are ranked by how few sets hold
 * them (then by first appearance), each set is sorted by that rank and the sets taken by size
 * ascending; a pair with J >= t has at least ceil(t·|larger|) shingles in common, so the first
 * |s| − ceil(t·|s|) + 1 shingles of each set (a margin of 1e-9 taken off t·|s| against rounding)
 * share one. Every candidate is then checked by the plain definition (inter / union >= t, the same
 * division `jaccard` makes), so the pairs are exactly those of the O(n²) comparison
 * (test/siblings.property.test.ts).
 */
import { shingles } from './shingles.js';

export interface Family {
  id: string;
  members: string[];
}

export interface Families {
  threshold: number;
  shingle: number;
  /** Per skill (input order): its family id (its own id when it has no sibling). */
  familyOf: Map<string, string>;
  /** Families of two or more skills (size descending, then id). */
  families: Family[];
  /** Sibling pairs found (J >= threshold). */
  pairs: number;
}

/** Index pairs [i, j] (i < j) of sets with Jaccard >= t, sorted; empty sets are never paired. */
export function similarPairs(sets: readonly ReadonlySet<string>[], t: number): [number, number][] {
  if (!(t > 0 && t <= 1)) throw new Error(`similarPairs: threshold must be in (0, 1], got ${t}`);
  // Shingle → int; rank by document frequency ascending, then first appearance.
  const idOf = new Map<string, number>();
  const df: number[] = [];
  for (const s of sets)
    for (const x of s) {
      let id = idOf.get(x);
      if (id === undefined) {
        id = df.length;
        idOf.set(x, id);
        df.push(0);
      }
      df[id]!++;
    }
  const order = df.map((_, i) => i).sort((a, b) => df[a]! - df[b]! || a - b);
  const rank = new Int32Array(df.length);
  order.forEach((id, r) => (rank[id] = r));
  const sorted = sets.map((s) => Int32Array.from([...s].map((x) => rank[idOf.get(x)!]!)).sort());
  const bySize = sets.map((_, i) => i).filter((i) => sets[i]!.size > 0).sort((a, b) => sets[a]!.size - sets[b]!.size || a - b);
  const prefix = (n: number) => Math.min(n, n - Math.ceil(t * n - 1e-9) + 1);
  const index = new Map<number, number[]>();
  const out: [number, number][] = [];
  for (const x of bySize) {
    const xs = sorted[x]!;
    const seen = new Set<number>();
    const p = prefix(xs.length);
    for (let k = 0; k < p; k++) {
      const list = index.get(xs[k]!);
      if (list) for (const y of list) seen.add(y);
    }
    for (const y of seen) {
      const ys = sorted[y]!;
      let inter = 0;
      for (let a = 0, b = 0; a < xs.length && b < ys.length; ) {
        if (xs[a]! === ys[b]!) {
          inter++;
          a++;
          b++;
        } else if (xs[a]! < ys[b]!) a++;
        else b++;
      }
      const union = xs.length + ys.length - inter;
      if (inter / union >= t) out.push(x < y ? [x, y] : [y, x]);
    }
    for (let k = 0; k < p; k++) {
      let list = index.get(xs[k]!);
      if (!list) index.set(xs[k]!, (list = []));
      list.push(x);
    }
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Connected components of `pairs` over `ids` as families (see the module comment for ids and order). */
export function familiesOfPairs(ids: readonly string[], pairs: readonly (readonly [number, number])[]): { familyOf: Map<string, string>; families: Family[] } {
  const parent = ids.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  for (const [a, b] of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
  const groups = new Map<number, string[]>();
  ids.forEach((id, i) => {
    const r = find(i);
    let g = groups.get(r);
    if (!g) groups.set(r, (g = []));
    g.push(id);
  });
  const familyOf = new Map<string, string>();
  const families: Family[] = [];
  for (const g of groups.values()) {
    g.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const id of g) familyOf.set(id, g[0]!);
    if (g.length > 1) families.push({ id: g[0]!, members: g });
  }
  families.sort((a, b) => b.members.length - a.members.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { familyOf, families };
}

/** The sibling families of skills given as (id, text), shingled with `shingle` words, at `threshold`. */
export function siblingFamilies(skills: readonly { id: string; text: string }[], threshold: number, shingle: number): Families {
  const sets = skills.map((s) => shingles(s.text, shingle));
  const pairs = similarPairs(sets, threshold);
  return { threshold, shingle, ...familiesOfPairs(skills.map((s) => s.id), pairs), pairs: pairs.length };
}
