/**
 * The results folder contract:
 *   <output>/<retriever>/<reranker>/{metrics.json, run.trec, per-query.jsonl, breakdown.json, operating-points.json}
 *   <output>/summary.md, <output>/manifest.json, <output>/{queries,skills}.jsonl (explorer-files.ts),
 *   <output>/gates.json (report/gates.ts; only when the experiment has expectations)
 *   written later into a run folder: explain.jsonl, explain.json (`explain`), mask.json (`explain --mask`)
 * Every file is written atomically. Everything but manifest.json is a pure
 * function of config + data, so reruns are byte-identical.
 */
import { formatOfficialResult } from '../formats/official-json.js';
import { join } from 'node:path';
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import type { Report } from '../analysis/report.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic.js';
import { RESULTS_FILE_NAMES } from '../formats/results-file-names.js';
import { faultPoint } from '../util/fault.js';
import { escapeControl } from '../util/terminal-text.js';
import { formatTrecRun } from '../formats/trec-run.js';
import { roundHalfEven } from '../util/python-round.js';
import { PER_QUERY_FILE } from '../formats/per-query-jsonl.js';
import { METRICS, MANIFEST } from '../formats/results-reader.js';
import type { ReportInput, ReportRun } from '../formats/report-input.js';
import type { QueryInfo, SkillInfo } from '../formats/explorer-files.js';
import type { RunRecords } from '../analysis/per-query-records.js';
import { renderSummary } from './summary.js';
import { breakdownJson } from './breakdown.js';
import { operatingPointsJson } from './operating-points.js';
import { QUERIES_FILE, queriesJsonl, SKILLS_FILE, skillsJsonl } from './explorer-files.js';
import { paperJson } from '../paper/published-vs-measured.js';
import { peakRssBytes, toolInfo } from '../pipeline/manifest.js';
import { sha256Hex, stableStringify } from '../util/hash.js';
import { measureKey } from '../metrics/measures.js';
import { GATES_FILE, gatesJson } from './gates.js';
import { SIBLINGS_FILE, siblingsJson } from './siblings.js';

const r5 = (x: number) => roundHalfEven(x, 5);

function roundAll(m: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) out[k] = r5(v);
  return out;
}

/** The names of every file this tool writes into a results folder (`run`, `report`, `explain`). */
export { RESULTS_FILE_NAMES };

/** A file of a results folder this tool did not write (a user's notes): kept across reruns. */
export const isUserFile = (rel: string): boolean => !RESULTS_FILE_NAMES.has(rel.split('/').pop()!);

export function runDir(output: string, r: { retriever: string; reranker: string }): string {
  return join(output, r.retriever, r.reranker);
}

/** `{docs_not_in_corpus: n}` for a saved-run first stage (documents of the file the corpus lacks), else nothing. */
function docsNotInCorpus(res: ExperimentResult, retriever: string): { docs_not_in_corpus?: number } {
  const n = res.stages.find((s) => s.kind === 'retrieval' && s.id === retriever)?.info['docs_not_in_corpus'];
  return typeof n === 'number' ? { docs_not_in_corpus: n } : {};
}

/**
 * The metrics.json object of one run. A `paper` block (published values, deltas in points and
 * verdicts) is added only when the dataset is one of the report's pinned releases and the run has a
 * published counterpart (src/paper/published-vs-measured.ts).
 */
export function metricsJson(report: Report, r: RunResult): Record<string, unknown> {
  const res = report.result;
  const e = r.evaluation;
  const keys = res.measures.map(measureKey);
  const metrics: Record<string, number> = {};
  for (const k of keys) metrics[k] = r5(e.aggregate[k] ?? 0);
  const retriever = res.config.retrievers.find((x) => x.id === r.retriever)!;
  const out: Record<string, unknown> = {
    experiment: res.config.name,
    retriever: r.retriever,
    reranker: r.reranker,
    split: res.dataset.split,
    dataset: {
      ...(res.config.dataset.hub ? { hub: `${res.config.dataset.hub.repo}@${res.config.dataset.hub.revision}` } : {}),
      files: res.dataset.files.map((f) => ({ role: f.role, sha256: f.sha256, bytes: f.bytes, records: f.records })),
    },
    evaluation: { policy: res.dataset.evaluation, gold: res.dataset.goldSource === 'qrels' ? 'qrels' : 'query records (labels / skill_ids)' },
    queries: e.counts.evaluated,
    metrics,
    ...(r.binaryGold && report.paper ? { hub_path_metrics: Object.fromEntries(keys.map((k) => [k, r5(r.binaryGold![k] ?? 0)])) } : {}),
    counts: {
      evaluated: e.counts.evaluated,
      empty_rankings: e.counts.emptyRankings,
      more_gold_than_k: e.counts.moreGoldThanK,
      queries_without_gold_skipped: res.dataset.evaluation === 'official' ? 0 : res.dataset.stats.queriesWithoutGold.length,
      ...(res.dataset.evaluation === 'official' ? { queries_without_gold_scored_zero: res.dataset.stats.queriesWithoutGold.length } : {}),
      ...(res.dataset.stats.queriesWithoutRelevant.length ? { queries_without_relevant_scored_zero: res.dataset.stats.queriesWithoutRelevant.length } : {}),
      gold_pairs_dropped: res.dataset.stats.droppedGoldPairs,
      ...(res.dataset.stats.unknownGoldKept ? { unknown_gold_kept: res.dataset.stats.unknownGoldKept } : {}),
      ...(res.dataset.stats.skillsFilteredOut ? { skills_filtered_out: res.dataset.stats.skillsFilteredOut } : {}),
      ...(res.dataset.stats.goldDisagreement?.length ? { qrels_skill_ids_disagreements: res.dataset.stats.goldDisagreement.length } : {}),
      skills: res.dataset.skills.length,
      skill_md_fallbacks: res.dataset.stats.skillMdFallbacks,
    },
    first_stage: { type: retriever.type, top_k: retriever.top_k, ...docsNotInCorpus(res, r.retriever) },
  };
  if (r.approximation) {
    out.approximation = {
      index: 'hnsw',
      overlap: roundAll(r.approximation.overlap),
      exact_metrics: roundAll(r.approximation.exact),
      delta: roundAll(r.approximation.delta),
    };
  }
  if (r.onOff) {
    const a = r.onOff.attribution;
    out.reranking = {
      depth: r.onOff.depth,
      note: `the reranked list holds only the first-stage top ${r.onOff.depth}; metrics @k are measured inside it`,
      ceiling: roundAll(r.onOff.ceiling),
      versus: `${r.retriever}/none`,
      attribution: roundDeep(a),
    };
  }
  const paper = paperJson(report.paper, r);
  if (paper) out.paper = paper;
  return out;
}

/** Rounds every non-integer number in a JSON-like value to 5 decimals. */
function roundDeep(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) || !Number.isFinite(v) ? v : r5(v);
  if (Array.isArray(v)) return v.map(roundDeep);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = roundDeep(x);
    return out;
  }
  return v;
}

/**
 * per-query.jsonl: one line per evaluated query, in dataset order, spelling the run's per-query
 * records (analysis/per-query-records.ts). A reranked run also carries `vs_none`: on − off for every
 * metric of that query (against `<retriever>/none`).
 */
export function perQueryJsonl(records: RunRecords): string {
  const lines: string[] = [];
  for (const [id, rec] of records.records) {
    const row: Record<string, unknown> = { id, metrics: rec.metrics, gold: rec.gold };
    if (rec.relevance) row.relevance = rec.relevance;
    row.retrieved = rec.retrieved;
    if (rec.vsNone) row.vs_none = rec.vsNone;
    lines.push(JSON.stringify(row));
  }
  return lines.join('\n') + (lines.length ? '\n' : '');
}

export interface ManifestExtras {
  startedAt: string;
  finishedAt: string;
  cacheDir: string;
  useCache: boolean;
  offline: boolean;
  totalSeconds: number;
  /** Tags the runs are recorded with in the results history (written to the manifest when any). */
  tags?: readonly string[];
}

export function manifestJson(res: ExperimentResult, extras: ManifestExtras): Record<string, unknown> {
  const { text, file, ...resolved } = res.config;
  return {
    tool: toolInfo(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    started_at: extras.startedAt,
    finished_at: extras.finishedAt,
    config: { file, sha256: sha256Hex(text), resolved_sha256: sha256Hex(stableStringify(resolved)), resolved },
    dataset: {
      dir: res.dataset.dir,
      split: res.dataset.split,
      gold_source: res.dataset.goldSource,
      files: res.dataset.files,
      skills: res.dataset.skills.length,
      queries: res.dataset.queries.length,
      stats: res.dataset.stats,
    },
    cache: { dir: extras.useCache ? extras.cacheDir : null, enabled: extras.useCache },
    offline: extras.offline,
    stages: res.stages,
    runs: res.runs.map((r) => ({ retriever: r.retriever, reranker: r.reranker, dir: `${r.retriever}/${r.reranker}` })),
    timings_seconds: { ...res.timings, total: extras.totalSeconds },
    peak_rss_bytes: peakRssBytes(),
    peak_rss_mib_after: res.peakRssMib,
    ...(extras.tags?.length ? { tags: [...extras.tags] } : {}),
    ...(res.tuning?.length ? { tuning: res.tuning } : {}),
  };
}

/**
 * The results folder of `report` as values, as formats/report-input.ts would read it back: each
 * run's per-query records, metrics.json, breakdown.json and operating-points.json, the manifest
 * and the explorer files' queries and skills. Paths are those under the config's output.
 */
export interface ResultsFolder {
  input: ReportInput;
  /** Per run (run order): its metrics.json, breakdown.json and operating-points.json objects. */
  files: { metrics: Record<string, unknown>; breakdown: Record<string, unknown>; operatingPoints: Record<string, unknown> }[];
  queries: QueryInfo[];
  skills: SkillInfo[];
  manifest: Record<string, unknown>;
}

export function resultsFolder(report: Report, extras: ManifestExtras): ResultsFolder {
  const res = report.result;
  const output = res.config.output;
  const manifest = manifestJson(res, extras);
  const { queries, skills } = report;
  const files = res.runs.map((r, i) => ({ metrics: metricsJson(report, r), breakdown: breakdownJson(report, report.slices[i]!), operatingPoints: operatingPointsJson(r) }));
  const runs: ReportRun[] = res.runs.map((r, i) => {
    const rec = report.records[i]!;
    return {
      file: rec.file,
      records: rec.records,
      line: rec.line,
      firstKeys: rec.firstKeys,
      dir: runDir(output, r),
      label: rec.label,
      retriever: r.retriever,
      reranker: r.reranker,
      experiment: res.config.name,
      metricsJson: files[i]!.metrics,
      resultsDir: output,
      breakdown: files[i]!.breakdown,
      insight: { label: rec.label, operatingPoints: files[i]!.operatingPoints },
    };
  });
  const input: ReportInput = {
    folders: [{ dir: output, name: res.config.name, manifest }],
    runs,
    queries: new Map(queries.map((q) => [q.id, q])),
    skills: new Map(skills.map((s) => [s.id, s])),
  };
  return { input, files, queries, skills, manifest };
}

/**
 * Writes every file of the results folder into `opts.dir` (default: the config's output; `run`
 * passes a staging folder that is swapped in whole when complete, see util/staged-folder.ts).
 * Returns the summary.md text and the folder as values (what report.html is built from).
 */
export function writeResults(report: Report, extras: ManifestExtras, opts: { dir?: string } = {}): { summary: string; folder: ResultsFolder } {
  const res = report.result;
  const out = opts.dir ?? res.config.output;
  const folder = resultsFolder(report, extras);
  const queryOrder = res.dataset.queries.map((q) => q.id);
  res.runs.forEach((r, i) => {
    const dir = runDir(out, r);
    const { spelled } = report.records[i]!; // each ranking sorted and each score spelled once for the three files
    const f = folder.files[i]!;
    writeFileAtomic(join(dir, 'run.trec'), formatTrecRun(r.run, `${r.retriever}.${r.reranker}`, queryOrder, spelled));
    writeFileAtomic(join(dir, PER_QUERY_FILE), perQueryJsonl(report.records[i]!));
    writeFileAtomic(join(dir, 'official.json'), formatOfficialResult(res.dataset.split, r.evaluation.aggregate, res.config.k, r.run, queryOrder, spelled));
    writeJsonAtomic(join(dir, METRICS), f.metrics);
    writeJsonAtomic(join(dir, 'breakdown.json'), f.breakdown);
    writeJsonAtomic(join(dir, 'operating-points.json'), f.operatingPoints);
    if (i === 0) faultPoint('writing');
  });
  writeFileAtomic(join(out, QUERIES_FILE), queriesJsonl(folder.queries));
  writeFileAtomic(join(out, SKILLS_FILE), skillsJsonl(folder.skills));
  if (report.siblings) writeJsonAtomic(join(out, SIBLINGS_FILE), siblingsJson(report.siblings));
  // Whatever a renderer missed, no control character reaches the file (newlines are the format's).
  const summary = escapeControl(renderSummary(report));
  writeFileAtomic(join(out, 'summary.md'), summary);
  if (report.gates) writeJsonAtomic(join(out, GATES_FILE), gatesJson(report.gates));
  writeJsonAtomic(join(out, MANIFEST), folder.manifest);
  return { summary, folder };
}
