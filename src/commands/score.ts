/**
 * `skillret-eval score`: scores an existing run file (TREC or official JSON) against qrels (a TREC
 * qrels file, a SkillRet qrels JSONL file, or a dataset folder) and returns the text to print.
 *
 * JSON output (2-space indent, trailing newline):
 *   {"queries": N, "metrics": {"NDCG@5": 0.46474, ...}, "means": {"NDCG@5": 0.4647412…, ...},
 *    "counts": {...}, "ids": {...}, "per_query"?: {qid: {"NDCG@5": …, ...}}}
 * metrics in key order, each the mean fraction rounded like Python's round(x, 5); `means` the same
 * means unrounded (every bit of the double, to set beside trec_eval's `%.17g`); counts are numbers,
 * `ids` lists the skipped / flagged query ids; `per_query` (with `--per-query`) every evaluated
 * query's unrounded values, in qrels order (trec_eval's `-q`). Table output: one row per measure, the mean x100 with
 * 2 decimals (Python's f"{x*100:.2f}", right-aligned), then one line of counts and, if any, warnings.
 */
import { UserError } from '../core/errors.js';
import type { Evaluation } from '../metrics/evaluate.js';
import { measureKey } from '../metrics/measures.js';
import { formatPercent } from '../metrics/official-percent.js';
import { roundHalfEven } from '../util/python-round.js';
import { scoreRun } from '../api/score.js';
import { gatesJson, renderGateSection } from '../report/gates.js';
import { TERMINAL } from '../report/medium.js';

export interface ScoreOptions {
  /** TREC qrels file, SkillRet qrels JSONL file, or dataset folder (`<dir>/qrels/<split>.jsonl` ...). */
  qrels: string;
  /** TREC run file or official JSON run / result file. */
  run: string;
  /** Cutoffs for the default measures (ignored when `measures` is given). */
  k: number[];
  format: 'table' | 'json';
  /** Split of a dataset folder and of an official result file's `retrieval`. */
  split: string;
  /** Explicit measures (e.g. ["NDCG@10", "P@5"]), in output order; default: all measures at `k`. */
  measures?: string[];
  /** JSON only: add every evaluated query's values (`per_query`). */
  perQuery?: boolean;
  /** `--expect FILE`: expectations on the run's metrics. */
  expect?: string;
  /** `--junit FILE`: the gates as JUnit XML. */
  junit?: string;
}

/** The JSON document of a score (see the module comment). */
export function scoreJson(e: Evaluation, extraNoRelevant: readonly string[] = [], perQuery = false): string {
  const metrics: Record<string, number> = {};
  const means: Record<string, number> = {};
  for (const m of e.measures) {
    const key = measureKey(m);
    metrics[key] = roundHalfEven(e.aggregate[key]!, 5);
    means[key] = e.aggregate[key]!;
  }
  const c = e.counts;
  const noRelevant = [...c.noRelevant, ...extraNoRelevant];
  const doc = {
    queries: c.evaluated,
    metrics,
    means,
    counts: {
      evaluated: c.evaluated,
      qrels_queries: c.qrelsQueries + extraNoRelevant.length,
      missing_from_run: c.missingFromRun.length,
      not_in_qrels: c.notInQrels.length,
      empty_rankings: c.emptyRankings,
      no_relevant: noRelevant.length,
      more_gold_than_k: c.moreGoldThanK,
      query_id_as_doc: c.queryIdAsDoc.length,
    },
    ids: {
      missing_from_run: c.missingFromRun,
      not_in_qrels: c.notInQrels,
      no_relevant: noRelevant,
      query_id_as_doc: c.queryIdAsDoc,
    },
    ...(perQuery ? { per_query: Object.fromEntries(e.perQuery) } : {}),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

function examples(ids: readonly string[], max = 5): string {
  const shown = ids.slice(0, max).join(', ');
  return ids.length > max ? `${shown}, ... (${ids.length} in all)` : shown;
}

/** The table of a score (see the module comment). */
export function scoreTable(e: Evaluation, extraNoRelevant: readonly string[] = []): string {
  const keys = e.measures.map(measureKey);
  const width = Math.max('measure'.length, ...keys.map((k) => k.length)) + 2;
  const lines: string[] = [`${'measure'.padEnd(width)}${'x100'.padStart(6)}`];
  for (const key of keys) lines.push(`${key.padEnd(width)}${formatPercent(e.aggregate[key]!).padStart(6)}`);
  const c = e.counts;
  const noRelevant = [...c.noRelevant, ...extraNoRelevant];
  const gold = Object.entries(c.moreGoldThanK)
    .map(([k, n]) => `@${k} ${n}`)
    .join(', ');
  lines.push(
    `queries: ${c.evaluated} evaluated (of ${c.qrelsQueries + extraNoRelevant.length} in qrels); ` +
      `missing from run ${c.missingFromRun.length}; not in qrels ${c.notInQrels.length}; ` +
      `empty rankings ${c.emptyRankings}; no relevant judgement ${noRelevant.length}${gold !== '' ? `; more gold than k: ${gold}` : ''}`,
  );
  if (c.missingFromRun.length > 0) {
    lines.push(`note: queries missing from the run are skipped, not scored 0: ${examples(c.missingFromRun)}`);
  }
  if (noRelevant.length > 0) lines.push(`note: queries without a relevant judgement score 0 (as in trec_eval): ${examples(noRelevant)}`);
  if (c.queryIdAsDoc.length > 0) {
    lines.push(`warning: rankings contain a document whose id equals the query id (scored as ordinary documents): ${examples(c.queryIdAsDoc)}`);
  }
  return lines.join('\n') + '\n';
}

export async function scoreCommand(o: ScoreOptions): Promise<string> {
  return (await scoreCommandWithGates(o)).text;
}

/**
 * The text for stdout and one line per failed gate (the CLI prints them on stderr and exits 1). With
 * `--expect`, the table is followed by the gate table and the JSON gets `gates` (gates.json's
 * object); with $GITHUB_STEP_SUMMARY set too, the measures and the gate table are appended to it.
 */
export async function scoreCommandWithGates(o: ScoreOptions): Promise<{ text: string; gateFailures: string[] }> {
  if (o.format !== 'table' && o.format !== 'json') {
    throw new UserError(`--format: expected table or json, got ${JSON.stringify(o.format)}`);
  }
  if (o.perQuery === true && o.format !== 'json') throw new UserError('--per-query: needs --format json');
  const step = process.env.GITHUB_STEP_SUMMARY;
  const { evaluation, queriesWithoutGold, gates, gateFailures } = await scoreRun({ ...o, ...(step ? { stepSummary: step } : {}) });
  let text: string;
  if (o.format === 'json') {
    text = scoreJson(evaluation, queriesWithoutGold, o.perQuery === true);
    if (gates) text = JSON.stringify({ ...(JSON.parse(text) as Record<string, unknown>), gates: gatesJson(gates) }, null, 2) + '\n';
  } else {
    text = scoreTable(evaluation, queriesWithoutGold) + (gates ? renderGateSection(gates, TERMINAL) : '');
  }
  return { text, gateFailures };
}
