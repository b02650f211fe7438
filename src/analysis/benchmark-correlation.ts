/**
 * This benchmark's ranking of systems against another benchmark's (`compare --correlate FILE`, the
 * seed's pitfall "MTEB scores do not predict skill retrieval", the paper's Table 15): each compared
 * run's mean on the main metric paired with the other benchmark's score of the same system, then
 * Spearman ρ and Kendall τ-b with bootstrap intervals over the systems (stats/rank-correlation.ts).
 *
 * A row of the scores file (formats/benchmark-scores.ts) is matched to a compared run, exact and
 * case-sensitive, by the first rule that finds one:
 * 1. the run's label `retriever/reranker` (e.g. `qwen3-8b/none`);
 * 2. the published model name of the run (metrics.json `paper.row`, set on pinned releases, e.g.
 *    `Qwen3-Embedding-8B`, as in `skillret-eval paper`);
 * 3. the retriever id alone (e.g. `qwen3-8b`), when exactly one compared run has that retriever.
 * Rows that match no run and runs no row matches are listed, not errors; a run two rows match is an
 * error naming both lines, and so is a correlation over fewer than 3 pairs.
 */
import { UserError } from '../core/errors.js';
import type { BenchmarkScores } from '../formats/benchmark-scores.js';
import { deriveSeed } from '../stats/rng.js';
import { rankCorrelation, type RankCorrelation } from '../stats/rank-correlation.js';

/** What the correlation needs of a compared run. */
export interface CorrelatedRun {
  label: string;
  retriever?: string;
  /** The published model name (metrics.json `paper.row`), when the run has one. */
  paperRow?: string;
  /** The run's mean on `key`. */
  value: number;
}

export type MatchRule = 'label' | 'paper name' | 'retriever id';

export interface CorrelatedPair {
  label: string;
  /** The row's name as the scores file gives it, its line and how it was matched. */
  name: string;
  line: number;
  matchedBy: MatchRule;
  ours: number;
  theirs: number;
}

export interface BenchmarkCorrelation {
  /** This benchmark's metric (the comparison's main metric) and the other's column. */
  key: string;
  file: string;
  column: string;
  pairs: CorrelatedPair[];
  unmatchedRows: { name: string; line: number }[];
  unmatchedRuns: string[];
  seed: number;
  result: RankCorrelation;
}

/** The fewest pairs a rank correlation is computed over. */
export const MIN_CORRELATED = 3;

/** The stream of the correlation bootstrap under the user's seed (its own, not the comparison's). */
export function correlationSeed(seed: number): number {
  return deriveSeed(seed, 'rank-correlation');
}

function matchRow(name: string, runs: readonly CorrelatedRun[]): { run: number; rule: MatchRule } | undefined {
  const byLabel = runs.findIndex((r) => r.label === name);
  if (byLabel >= 0) return { run: byLabel, rule: 'label' };
  const byPaper = runs.filter((r) => r.paperRow === name);
  if (byPaper.length === 1) return { run: runs.indexOf(byPaper[0]!), rule: 'paper name' };
  const byRetriever = runs.filter((r) => r.retriever === name);
  if (byRetriever.length === 1) return { run: runs.indexOf(byRetriever[0]!), rule: 'retriever id' };
  return undefined;
}

/** Pairs the runs with the scores file's rows (see the module comment) and correlates them. */
export function correlateWithBenchmark(
  runs: readonly CorrelatedRun[],
  key: string,
  scores: BenchmarkScores,
  o: { seed: number; iterations: number },
): BenchmarkCorrelation {
  const pairs: CorrelatedPair[] = [];
  const unmatchedRows: { name: string; line: number }[] = [];
  const takenBy = new Map<number, number>();
  for (const row of scores.rows) {
    const m = matchRow(row.name, runs);
    if (m === undefined) {
      unmatchedRows.push({ name: row.name, line: row.line });
      continue;
    }
    const before = takenBy.get(m.run);
    if (before !== undefined) {
      throw new UserError(`${scores.file}:${row.line}: ${JSON.stringify(row.name)} names run ${runs[m.run]!.label}, which line ${before} names already`);
    }
    takenBy.set(m.run, row.line);
    const run = runs[m.run]!;
    pairs.push({ label: run.label, name: row.name, line: row.line, matchedBy: m.rule, ours: run.value, theirs: row.score });
  }
  const unmatchedRuns = runs.filter((_, i) => !takenBy.has(i)).map((r) => r.label);
  if (pairs.length < MIN_CORRELATED) {
    throw new UserError(
      `${scores.file}: ${pairs.length} row${pairs.length === 1 ? '' : 's'} match a compared run, a rank correlation needs ${MIN_CORRELATED} or more ` +
        `(a row names a run by its label retriever/reranker, its published model name or its retriever id; runs: ${runs.map((r) => r.label).join(', ')})`,
    );
  }
  const result = rankCorrelation(
    pairs.map((p) => p.ours),
    pairs.map((p) => p.theirs),
    { seed: correlationSeed(o.seed), iterations: o.iterations },
  );
  return { key, file: scores.file, column: scores.scoreColumn, pairs, unmatchedRows, unmatchedRuns, seed: o.seed, result };
}
