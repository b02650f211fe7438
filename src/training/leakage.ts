/**
 * The leakage audit between a training split and a test split: what of the test split the training
 * split already holds.
 *
 * - Exact duplicates: a test query whose normalised text (training/shingles.ts) equals a training
 *   query's; every such training query is listed.
 * - Near duplicates: pairs (test, train), not exact duplicates, whose word-shingle sets have exact
 *   Jaccard ≥ `near`.
 * - Close: the test queries whose nearest training query (the highest Jaccard; ties: the first in
 *   the training file) has Jaccard ≥ `close` (exact and near duplicates included).
 * - Shared gold: the test queries with gold whose gold skills all (and: any of them) are gold of
 *   some training query; the distinct test gold skills that are training gold too.
 *
 * Pairs are found by MinHash LSH (training/minhash.ts, banded for the lower of the two thresholds)
 * and every candidate is verified by exact Jaccard: a reported value is the plain definition's,
 * and a pair at the threshold is missed with probability below 1% (the band layout's guarantee).
 * Queries with no word are compared for exact duplicates only.
 */
import { jaccard, normalizeQuery, wordShingles } from './shingles.js';
import { LshIndex, lshBands, MinHasher } from './minhash.js';

export interface LeakageSettings {
  /** Words per shingle. */
  shingle: number;
  /** MinHash permutations. */
  permutations: number;
  seed: number;
  /** Near-duplicate threshold (exact Jaccard). */
  near: number;
  /** Nearest-train-query threshold (exact Jaccard). */
  close: number;
}

export const DEFAULT_LEAKAGE_SETTINGS: LeakageSettings = { shingle: 3, permutations: 128, seed: 42, near: 0.7, close: 0.5 };

export interface SplitQuery {
  id: string;
  text: string;
  /** Relevant gold skill ids (may be empty). */
  gold: readonly string[];
}

export interface ExactDuplicate {
  test: string;
  train: string[];
  /** Some listed training query has exactly the same gold set. */
  sameGold: boolean;
}

export interface NearPair {
  test: string;
  train: string;
  jaccard: number;
  /** The two queries have exactly the same gold set. */
  sameGold: boolean;
}

export interface LeakageAudit {
  settings: LeakageSettings & { bands: number; rows: number };
  counts: {
    train: number;
    test: number;
    /** Test queries with no word after normalisation (exact comparison only). */
    testWithoutWords: number;
    /** Candidate pairs the LSH bands gave, all verified. */
    candidates: number;
    exactDuplicates: number;
    nearDuplicates: number;
    nearPairs: number;
    close: number;
  };
  exact: ExactDuplicate[];
  near: NearPair[];
  /** Test queries whose nearest training query is at Jaccard ≥ close, with it. */
  closest: NearPair[];
  sharedGold: {
    /** Test queries with at least one gold skill. */
    testWithGold: number;
    /** Of them, those whose every gold skill is training gold. */
    allGoldInTrain: number;
    /** Of them, those with at least one gold skill that is training gold. */
    anyGoldInTrain: number;
    /** Distinct gold skills of the test split, and those of them that are training gold. */
    testGoldSkills: number;
    testGoldSkillsInTrain: number;
  };
}

function checkSettings(s: LeakageSettings): void {
  if (!Number.isInteger(s.shingle) || s.shingle < 1) throw new RangeError(`shingle must be a positive integer, got ${s.shingle}`);
  for (const [k, v] of [['near', s.near], ['close', s.close]] as const) if (!(v > 0 && v <= 1)) throw new RangeError(`${k} must be in (0, 1], got ${v}`);
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x)) && new Set(b).size === s.size;
}

export function auditLeakage(train: readonly SplitQuery[], test: readonly SplitQuery[], settings: LeakageSettings = DEFAULT_LEAKAGE_SETTINGS): LeakageAudit {
  checkSettings(settings);
  const { bands, rows } = lshBands(settings.permutations, Math.min(settings.near, settings.close));
  const hasher = new MinHasher(settings.permutations, settings.seed);
  const index = new LshIndex(bands, rows);

  // Only the normalised texts are kept: a candidate's shingles are built again when it is verified.
  const trainNorm = train.map((q) => normalizeQuery(q.text));
  const byText = new Map<string, number[]>();
  trainNorm.forEach((n, i) => {
    const list = byText.get(n);
    if (list) list.push(i);
    else byText.set(n, [i]);
    const sh = wordShingles(n, settings.shingle);
    if (sh.length > 0) index.add(i, hasher.signature(sh));
  });

  const exact: ExactDuplicate[] = [];
  const near: NearPair[] = [];
  const closest: NearPair[] = [];
  let candidates = 0;
  let withoutWords = 0;
  let nearQueries = 0;
  for (const q of test) {
    const norm = normalizeQuery(q.text);
    const same = byText.get(norm) ?? [];
    if (same.length > 0) exact.push({ test: q.id, train: same.map((i) => train[i]!.id), sameGold: same.some((i) => sameSet(train[i]!.gold, q.gold)) });
    const sh = wordShingles(norm, settings.shingle);
    if (sh.length === 0) {
      withoutWords++;
      continue;
    }
    const exactSet = new Set(same);
    let best: { i: number; j: number } | undefined;
    let anyNear = false;
    for (const i of index.candidates(hasher.signature(sh))) {
      candidates++;
      const j = jaccard(sh, wordShingles(trainNorm[i]!, settings.shingle));
      if (best === undefined || j > best.j) best = { i, j };
      if (j >= settings.near && !exactSet.has(i)) {
        near.push({ test: q.id, train: train[i]!.id, jaccard: j, sameGold: sameSet(train[i]!.gold, q.gold) });
        anyNear = true;
      }
    }
    if (anyNear) nearQueries++;
    if (best !== undefined && best.j >= settings.close) closest.push({ test: q.id, train: train[best.i]!.id, jaccard: best.j, sameGold: sameSet(train[best.i]!.gold, q.gold) });
  }

  const trainGold = new Set(train.flatMap((q) => q.gold));
  const withGold = test.filter((q) => q.gold.length > 0);
  const testGold = new Set(withGold.flatMap((q) => q.gold));
  return {
    settings: { ...settings, bands, rows },
    counts: {
      train: train.length,
      test: test.length,
      testWithoutWords: withoutWords,
      candidates,
      exactDuplicates: exact.length,
      nearDuplicates: nearQueries,
      nearPairs: near.length,
      close: closest.length,
    },
    exact,
    near,
    closest,
    sharedGold: {
      testWithGold: withGold.length,
      allGoldInTrain: withGold.filter((q) => q.gold.every((g) => trainGold.has(g))).length,
      anyGoldInTrain: withGold.filter((q) => q.gold.some((g) => trainGold.has(g))).length,
      testGoldSkills: testGold.size,
      testGoldSkillsInTrain: [...testGold].filter((g) => trainGold.has(g)).length,
    },
  };
}
