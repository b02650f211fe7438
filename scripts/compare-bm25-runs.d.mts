/** Types of scripts/compare-bm25-runs.mjs (for the tests, which are type-checked). */
import type { Check } from './bench-checks.mjs';

export type Bm25Hits = Record<string, [string, number][]>;
export interface Bm25Comparison {
  queries: number;
  identical: number;
  tieOrderOnly: number;
  different: number;
  extra: number;
  firstDifferent: string[];
  details: { query: string; rank: number; ours: string; reference: string }[];
}
export declare function compareBm25Runs(trecText: string, ref: Bm25Hits): Bm25Comparison;
export declare function bm25RankingsCheck(trecText: string, ref: Bm25Hits, name: string, reference: string): { check: Check; counts: Bm25Comparison };
