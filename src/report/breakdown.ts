/**
 * The per-category breakdown of an experiment (the paper's per-major table): every run's metrics
 * by the taxonomy `major` of each query's primary gold skill (rule: src/metrics/breakdown.ts), as the
 * `breakdown.json` object of a run folder and as the "<metric> by category" section of summary.md.
 * Rendering and shaping only; the means come from `breakdownBy`.
 */
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import { breakdownBy, queryCategories, UNLABELLED, type GroupStats } from '../metrics/breakdown.js';
import { measureKey } from '../metrics/measures.js';
import { formatPercent, roundHalfEven } from '../metrics/round.js';
import { escapeMd, mdTable } from './markdown.js';

export interface RunBreakdown {
  retriever: string;
  reranker: string;
  /** major -> queries and means, largest group first, `(unlabelled)` last. */
  groups: Map<string, GroupStats>;
}

/** Breakdown of every run by `major`, in run order. */
export function runBreakdowns(res: ExperimentResult): RunBreakdown[] {
  const categories = queryCategories(res.dataset.qrels, res.dataset.skills, 'major');
  const keys = res.measures.map(measureKey);
  return res.runs.map((r: RunResult) => ({
    retriever: r.retriever,
    reranker: r.reranker,
    groups: breakdownBy(r.evaluation.perQuery, (qid) => categories.get(qid), keys),
  }));
}

/** breakdown.json of one run: `{"by": "major", "groups": {major: {"queries": n, "metrics": {…5 decimals}}}}`. */
export function breakdownJson(b: RunBreakdown): Record<string, unknown> {
  const groups: Record<string, unknown> = {};
  for (const [g, s] of b.groups) {
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(s.metrics)) metrics[k] = roundHalfEven(v, 5);
    groups[g] = { queries: s.queries, metrics };
  }
  return { by: 'major', groups };
}

/**
 * "<NDCG@10> by category": rows = runs, columns = the majors present (largest first, with their
 * query counts) and all queries. Empty string when fewer than 2 majors are present.
 */
export function renderBreakdownSection(res: ExperimentResult, breakdowns: readonly RunBreakdown[]): string {
  const first = breakdowns[0];
  if (!first) return '';
  const majors = [...first.groups.keys()];
  if (majors.filter((g) => g !== UNLABELLED).length < 2) return '';
  const ks = res.config.k;
  const key = `NDCG@${ks.includes(10) ? 10 : ks[0]!}`;
  const total = [...first.groups.values()].reduce((s, g) => s + g.queries, 0);
  const header = ['Run', ...majors.map((g) => `${escapeMd(g)} (${first.groups.get(g)!.queries})`), `All (${total})`];
  const runByKey = new Map(res.runs.map((r) => [`${r.retriever}\u0000${r.reranker}`, r]));
  const rows = breakdowns.map((b) => {
    const all = runByKey.get(`${b.retriever}\u0000${b.reranker}`)?.evaluation.aggregate[key];
    const cell = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : formatPercent(x));
    return [`${escapeMd(b.retriever)} / ${escapeMd(b.reranker)}`, ...majors.map((g) => cell(b.groups.get(g)?.metrics[key])), cell(all)];
  });
  return (
    `## ${key} by category\n\n` +
    `Queries grouped by the taxonomy major of their primary gold skill (the first judgement with the highest grade; query counts in the header), ×100.\n\n` +
    mdTable(header, rows, ['l', ...header.slice(1).map(() => 'r' as const)])
  );
}
