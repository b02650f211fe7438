/**
 * The sibling families' fast path (src/siblings/families.ts `similarPairs`: prefix-filtered
 * all-pairs join) against the plain definition: every pair (i < j) compared with `jaccard`
 * (src/siblings/shingles.ts), kept when >= t; and the families (union-find) against plain
 * connected components by breadth-first search. Random sets over a small vocabulary (so that many
 * pairs overlap, many are equal, some are empty), thresholds drawn from round values, the grid of
 * tenths and any double in (0, 1].
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { familiesOfPairs, similarPairs } from '../src/siblings/families.js';
import { jaccard, shingles } from '../src/siblings/shingles.js';

function plainPairs(sets: readonly Set<string>[], t: number): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < sets.length; i++) for (let j = i + 1; j < sets.length; j++) if (sets[i]!.size > 0 && sets[j]!.size > 0 && jaccard(sets[i]!, sets[j]!) >= t) out.push([i, j]);
  return out;
}

/** Connected components by BFS: each id's family = smallest id of its component. */
function plainFamilies(ids: readonly string[], pairs: readonly [number, number][]): Map<string, string> {
  const adj = ids.map(() => [] as number[]);
  for (const [a, b] of pairs) {
    adj[a]!.push(b);
    adj[b]!.push(a);
  }
  const out = new Map<string, string>();
  const done = new Set<number>();
  for (let s = 0; s < ids.length; s++) {
    if (done.has(s)) continue;
    const comp = [s];
    done.add(s);
    for (let h = 0; h < comp.length; h++) for (const n of adj[comp[h]!]!) if (!done.has(n)) (done.add(n), comp.push(n));
    const members = comp.map((i) => ids[i]!).sort();
    for (const m of members) out.set(m, members[0]!);
  }
  return out;
}

const vocab = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l');
const sets = fc.array(fc.uniqueArray(vocab, { maxLength: 12 }).map((xs) => new Set(xs)), { maxLength: 24 });
const threshold = fc.oneof(
  fc.constantFrom(1, 0.5, 0.8, 0.9, 1 / 3, 2 / 3),
  fc.integer({ min: 1, max: 10 }).map((n) => n / 10),
  fc.double({ min: Number.MIN_VALUE, max: 1, noNaN: true }),
);

describe('similarPairs (prefix filtering) equals the plain O(n²) comparison', () => {
  test.prop([sets, threshold])('the same pairs', (s, t) => {
    expect(similarPairs(s, t)).toEqual(plainPairs(s, t));
  });
  test.prop([sets, threshold])('the same families, ids the smallest member', (s, t) => {
    const ids = s.map((_, i) => `s${String(i).padStart(2, '0')}`);
    const { familyOf, families } = familiesOfPairs(ids, similarPairs(s, t));
    expect(familyOf).toEqual(plainFamilies(ids, plainPairs(s, t)));
    for (const f of families) {
      expect(f.members.length).toBeGreaterThan(1);
      expect(f.id).toBe(f.members[0]);
    }
    expect(families.reduce((n, f) => n + f.members.length, 0)).toBe([...familyOf].filter(([id, f]) => id !== f || ids.some((x) => x !== id && familyOf.get(x) === id)).length);
  });
  test.prop([fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'Beta,', 'ÉTÉ'), { maxLength: 10 }), fc.integer({ min: 1, max: 4 })])('shingles: runs of w tokens, one shingle for a shorter text', (words, w) => {
    const toks = words.map((x) => x.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ''));
    const want = new Set<string>();
    if (toks.length > 0 && toks.length < w) want.add(toks.join(' '));
    for (let i = 0; i + w <= toks.length; i++) want.add(toks.slice(i, i + w).join(' '));
    expect(shingles(words.join(' '), w)).toEqual(want);
  });
});
