/**
 * summary.md: the paper-shaped table (rows = runs; NDCG, Recall, Completeness
 * at each k, ×100, 2 decimals), the reranker on/off table with significance and
 * the first-stage ceiling, the HNSW approximation audit and the cost of each stage; the published
 * results of the paper next to the runs' with verdicts (pinned releases only, report/paper.ts) and
 * the query slices (report/breakdown.ts). Formatting only: every number comes from the Report
 * (src/analysis/report.ts).
 */
import type { Report } from '../analysis/report.js';
import type { ExperimentResult, StageRecord } from '../pipeline/experiment.js';
import { relative } from 'node:path';
import { escapeMd, mdTable } from './markdown.js';
import { formatFixed, formatPercentDelta } from '../metrics/round.js';
import { renderPaperSection } from './paper.js';
import { renderSliceSection } from './breakdown.js';
import { renderStrategySection, runName } from './strategies.js';
import { renderOperatingPointsSection } from './operating-points.js';
import { pct, pval, signedPct } from './cells.js';
import { plural } from '../util/plural.js';


function num(v: unknown, digits = 1): string {
  return typeof v === 'number' && Number.isFinite(v) ? formatFixed(v, digits) : '–';
}

function costRow(s: StageRecord): string[] {
  const info = s.info as Record<string, unknown>;
  const thr = (info.throughput ?? {}) as Record<string, unknown>;
  const trunc = (info.truncation ?? {}) as Record<string, unknown>;
  const cache = (info.cache ?? {}) as Record<string, unknown>;
  const rate: string[] = [];
  if (typeof thr.docsPerSec === 'number') rate.push(`${num(thr.docsPerSec)} docs/s`);
  if (typeof thr.tokensPerSec === 'number') rate.push(`${num(thr.tokensPerSec, 0)} tokens/s`);
  const allCached = typeof info.pairs === 'number' && info.cachedPairs === info.pairs;
  if (typeof info.pairsPerSecond === 'number' && !allCached) rate.push(`${num(info.pairsPerSecond)} pairs/s`);
  let truncation = '–';
  if (typeof trunc.documentsTruncated === 'number' && typeof trunc.documentsTotal === 'number' && trunc.documentsTotal > 0)
    truncation = `${trunc.documentsTruncated}/${trunc.documentsTotal} (${formatFixed((100 * trunc.documentsTruncated) / trunc.documentsTotal, 1)}%)`;
  else if (typeof info.truncatedPairs === 'number' && typeof info.pairs === 'number' && info.pairs > 0 && !allCached) {
    const scored = info.pairs - (typeof info.cachedPairs === 'number' ? info.cachedPairs : 0);
    truncation = `${info.truncatedPairs}/${scored} scored pairs`;
  }
  let hits = '–';
  if (cache.stage === 'hit') hits = 'stage output reused';
  else if (typeof cache.hits === 'number') hits = `${cache.hits} hit / ${cache.misses ?? 0} miss`;
  else if (info.runCache === true) hits = 'hits reused';
  else if (info.cache === 'hit') hits = 'index reused';
  else if (info.cache === 'miss' || info.cache === 'off') hits = 'index built';
  else if (typeof info.cachedPairs === 'number' && typeof info.pairs === 'number') hits = `${info.cachedPairs} / ${info.pairs} pairs cached`;
  const name = s.kind === 'rerank' ? `${escapeMd(s.id)} over ${escapeMd(s.over ?? '')}` : escapeMd(s.id);
  return [s.kind, name, num(s.seconds, 2), rate.join(', ') || '–', truncation, hits];
}

export function renderSummary(report: Report): string {
  const res = report.result;
  const { config, dataset } = res;
  const ks = config.k;
  const out: string[] = [];
  out.push(`# ${escapeMd(config.name)}\n`);
  if (config.description) out.push(`${escapeMd(config.description)}\n`);
  const files = dataset.files.map((f) => `${f.role} ${plural(f.records, 'record')}, sha256 ${f.sha256.slice(0, 12)}…`).join('; ');
  out.push(
    `Dataset ${escapeMd(relative(config.output, dataset.dir) || '.')} (relative to this folder), split **${escapeMd(dataset.split)}**: ${plural(dataset.skills.length, 'skill')}, ${plural(dataset.queries.length, 'query', 'queries')} with gold (${files}). Metrics follow trec_eval semantics (ties by doc id descending), ×100, 2 decimals.\n`,
  );

  // Main table.
  const cols = [...ks.map((k) => `NDCG@${k}`), ...ks.map((k) => `Recall@${k}`), ...ks.map((k) => `Completeness@${k}`)];
  const rows = res.runs.map((r) => [runName(res, r), ...cols.map((c) => pct(r.evaluation.aggregate[c]))]);
  out.push('## Results\n');
  out.push(mdTable(['Run', ...cols], rows, ['l', ...cols.map(() => 'r' as const)]));

  // Published numbers with verdicts (pinned releases only) and the query slices.
  out.push(renderPaperSection(report.paper, res.measures.map((m) => `${m.name}@${m.k}`), report.releases));
  const slices = renderSliceSection(report);
  if (slices) out.push(slices);

  const strategies = renderStrategySection(res);
  if (strategies) out.push(strategies);

  const matrix = renderRerankMatrix(res, ks.includes(10) ? 10 : ks[0]!);
  if (matrix) out.push(matrix);

  // Reranker on/off.
  const reranked = res.runs.filter((r) => r.onOff);
  if (reranked.length) {
    const key = reranked[0]!.onOff!.attribution.primaryKey;
    out.push('\n## Reranker on/off\n');
    out.push(
      `Each reranked run against the same retriever without a reranker, per query (paired). Δ = on − off (×100); p: two-sided randomisation test (seed ${config.stats.seed}, ${config.stats.iterations} iterations) and paired t-test; CI: 95% bootstrap of the mean Δ. Helped/hurt/unchanged by ${escapeMd(key)}. Ceiling: first-stage Recall and Completeness at the rerank depth, the best any reranker over that pool can reach.\n`,
    );
    const header = ['Retriever', 'Reranker', 'Metric', 'Off', 'On', 'Δ', 'p (rand.)', 'p (t)', '95% CI of Δ', 'Helped / hurt / same', 'Ceiling R@N / C@N'];
    const body: string[][] = [];
    for (const r of reranked) {
      const a = r.onOff!.attribution;
      const N = r.onOff!.depth;
      const shown = [`NDCG@${ks.includes(10) ? 10 : ks[0]}`, `Recall@${ks.includes(10) ? 10 : ks[0]}`, `Completeness@${ks.includes(10) ? 10 : ks[0]}`];
      shown.forEach((m, i) => {
        const s = a.metrics[m];
        if (!s) return;
        body.push([
          i === 0 ? escapeMd(r.retriever) : '',
          i === 0 ? `${escapeMd(r.reranker)}${r.onOff!.oracle ? ' (oracle pool)' : ''}` : '',
          m,
          pct(s.base),
          pct(s.treated),
          formatPercentDelta(s.base, s.treated),
          pval(s.randomization.pValue),
          pval(s.tTest.pValue),
          `[${signedPct(s.bootstrap.low)}, ${signedPct(s.bootstrap.high)}]`,
          i === 0 ? `${a.counts.helped} / ${a.counts.hurt} / ${a.counts.unchanged}` : '',
          i === 0 ? `${pct(r.onOff!.ceiling[`Recall@${N}`])} / ${pct(r.onOff!.ceiling[`Completeness@${N}`])} (N=${N})` : '',
        ]);
      });
    }
    out.push(mdTable(header, body, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
    const hurtLines: string[] = [];
    for (const r of reranked) {
      const worst = r.onOff!.attribution.worst.filter((w) => w.delta < 0);
      if (!worst.length) continue;
      hurtLines.push(
        `- ${escapeMd(r.retriever)} / ${escapeMd(r.reranker)}: ` +
          worst.map((w) => `${escapeMd(w.qid)} (${pct(w.base)} → ${pct(w.treated)})`).join(', '),
      );
    }
    if (hurtLines.length) out.push(`\nQueries the reranker hurt most (${escapeMd(key)}, off → on):\n\n${hurtLines.join('\n')}\n`);
  }

  out.push(renderOperatingPointsSection(res));

  // HNSW audit.
  const approx = res.runs.filter((r) => r.approximation);
  if (approx.length) {
    out.push('\n## Approximate index audit (HNSW vs exact top-k)\n');
    const oks = Object.keys(approx[0]!.approximation!.overlap);
    const k10 = ks.includes(10) ? 10 : ks[0]!;
    const dcols = [`NDCG@${k10}`, `Recall@${k10}`, `Completeness@${k10}`];
    const header = ['Retriever', ...oks.map((k) => `overlap@${k}`), ...dcols.map((c) => `Δ ${c}`)];
    const body = approx.map((r) => [
      escapeMd(r.retriever),
      ...oks.map((k) => formatFixed(r.approximation!.overlap[k] ?? NaN, 4)),
      ...dcols.map((c) => formatPercentDelta(r.approximation!.exact[c] ?? NaN, r.evaluation.aggregate[c] ?? NaN)),
    ]);
    out.push(mdTable(header, body, ['l', ...header.slice(1).map(() => 'r' as const)]));
  }

  // Cost.
  if (res.stages.length) {
    out.push('\n## Cost\n');
    out.push(mdTable(['Stage', 'Id', 'Seconds', 'Throughput', 'Truncated', 'Cache'], res.stages.map(costRow), ['l', 'l', 'r', 'l', 'r', 'l']));
  }

  // Notes.
  const notes: string[] = [];
  for (const st of res.stages) {
    const n = st.kind === 'retrieval' ? st.info['docs_not_in_corpus'] : undefined;
    if (typeof n === 'number' && n > 0)
      notes.push(`${escapeMd(st.id)}: ${plural(n, 'retrieved document')} of the saved run ${n === 1 ? 'is' : 'are'} not in the corpus (scored as non-relevant; never reranked).`);
  }
  const first = res.runs[0]?.evaluation.counts;
  if (first) {
    for (const [k, n] of Object.entries(first.moreGoldThanK))
      if (n > 0) notes.push(`${plural(n, 'query', 'queries')} with more gold skills than ${k}: never complete at @${k}.`);
  }
  for (const r of res.runs) if (r.evaluation.counts.emptyRankings > 0) notes.push(`${escapeMd(r.retriever)} / ${escapeMd(r.reranker)}: ${plural(r.evaluation.counts.emptyRankings, 'query', 'queries')} retrieved nothing (scored 0).`);
  const st = dataset.stats;
  if (dataset.evaluation === 'official')
    notes.push(`Evaluation policy official: gold from the query records, every query counted${st.queriesWithoutGold.length ? ` (${plural(st.queriesWithoutGold.length, 'query', 'queries')} without gold scored 0)` : ''}${st.unknownGoldKept ? `, ${plural(st.unknownGoldKept, 'gold pair')} outside the corpus kept (never retrievable)` : ''}.`);
  else if (st.queriesWithoutGold.length) notes.push(`${plural(st.queriesWithoutGold.length, 'query', 'queries')} without gold skipped (trec_eval policy).`);
  if (st.queriesWithoutRelevant.length) notes.push(`${plural(st.queriesWithoutRelevant.length, 'query', 'queries')} judged with no relevant skill: scored 0, as trec_eval does.`);
  if (st.skillsFilteredOut) notes.push(`skill_filter: ${plural(st.skillsFilteredOut, 'skill')} left out of the searched corpus (${dataset.skills.length} searched).`);
  if (st.goldDisagreement?.length)
    notes.push(`The qrels file and the queries' skill_ids disagree on ${plural(st.goldDisagreement.length, 'query', 'queries')} (e.g. ${escapeMd(st.goldDisagreement[0]!)}); gold used: ${dataset.goldSource === 'qrels' ? 'qrels' : 'skill_ids'}.`);
  if (dataset.stats.droppedGoldPairs) notes.push(`${plural(dataset.stats.droppedGoldPairs, 'gold pair')} naming skills outside the corpus dropped.`);
  if (dataset.stats.skillMdFallbacks)
    notes.push(`${plural(dataset.stats.skillMdFallbacks, 'skill')} had no SKILL.md text; the description stands in (official fallback).`);
  for (const s of res.stages) {
    const info = s.info as Record<string, unknown>;
    const model = (info.model ?? {}) as Record<string, unknown>;
    for (const w of [info.warning, model.warning]) if (typeof w === 'string' && w !== '') notes.push(`${escapeMd(s.id)}: ${escapeMd(w)}`);
  }
  if (notes.length) out.push(`\n## Notes\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`);
  return out.join('\n');
}

/**
 * The rerank matrix (paper Table 10's shape): per retriever and reranker group, NDCG@k of the first
 * stage alone, after reranking each depth, and over the oracle pool. Only when some reranker runs at
 * more than one depth or with an oracle pool.
 */
function renderRerankMatrix(res: ExperimentResult, k: number): string | undefined {
  const entries = res.config.rerankers.filter((r): r is Extract<typeof r, { group: string }> => 'group' in r);
  const groups = [...new Set(entries.map((r) => r.group))];
  const multi = groups.filter((g) => entries.filter((r) => r.group === g).length > 1 || entries.some((r) => r.group === g && r.oracle));
  if (multi.length === 0) return undefined;
  const depths = [...new Set(entries.filter((r) => multi.includes(r.group) && !r.oracle).map((r) => r.depth))].sort((a, b) => a - b);
  const oracleDepths = [...new Set(entries.filter((r) => multi.includes(r.group) && r.oracle).map((r) => r.depth))].sort((a, b) => a - b);
  const key = `NDCG@${k}`;
  const header = ['Retriever', 'Reranker', 'First stage only', ...depths.map((d) => `k=${d}`), ...oracleDepths.map((d) => `oracle k=${d}`)];
  const body: string[][] = [];
  for (const ret of res.config.retrievers) {
    const base = res.runs.find((x) => x.retriever === ret.id && x.onOff)?.onOff?.base.aggregate[key];
    for (const g of multi) {
      const cell = (d: number, oracle: boolean) => {
        const e = entries.find((r) => r.group === g && r.depth === d && r.oracle === oracle);
        const run = e && res.runs.find((x) => x.retriever === ret.id && x.reranker === e.id);
        return run ? pct(run.evaluation.aggregate[key]) : '–';
      };
      body.push([escapeMd(ret.id), escapeMd(g), pct(base), ...depths.map((d) => cell(d, false)), ...oracleDepths.map((d) => cell(d, true))]);
    }
  }
  return (
    `\n## Rerank matrix (${key})\n\n` +
    `Each reranker over the first stage's top k (one run per depth, results folders \`<retriever>/<reranker>-k<depth>\`), ` +
    `and over the oracle pool (gold skills the first stage missed put in place of the lowest-ranked non-gold candidates: the reranker's ceiling).\n\n` +
    mdTable(header, body, ['l', 'l', ...header.slice(2).map(() => 'r' as const)])
  );
}
