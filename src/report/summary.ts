/**
 * summary.md: the paper-shaped table (rows = runs; NDCG, Recall, Completeness
 * at each k, ×100, 2 decimals), the reranker on/off table with significance and
 * the first-stage ceiling, the HNSW approximation audit and the cost of each stage; the published
 * results of the paper next to the runs' with verdicts (pinned releases only, report/published-section.ts) and
 * the query slices (report/breakdown.ts), the regression gate's table when there are expectations
 * (report/gates.ts). Formatting only: every number comes from the Report
 * (src/analysis/report.ts), and every decision of what to show (the shown k, the rerank matrix, the
 * notes, the cost rows) is made there. Rendered for a Medium: Markdown for summary.md, plain text
 * for `run -v`.
 */
import type { Report } from '../analysis/report.js';
import type { StageCost } from '../analysis/stage-cost.js';
import type { RerankMatrix } from '../analysis/rerank-matrix.js';
import type { Text } from '../analysis/notes.js';
import { relative } from 'node:path';
import { MARKDOWN, type Medium } from './medium.js';
import { formatPercentDelta } from '../metrics/official-percent.js';
import { formatFixed } from '../util/python-round.js';
import { renderPaperSection } from './published-section.js';
import { renderSliceSection } from './breakdown.js';
import { renderStrategySection, runName } from './strategies.js';
import { renderOperatingPointsSection } from './operating-points.js';
import { onOffCells, onOffCounts, pct } from './cells.js';
import { plural } from '../util/plural.js';
import { measureKey } from '../metrics/measures.js';
import { renderGateSection } from './gates.js';
import { renderTuningSection } from './tuning.js';
import { renderSiblingSection } from './siblings.js';


function num(v: number | undefined, digits = 1): string {
  return typeof v === 'number' && Number.isFinite(v) ? formatFixed(v, digits) : '–';
}

/** A note or any Text: its untrusted parts escaped for the medium. */
export function renderText(t: Text, m: Medium): string {
  return t.map((p) => (typeof p === 'string' ? p : m.esc(p.untrusted))).join('');
}

function costRow(c: StageCost, m: Medium): string[] {
  const rate = c.rates.map((r) => `${num(r.value, r.digits)} ${r.unit}`).join(', ') || '–';
  const t = c.truncation;
  const truncation = !t ? '–' : t.of === 'documents' ? `${t.count}/${t.total} (${formatFixed((100 * t.count) / t.total, 1)}%)` : `${t.count}/${t.total} scored pairs`;
  const name = c.kind === 'rerank' ? `${m.esc(c.id)} over ${m.esc(c.over ?? '')}` : m.esc(c.id);
  return [c.kind, name, num(c.seconds, 2), rate, truncation, c.cache ?? '–'];
}

export function renderSummary(report: Report, m: Medium = MARKDOWN): string {
  const res = report.result;
  const { config, dataset } = res;
  const ks = config.k;
  const out: string[] = [];
  out.push(`${m.h1(m.esc(config.name))}\n`);
  if (config.description) out.push(`${m.esc(config.description)}\n`);
  const files = dataset.files.map((f) => `${f.role} ${plural(f.records, 'record')}, sha256 ${f.sha256.slice(0, 12)}…`).join('; ');
  out.push(
    `Dataset ${m.esc(relative(config.output, dataset.dir) || '.')} (relative to this folder), split ${m.bold(m.esc(dataset.split))}: ${plural(dataset.skills.length, 'skill')}, ${plural(dataset.queries.length, 'query', 'queries')} with gold (${files}). Metrics follow trec_eval semantics (ties by doc id descending), ×100, 2 decimals.\n`,
  );

  // Main table.
  const cols = [...ks.map((k) => `NDCG@${k}`), ...ks.map((k) => `Recall@${k}`), ...ks.map((k) => `Completeness@${k}`)];
  const rows = res.runs.map((r) => [runName(res, r, m), ...cols.map((c) => pct(r.evaluation.aggregate[c]))]);
  out.push(`${m.h2('Results')}\n`);
  out.push(m.table(['Run', ...cols], rows, ['l', ...cols.map(() => 'r' as const)]));

  // The regression gate (only when the experiment has expectations).
  if (report.gates) out.push(renderGateSection(report.gates, m));

  // Published numbers with verdicts (pinned releases only) and the query slices.
  out.push(renderPaperSection(report.paper, res.measures.map(measureKey), report.releases, m));
  const slices = renderSliceSection(report, m);
  if (slices) out.push(slices);

  const tuning = renderTuningSection(res, m);
  if (tuning) out.push(tuning);

  const siblings = renderSiblingSection(report, m);
  if (siblings) out.push(siblings);

  const strategies = renderStrategySection(res, report.shownKeys, m);
  if (strategies) out.push(strategies);

  if (report.rerankMatrix) out.push(renderRerankMatrix(report.rerankMatrix, m));

  // Reranker on/off.
  const reranked = res.runs.filter((r) => r.onOff);
  if (reranked.length) {
    const key = reranked[0]!.onOff!.attribution.primaryKey;
    out.push(`\n${m.h2('Reranker on/off')}\n`);
    out.push(
      `Each reranked run against the same retriever without a reranker, per query (paired). Δ = on − off (×100); p: two-sided randomisation test (seed ${config.stats.seed}, ${config.stats.iterations} iterations) and paired t-test; CI: 95% bootstrap of the mean Δ. Helped/hurt/unchanged by ${m.esc(key)}. Ceiling: first-stage Recall and Completeness at the rerank depth, the best any reranker over that pool can reach.\n`,
    );
    const header = ['Retriever', 'Reranker', 'Metric', 'Off', 'On', 'Δ', 'p (rand.)', 'p (t)', '95% CI of Δ', 'Helped / hurt / same', 'Ceiling R@N / C@N'];
    const body: string[][] = [];
    for (const r of reranked) {
      const a = r.onOff!.attribution;
      const N = r.onOff!.depth;
      report.shownKeys.forEach((k, i) => {
        const s = a.metrics[k];
        if (!s) return;
        body.push([
          i === 0 ? m.esc(r.retriever) : '',
          i === 0 ? `${m.esc(r.reranker)}${r.onOff!.oracle ? ' (oracle pool)' : ''}` : '',
          k,
          ...onOffCells(s),
          i === 0 ? onOffCounts(a) : '',
          i === 0 ? `${pct(r.onOff!.ceiling[`Recall@${N}`])} / ${pct(r.onOff!.ceiling[`Completeness@${N}`])} (N=${N})` : '',
        ]);
      });
    }
    out.push(m.table(header, body, ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
    const hurtLines: string[] = [];
    for (const r of reranked) {
      const worst = r.onOff!.attribution.worst.filter((w) => w.delta < 0);
      if (!worst.length) continue;
      hurtLines.push(`- ${m.esc(r.retriever)} / ${m.esc(r.reranker)}: ` + worst.map((w) => `${m.esc(w.qid)} (${pct(w.base)} → ${pct(w.treated)})`).join(', '));
    }
    if (hurtLines.length) out.push(`\nQueries the reranker hurt most (${m.esc(key)}, off → on):\n\n${hurtLines.join('\n')}\n`);
  }

  out.push(renderOperatingPointsSection(res, m));

  // HNSW audit.
  const approx = res.runs.filter((r) => r.approximation);
  if (approx.length) {
    out.push(`\n${m.h2('Approximate index audit (HNSW vs exact top-k)')}\n`);
    const oks = Object.keys(approx[0]!.approximation!.overlap);
    const header = ['Retriever', ...oks.map((k) => `overlap@${k}`), ...report.shownKeys.map((c) => `Δ ${c}`)];
    const body = approx.map((r) => [
      m.esc(r.retriever),
      ...oks.map((k) => formatFixed(r.approximation!.overlap[k] ?? NaN, 4)),
      ...report.shownKeys.map((c) => formatPercentDelta(r.approximation!.exact[c] ?? NaN, r.evaluation.aggregate[c] ?? NaN)),
    ]);
    out.push(m.table(header, body, ['l', ...header.slice(1).map(() => 'r' as const)]));
  }

  // Cost.
  if (report.cost.length) {
    out.push(`\n${m.h2('Cost')}\n`);
    out.push(m.table(['Stage', 'Id', 'Seconds', 'Throughput', 'Truncated', 'Cache'], report.cost.map((c) => costRow(c, m)), ['l', 'l', 'r', 'l', 'r', 'l']));
  }

  // Notes.
  if (report.notes.length) out.push(`\n${m.h2('Notes')}\n\n${report.notes.map((n) => `- ${renderText(n, m)}`).join('\n')}\n`);
  return out.join('\n');
}

/** The rerank matrix (paper Table 10's shape, analysis/rerank-matrix.ts). */
function renderRerankMatrix(x: RerankMatrix, m: Medium): string {
  const header = ['Retriever', 'Reranker', 'First stage only', ...x.depths.map((d) => `k=${d}`), ...x.oracleDepths.map((d) => `oracle k=${d}`)];
  const body = x.rows.map((r) => [m.esc(r.retriever), m.esc(r.group), pct(r.firstStage), ...r.atDepth.map(pct), ...r.oracle.map(pct)]);
  return (
    `\n${m.h2(`Rerank matrix (${x.key})`)}\n\n` +
    `Each reranker over the first stage's top k (one run per depth, results folders ${m.code('<retriever>/<reranker>-k<depth>')}), ` +
    `and over the oracle pool (gold skills the first stage missed put in place of the lowest-ranked non-gold candidates: the reranker's ceiling).\n\n` +
    m.table(header, body, ['l', 'l', ...header.slice(2).map(() => 'r' as const)])
  );
}
