/**
 * Puts the paper's published numbers next to an experiment's own, when that is meaningful: the
 * dataset must be a pinned release (release-match.ts), and a run must have a published counterpart.
 *
 * Which runs are compared:
 * - first stage BM25 → the `BM25` row; a dense retriever whose model is an embedder preset with a
 *   `paperModel` → that model's row (first-stage tables of the release's version, e.g. v1.1-embedding);
 * - reranker `none` → the first stage's row; a reranker that is a reranker preset → its row in a
 *   rerank table over the same first stage at the same depth (paper Table 4: depth 20; Table 10:
 *   the `k=<depth>` column of NDCG@10). Saved runs, local models and other rerankers are not compared.
 * Settings that make a run differ from the paper's setup (BM25 k1/b, prompts, pooling, token limits,
 * an HNSW index, the document text) do not stop the comparison: they are listed as deviations.
 *
 * Δ = yours − published, in percentage points, where "yours" is the fraction ×100 rounded to 2
 * decimals as it is shown (so Δ is the difference of the two printed numbers), rounded to 2 decimals.
 */
import { SKILLRET_RELEASES, type SkillretRelease } from '../data/hub.js';
import { percentDeltaFromPublished } from '../metrics/official-percent.js';
import type { PaperCounterpart } from '../core/stages.js';
import { isModelReranker } from '../pipeline/config.js';
import { rerankerKind, retrieverKind } from '../pipeline/registry.js';
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import { matchPinnedRelease, type ReleaseMatch } from './release-match.js';
import { DEFAULT_TOLERANCES, describeTolerances, verdictOf, worstVerdict, type Tolerances, type Verdict } from '../metrics/verdict.js';
import { columnDecimals, findPaperRows, publishedCells, type PaperSplit, PAPER_SPLITS } from './results.js';
import { categoryPairing, type CategoryPairing } from './published-categories.js';
import { goldenComparisons, type GoldenComparison } from './published-golden.js';

export interface PaperMetricComparison {
  metric: string;
  /** This run's mean, as a fraction (unrounded). */
  yours: number;
  /** The published value, percent. */
  published: number;
  /** The decimals it was published with (its column's). */
  decimals: number;
  /** yours (percent, 2 decimals) − published, percentage points, 2 decimals. */
  delta: number;
  /** OK / close / FAIL by |delta| and the report's tolerances (verdict.ts). */
  verdict: Verdict;
}

export interface PaperRunComparison {
  retriever: string;
  reranker: string;
  /** Published table id and its source line. */
  table: string;
  source: string;
  /** The published row's model name. */
  row: string;
  /** Reranked runs: the published first stage and depth. */
  firstStage?: string;
  depth?: number;
  /** A single-metric table whose columns are settings (Table 11): the column paired. */
  column?: string;
  metrics: PaperMetricComparison[];
  /** How this run's setup differs from the paper's (empty when it follows it). */
  deviations: string[];
  /** The worst verdict of its metrics. */
  verdict: Verdict;
}

export interface PaperReport {
  match: ReleaseMatch;
  /** The release's version, when the paper has tables for it. */
  version: PaperSplit | undefined;
  runs: PaperRunComparison[];
  /** Deviations shared by every run (document text, dropped gold). */
  common: string[];
  /** The tolerances of every verdict. */
  tolerances: Tolerances;
  /** The worst verdict over the runs compared (OK when none is). */
  verdict: Verdict;
  /** Paper Tables 6 and 16: per-category cells and the group-size check (published-categories.ts); undefined when the version has none. */
  categories?: CategoryPairing;
  /** Rows published as stored fractions (the BM25 golden dict), paired at 5 decimals (published-golden.ts). */
  golden?: GoldenComparison[];
}

const PROTOCOL_FIELDS = ['name', 'description', 'skill_md'];
const PROTOCOL_SEPARATOR = ' | ';

type RetrieverConfig = ExperimentResult['config']['retrievers'][number];
type RerankerConfig = ExperimentResult['config']['rerankers'][number];

/** The paper's name for a first stage and how its settings differ (its kind says); undefined: not a paper model. */
function paperFirstStage(r: RetrieverConfig): PaperCounterpart | undefined {
  return retrieverKind(r.type).paperCounterpart?.(r);
}

/** The paper's name for a reranker and how its settings differ (its kind says); undefined: not a paper reranker. */
function paperReranker(r: RerankerConfig): PaperCounterpart | undefined {
  return isModelReranker(r) ? rerankerKind(r.type).paperCounterpart?.(r) : undefined;
}

/** Deviations of the dataset side from the protocol: the document text and dropped gold. */
export function datasetDeviations(d: { fields: readonly string[]; separator: string; skillMdField: string; droppedGoldPairs: number }): string[] {
  const out: string[] = [];
  if (d.fields.join('\u0000') !== PROTOCOL_FIELDS.join('\u0000') || d.separator !== PROTOCOL_SEPARATOR)
    out.push(`document text: ${d.fields.join(', ')} joined by ${JSON.stringify(d.separator)} (protocol: name, description, skill_md joined by " | ")`);
  if (d.skillMdField !== 'skill_md') out.push(`SKILL.md text from field ${d.skillMdField} (protocol skill_md)`);
  if (d.droppedGoldPairs > 0) out.push(`${d.droppedGoldPairs} gold pairs dropped`);
  return out;
}

/** Deviations that concern every run: the document text and the gold. */
function commonDeviations(res: ExperimentResult): string[] {
  const ds = res.config.dataset;
  return datasetDeviations({ fields: ds.text.fields, separator: ds.text.separator, skillMdField: ds.skill_md_field, droppedGoldPairs: res.dataset.stats.droppedGoldPairs });
}

/**
 * The published rows a run of a config may be compared with, in the order they are tried (the first
 * one with a published cell the run measured is used), with the run's paper counterparts; none when
 * the run has no published counterpart. The one rule of which published numbers belong to a run:
 * the comparison below and the expectations of configs/paper-*.yaml (test/paper-expectations.test.ts).
 */
export function publishedCounterparts(
  config: Pick<ExperimentResult['config'], 'retrievers' | 'rerankers' | 'dataset'>,
  run: { retriever: string; reranker: string },
  version: PaperSplit,
): { retriever: RetrieverConfig; fs: PaperCounterpart; rr: PaperCounterpart | undefined; depth: number | undefined; rows: { match: ReturnType<typeof findPaperRows>[number]; published: ReturnType<typeof publishedCells> }[] } | undefined {
  const retriever = config.retrievers.find((r) => r.id === run.retriever);
  const reranker = config.rerankers.find((r) => r.id === run.reranker);
  if (!retriever || !reranker) return undefined;
  const fs = paperFirstStage(retriever);
  if (!fs) return undefined;
  const rr = paperReranker(reranker);
  if (reranker.type !== 'none' && !rr) return undefined;
  // No oracle-pool numbers are published: an oracle run has no counterpart.
  if ('oracle' in reranker && reranker.oracle) return undefined;
  const depth = 'depth' in reranker ? reranker.depth : undefined;
  const rows = findPaperRows(version, fs.model, rr?.model, config.dataset.text).map((match) => ({ match, published: publishedCells(match, depth) }));
  return { retriever, fs, rr, depth, rows };
}

function compareRun(res: ExperimentResult, run: RunResult, version: PaperSplit, tolerances: Tolerances): PaperRunComparison | undefined {
  const counterparts = publishedCounterparts(res.config, run, version);
  if (!counterparts) return undefined;
  const { retriever, fs, rr, depth } = counterparts;
  for (const { match: m, published } of counterparts.rows) {
    const metrics: PaperMetricComparison[] = [];
    for (const [metric, { value, column }] of Object.entries(published)) {
      const yours = run.evaluation.aggregate[metric];
      if (yours === undefined || Number.isNaN(yours)) continue;
      const delta = percentDeltaFromPublished(yours, value);
      const d = delta === 0 ? 0 : delta;
      metrics.push({ metric, yours, published: value, decimals: columnDecimals(m.table, column), delta: d, verdict: verdictOf(d, tolerances) });
    }
    if (metrics.length === 0) continue;
    const deviations = [...fs.deviations, ...(rr?.deviations ?? [])];
    const maxK = Math.max(...metrics.map((x) => Number(x.metric.split('@')[1])));
    if (retriever.top_k < maxK) deviations.push(`top_k ${retriever.top_k} < ${maxK}: @${maxK} measured on a shorter list`);
    const firstStage = m.row.first_stage ?? m.table.first_stage;
    return {
      retriever: run.retriever,
      reranker: run.reranker,
      table: m.table.id,
      source: m.table.source,
      row: m.row.model,
      ...(rr && firstStage ? { firstStage: firstStage.model } : {}),
      ...(rr && depth !== undefined ? { depth } : {}),
      ...(m.column !== undefined ? { column: m.column } : {}),
      metrics,
      deviations,
      verdict: worstVerdict(metrics.map((x) => x.verdict)),
    };
  }
  return undefined;
}

/**
 * The comparison with the paper, or undefined when the dataset is not a pinned release (then the
 * published numbers do not apply). `releases` defaults to the pinned SkillRet releases.
 */
export function paperReport(
  res: ExperimentResult,
  releases: readonly SkillretRelease[] = SKILLRET_RELEASES,
  tolerances: Tolerances = DEFAULT_TOLERANCES,
): PaperReport | undefined {
  const match = matchPinnedRelease(res.dataset.files, releases);
  if (!match) return undefined;
  const version = PAPER_SPLITS.find((s) => s === match.release.version);
  const runs: PaperRunComparison[] = [];
  if (version !== undefined) {
    for (const run of res.runs) {
      const c = compareRun(res, run, version, tolerances);
      if (c) runs.push(c);
    }
  }
  const report: PaperReport = { match, version, runs, common: commonDeviations(res), tolerances, verdict: worstVerdict(runs.map((c) => c.verdict)) };
  return version === undefined ? report : { ...report, ...extraPairings(res, runs, version, tolerances) };
}

/**
 * The pairings beyond one row per run, for the first-stage runs paired with a first-stage table's
 * row: the per-category tables (6, 16) and the stored-fraction rows (golden dict). Left out when
 * there is nothing to show, so a release without such tables reports as before.
 */
function extraPairings(res: ExperimentResult, compared: readonly PaperRunComparison[], version: PaperSplit, tolerances: Tolerances): Pick<PaperReport, 'categories' | 'golden'> {
  const firstStage = compared.flatMap((c) => {
    const run = res.runs.find((r) => r.retriever === c.retriever && r.reranker === c.reranker);
    const reranker = res.config.rerankers.find((r) => r.id === c.reranker);
    if (!run || reranker?.type !== 'none' || c.column !== undefined) return [];
    return [{ retriever: c.retriever, reranker: c.reranker, paperRow: c.row, perQuery: run.evaluation.perQuery, aggregate: run.evaluation.aggregate }];
  });
  const evaluated = res.runs[0] ? [...res.runs[0].evaluation.perQuery.keys()] : [];
  const categories = categoryPairing(res.dataset, evaluated, firstStage, version, res.config.report.category_rule, tolerances);
  const golden = goldenComparisons(firstStage, version, tolerances);
  return { ...(categories ? { categories } : {}), ...(golden.length > 0 ? { golden } : {}) };
}

/** The `paper` block of one run's metrics.json, or undefined when that run has no published counterpart. */
export function paperJson(report: PaperReport | undefined, run: { retriever: string; reranker: string }): Record<string, unknown> | undefined {
  const c = report?.runs.find((x) => x.retriever === run.retriever && x.reranker === run.reranker);
  if (!report || !c) return undefined;
  const { release } = report.match;
  return {
    release: release.version,
    repo: release.repo,
    revision: release.revision,
    table: c.table,
    row: c.row,
    ...(c.firstStage !== undefined ? { first_stage: c.firstStage } : {}),
    ...(c.depth !== undefined ? { depth: c.depth } : {}),
    ...(c.column !== undefined ? { column: c.column } : {}),
    units: 'percent',
    published: Object.fromEntries(c.metrics.map((m) => [m.metric, m.published])),
    delta: Object.fromEntries(c.metrics.map((m) => [m.metric, m.delta])),
    verdict: Object.fromEntries(c.metrics.map((m) => [m.metric, m.verdict])),
    overall_verdict: c.verdict,
    tolerances: { ok_within: report.tolerances.ok, close_within: report.tolerances.close, rule: describeTolerances(report.tolerances) },
    deviations: [...report.common, ...c.deviations],
    ...extraJson(report, run),
  };
}

/** The per-category and stored-fraction pairings of one run for its `paper` block (none: nothing added). */
function extraJson(report: PaperReport, run: { retriever: string; reranker: string }): Record<string, unknown> {
  const mine = <T extends { retriever: string; reranker: string }>(xs: readonly T[] | undefined) => (xs ?? []).filter((x) => x.retriever === run.retriever && x.reranker === run.reranker);
  const out: Record<string, unknown> = {};
  const cats = mine(report.categories?.runs);
  if (report.categories && cats.length > 0) {
    out.categories = {
      rule: report.categories.rule,
      group_sizes: report.categories.sizes.map((s) => ({ table: s.table, rule: s.rule, match: s.match[s.rule], published_total: s.publishedTotal, total: s.totals[s.rule] })),
      tables: cats.map((c) => ({
        table: c.table,
        row: c.row,
        slice: c.slice,
        published: Object.fromEntries(c.cells.map((x) => [x.column, x.published])),
        queries: Object.fromEntries(c.cells.map((x) => [x.column, x.queries ?? null])),
        delta: Object.fromEntries(c.cells.map((x) => [x.column, x.delta ?? null])),
        verdict: Object.fromEntries(c.cells.map((x) => [x.column, x.verdict])),
        overall_verdict: c.verdict,
      })),
    };
  }
  const golden = mine(report.golden);
  if (golden.length > 0) {
    out.stored_fractions = golden.map((g) => ({
      table: g.table,
      row: g.row,
      published: Object.fromEntries(g.cells.map((x) => [x.metric, x.published])),
      yours: Object.fromEntries(g.cells.map((x) => [x.metric, x.yours])),
      delta: Object.fromEntries(g.cells.map((x) => [x.metric, x.delta])),
      exact: `${g.exact}/${g.cells.length}`,
      verdict: Object.fromEntries(g.cells.map((x) => [x.metric, x.verdict])),
      overall_verdict: g.verdict,
    }));
  }
  return out;
}
