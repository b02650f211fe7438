/**
 * The leakage audit (training/leakage.ts) as `audit-leakage` prints it and as its `--out` file holds
 * it. The file is one JSON document (2-space indent), a function of the two splits and the settings
 * only (no time), so a rerun writes the same bytes:
 *   { tool, train: {dir, split, queries, files}, test: {…}, settings: {normalisation, shingle_words,
 *     permutations, bands, rows, seed, near, close, candidates, jaccard}, counts, shared_gold,
 *     exact_duplicates: [{test, train: [ids], same_gold}], near_duplicates: [{test, train, jaccard,
 *     same_gold}], closest: [{test, train, jaccard, same_gold}] }
 */
import type { DatasetFileInfo } from '../data/dataset.js';
import type { LeakageAudit, NearPair } from '../training/leakage.js';
import { formatFixed } from '../util/python-round.js';

export interface LeakageSplit {
  dir: string;
  split: string;
  queries: number;
  files: readonly DatasetFileInfo[];
}

export const NORMALISATION = 'Unicode NFKC, lower case, each run of characters other than letters and digits turned into one space, trimmed';

export function leakageJson(a: LeakageAudit, train: LeakageSplit, test: LeakageSplit, tool: unknown): Record<string, unknown> {
  const split = (s: LeakageSplit) => ({ dir: s.dir, split: s.split, queries: s.queries, files: s.files.map((f) => ({ role: f.role, sha256: f.sha256, bytes: f.bytes, records: f.records })) });
  const pair = (p: NearPair) => ({ test: p.test, train: p.train, jaccard: p.jaccard, same_gold: p.sameGold });
  const s = a.settings;
  return {
    tool,
    train: split(train),
    test: split(test),
    settings: {
      normalisation: NORMALISATION,
      shingle_words: s.shingle,
      permutations: s.permutations,
      bands: s.bands,
      rows: s.rows,
      seed: s.seed,
      near: s.near,
      close: s.close,
      candidates: `MinHash LSH, ${s.bands} bands of ${s.rows} rows: a pair at Jaccard ${Math.min(s.near, s.close)} becomes a candidate with probability >= 0.99`,
      jaccard: 'exact |A ∩ B| / |A ∪ B| of the two word-shingle sets, for every candidate',
    },
    counts: {
      train_queries: a.counts.train,
      test_queries: a.counts.test,
      test_without_words: a.counts.testWithoutWords,
      candidate_pairs: a.counts.candidates,
      exact_duplicates: a.counts.exactDuplicates,
      near_duplicates: a.counts.nearDuplicates,
      near_pairs: a.counts.nearPairs,
      close: a.counts.close,
    },
    shared_gold: {
      test_with_gold: a.sharedGold.testWithGold,
      all_gold_in_train: a.sharedGold.allGoldInTrain,
      any_gold_in_train: a.sharedGold.anyGoldInTrain,
      test_gold_skills: a.sharedGold.testGoldSkills,
      test_gold_skills_in_train: a.sharedGold.testGoldSkillsInTrain,
    },
    exact_duplicates: a.exact.map((e) => ({ test: e.test, train: e.train, same_gold: e.sameGold })),
    near_duplicates: a.near.map(pair),
    closest: a.closest.map(pair),
  };
}

const pct = (n: number, d: number) => (d === 0 ? '–' : `${formatFixed((100 * n) / d, 2)}%`);

function table(rows: readonly (readonly string[])[], right: readonly boolean[]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) => r.map((cell, c) => (right[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd());
}

/** The terminal report: the settings, one row per check, then up to `maxPairs` pairs. */
export function leakageTable(a: LeakageAudit, train: LeakageSplit, test: LeakageSplit, maxPairs = 20): string {
  const s = a.settings;
  const n = a.counts.test;
  const g = a.sharedGold;
  const lines = [
    `leakage audit: ${test.split} (${n} queries, ${test.dir}) against ${train.split} (${a.counts.train} queries, ${train.dir})`,
    `normalisation: ${NORMALISATION}`,
    `near duplicates: ${s.shingle}-word shingles, exact Jaccard of the candidates of MinHash LSH (${s.permutations} permutations, ${s.bands} bands × ${s.rows} rows, seed ${s.seed}; a pair at ${Math.min(s.near, s.close)} is a candidate with probability ≥ 0.99)`,
    '',
    ...table(
      [
        ['check', 'test queries', 'share'],
        ['exact duplicate of a train query', String(a.counts.exactDuplicates), pct(a.counts.exactDuplicates, n)],
        [`near duplicate (Jaccard ≥ ${s.near}, not exact)`, String(a.counts.nearDuplicates), pct(a.counts.nearDuplicates, n)],
        [`nearest train query at Jaccard ≥ ${s.close}`, String(a.counts.close), pct(a.counts.close, n)],
        ['every gold skill is train gold', `${g.allGoldInTrain} of ${g.testWithGold}`, pct(g.allGoldInTrain, g.testWithGold)],
        ['some gold skill is train gold', `${g.anyGoldInTrain} of ${g.testWithGold}`, pct(g.anyGoldInTrain, g.testWithGold)],
        ['test gold skills that are train gold', `${g.testGoldSkillsInTrain} of ${g.testGoldSkills}`, pct(g.testGoldSkillsInTrain, g.testGoldSkills)],
      ],
      [false, true, true],
    ),
  ];
  if (a.counts.testWithoutWords > 0) lines.push(`note: ${a.counts.testWithoutWords} test queries have no word after normalisation (compared for exact duplicates only)`);
  const pairs: string[][] = [
    ...a.exact.flatMap((e) => e.train.map((t) => ['exact', e.test, t, '1.0000', e.sameGold ? 'yes' : 'no'])),
    ...a.near.map((p) => ['near', p.test, p.train, formatFixed(p.jaccard, 4), p.sameGold ? 'yes' : 'no']),
  ];
  if (pairs.length > 0) {
    lines.push('', ...table([['kind', 'test query', 'train query', 'Jaccard', 'same gold'], ...pairs.slice(0, maxPairs)], [false, false, false, true, false]));
    if (pairs.length > maxPairs) lines.push(`… ${pairs.length - maxPairs} more pairs in the --out file`);
  } else lines.push('', 'no exact or near duplicate');
  return lines.join('\n') + '\n';
}
