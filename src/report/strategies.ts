/**
 * The query-strategy parts of summary.md: the strategy label shown next to a run name, and the
 * table of each strategy run against its `whole` twin (paired tests of src/significance/).
 * Rendering only: the numbers are the runs' `vsWhole` attributions.
 */
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import { strategyOf } from '../pipeline/query-strategy.js';
import { strategyLabel } from '../query/strategy.js';
import { formatFixed } from '../util/python-round.js';
import { MARKDOWN, type Medium } from './medium.js';
import { onOffCells, onOffCounts } from './cells.js';


/** The strategies of a run ("sentences·rrf", "whole / sentences·max"); '' when both sides are whole. */
export function runStrategy(res: ExperimentResult, r: { retriever: string; reranker: string }): string {
  const ret = res.config.retrievers.find((x) => x.id === r.retriever);
  const rr = res.config.rerankers.find((x) => x.id === r.reranker);
  const a = strategyOf(ret && 'query' in ret ? ret.query : undefined);
  const b = strategyOf(rr && 'query' in rr ? rr.query : undefined);
  if (a.strategy === 'whole' && b.strategy === 'whole') return '';
  if (b.strategy === 'whole') return strategyLabel(a);
  return `${strategyLabel(a)} / ${strategyLabel(b)}`;
}

/** "bm25-sent / none [sentences·rrf]", escaped. */
export function runName(res: ExperimentResult, r: { retriever: string; reranker: string }, m: Medium = MARKDOWN): string {
  const s = runStrategy(res, r);
  return `${m.esc(r.retriever)} / ${m.esc(r.reranker)}${s ? ` [${m.esc(s)}]` : ''}`;
}

/** The strategy runs against their `whole` twins on `shown` (the report's shown keys). */
export function renderStrategySection(res: ExperimentResult, shown: readonly string[], m: Medium = MARKDOWN): string {
  const compared = res.runs.filter((r): r is RunResult & Required<Pick<RunResult, 'vsWhole'>> => r.vsWhole !== undefined);
  const lonely = res.runs.filter((r) => !r.vsWhole && runStrategy(res, r) !== '');
  if (!compared.length && !lonely.length) return '';
  const out: string[] = [`\n${m.h2('Query strategies vs whole')}\n`];
  out.push(
    `Each run with a long-query strategy against its ${m.code('whole')} twin (same config apart from ${m.code('id')} and ${m.code('query')}), per query (paired). Δ = strategy − whole (×100); p: two-sided randomisation test (seed ${res.config.stats.seed}, ${res.config.stats.iterations} iterations) and paired t-test; CI: 95% bootstrap of the mean Δ. Segments: mean per query (from the manifest's ${m.code('query_strategy')}).\n`,
  );
  const header = ['Run', 'Strategy', 'Whole twin', 'Segments/query', 'Metric', 'Whole', 'Strategy run', 'Δ', 'p (rand.)', 'p (t)', '95% CI of Δ', 'Better / worse / same'];
  const body: string[][] = [];
  for (const r of compared) {
    const a = r.vsWhole.attribution;
    const seg = segmentsPerQuery(res, r);
    shown.forEach((key, i) => {
      const s = a.metrics[key];
      if (!s) return;
      body.push([
        i === 0 ? `${m.esc(r.retriever)} / ${m.esc(r.reranker)}` : '',
        i === 0 ? m.esc(runStrategy(res, r)) : '',
        i === 0 ? `${m.esc(r.vsWhole.baseline.retriever)} / ${m.esc(r.vsWhole.baseline.reranker)}` : '',
        i === 0 ? seg : '',
        key,
        ...onOffCells(s),
        i === 0 ? onOffCounts(a) : '',
      ]);
    });
  }
  if (body.length) out.push(m.table(header, body, ['l', 'l', 'l', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
  if (lonely.length)
    out.push(
      `\nNo ${m.code('whole')} twin configured for: ${lonely.map((r) => `${m.esc(r.retriever)} / ${m.esc(r.reranker)}`).join(', ')} (add the same entry without ${m.code('query:')} to compare).\n`,
    );
  return out.join('\n');
}

/** Mean segments per query of the strategy stage(s) of a run, from the stage records. */
function segmentsPerQuery(res: ExperimentResult, r: RunResult): string {
  const parts: string[] = [];
  for (const s of res.stages) {
    const own = (s.kind === 'retrieval' && s.id === r.retriever) || (s.kind === 'rerank' && s.id === r.reranker && s.over === r.retriever);
    const qs = (s.info as { query_strategy?: { per_query?: { mean?: number } } }).query_strategy;
    if (own && typeof qs?.per_query?.mean === 'number') parts.push(formatFixed(qs.per_query.mean, 1));
  }
  return parts.join(' / ') || '–';
}
