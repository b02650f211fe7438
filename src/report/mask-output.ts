/**
 * The file and the terminal table of `explain --mask` (src/pipeline/explain-mask.ts, paper Table 5):
 *   <run folder>/mask.json   the rule, mean NDCG@10 per masking level, the paper column
 *                            (paper/mask-vs-published.ts) and one record per single-gold query
 * A function of the results folder, the data, the selection and the levels only (no timings, no
 * cache state), so a repeat writes the same bytes. Seconds and model work go to the terminal.
 */
import { join } from 'node:path';
import type { MaskResult } from '../pipeline/explain-mask.js';
import type { MaskPaper } from '../paper/mask-vs-published.js';
import { formatPercent, officialFraction } from '../metrics/official-percent.js';
import { describeTolerances } from '../metrics/verdict.js';
import { MASK_TOKEN } from '../query/segment.js';
import { writeJsonAtomic } from '../util/atomic.js';
import { formatFixed } from '../util/python-round.js';
import { plural } from '../util/plural.js';

export const MASK_FILE = 'mask.json';

export const MASK_RULE = {
  queries: 'single-gold: exactly one gold skill of grade >= 1 in the gold the run was evaluated with',
  importance: `importance(s) = score(q, d+) - score(q with s masked, d+), by the run's own first stage`,
  order: 'sentences by importance, largest first; equal importance: earlier sentence first',
  masking: `level k replaces the first min(k, S) sentences of that order by ${MASK_TOKEN}: each sentence's trimmed text becomes the token, the whitespace around it is kept, adjacent masks stay separate tokens`,
  short_queries: 'a query with fewer sentences than k (S < k) has all S masked at level k',
  measure: 'NDCG@10 (trec_eval ndcg_cut_10) of the masked query scored against the whole corpus, trec order; mean over the queries',
};

const num = (x: number) => (Number.isFinite(x) ? x : null);

export function maskJson(x: MaskResult, paper: MaskPaper): Record<string, unknown> {
  const s = x.summary;
  return {
    run: `${x.retriever}/${x.reranker}`,
    scorer: x.scorer,
    selection: x.selection,
    ...(x.cost.truncatedTo !== undefined ? { truncated_to: x.cost.truncatedTo } : {}),
    rule: MASK_RULE,
    queries: s.queries,
    left_out: { several_gold: x.leftOut.multiGold, no_gold: x.leftOut.noGold },
    levels: s.ndcg10.map((v, k) => ({
      level: k,
      ndcg10: num(officialFraction(v)),
      percent: formatPercent(v),
      relative_change_pct: k === 0 ? null : num(s.relative[k]!),
      queries_with_fewer_sentences: s.short[k]!,
    })),
    paper: {
      table: paper.table,
      source: paper.source,
      ...(paper.row !== undefined ? { row: paper.row } : {}),
      applies: paper.applies,
      ...(paper.applies ? {} : { reasons: paper.reasons }),
      ...(paper.release ? { release: paper.release.version, repo: paper.release.repo, revision: paper.release.revision } : {}),
      units: 'percent',
      cells: paper.cells.map((c) => ({
        level: c.level,
        column: c.column,
        published: c.published,
        ...(c.publishedRelative !== undefined ? { published_relative_change_pct: c.publishedRelative } : {}),
        ...(c.delta !== undefined ? { delta: c.delta, verdict: c.verdict } : {}),
      })),
      ...(paper.verdict ? { overall_verdict: paper.verdict, tolerances: { ok_within: paper.tolerances.ok, close_within: paper.tolerances.close, rule: describeTolerances(paper.tolerances) } } : {}),
      deviations: paper.deviations,
      assumptions: paper.assumptions,
    },
    per_query: x.records.map((r) => ({
      id: r.id,
      gold: r.gold,
      sentences: r.sentences,
      importance: r.importance.map(num),
      order: r.order,
      ndcg10: r.levels.map((l) => l.ndcg10),
      rank: r.levels.map((l) => l.rank),
    })),
  };
}

export function writeMask(x: MaskResult, paper: MaskPaper): string[] {
  const file = join(x.runDir, MASK_FILE);
  writeJsonAtomic(file, maskJson(x, paper));
  return [file];
}

/** Aligned columns: the first left, the others right, two spaces between. */
function alignedRows(grid: readonly string[][]): string[] {
  const widths = grid[0]!.map((_, j) => Math.max(...grid.map((r) => [...(r[j] ?? '')].length)));
  return grid.map((r) =>
    r
      .map((cell, j) => {
        const pad = ' '.repeat(widths[j]! - [...cell].length);
        return j === 0 ? cell + pad : pad + cell;
      })
      .join('  ')
      .trimEnd(),
  );
}

const signedPoints = (d: number) => `${d < 0 ? '-' : '+'}${formatFixed(Math.abs(d), 2)}`;
const rel = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '–' : `${v > 0 ? '+' : ''}${formatFixed(v, 1)}%`);

export function renderMaskText(x: MaskResult, paper: MaskPaper, files: readonly string[]): string {
  const s = x.summary;
  const left = [x.leftOut.multiGold ? `${x.leftOut.multiGold} with several gold skills` : '', x.leftOut.noGold ? `${x.leftOut.noGold} without gold` : ''].filter(Boolean);
  const showPaper = paper.cells.length > 0;
  const header = ['masked', 'NDCG@10', 'change', ...(showPaper ? ['paper', 'paper change', ...(paper.applies ? ['Δ', 'verdict'] : [])] : [])];
  const rows = s.ndcg10.map((v, k) => {
    const c = paper.cells.find((x) => x.level === k);
    const label = k === 0 ? 'none (full query)' : `top ${k}${s.short[k] ? ` (${s.short[k]} with < ${k} sentences: all masked)` : ''}`;
    const paperCells = showPaper
      ? [c ? formatFixed(c.published, 2) : '–', k === 0 ? '' : rel(c?.publishedRelative), ...(paper.applies ? [c?.delta !== undefined ? signedPoints(c.delta) : '–', c?.verdict ?? '–'] : [])]
      : [];
    return [label, formatPercent(v), k === 0 ? '' : rel(s.relative[k]), ...paperCells];
  });
  const table = alignedRows([header, ...rows]);
  const lines = [
    `explain --mask ${x.retriever}/${x.reranker}: ${plural(s.queries, 'single-gold query', 'single-gold queries')} (${x.selection}${x.cost.truncatedTo !== undefined ? `, first ${x.cost.truncatedTo}` : ''}${left.length ? `; left out: ${left.join(', ')}` : ''})`,
    `scorer: ${x.scorer}`,
    `masking: the top k sentences by importance(s) = score(q, d+) − score(q with s masked, d+) replaced by ${MASK_TOKEN} (paper Table 5)`,
    ...table.map((l) => `  ${l}`),
    paper.applies
      ? `paper: ${paper.table} (${paper.source}), row ${paper.row}, pinned ${paper.release!.version}; verdict ${paper.verdict} (${describeTolerances(paper.tolerances)})`
      : `paper: the published numbers do not apply: ${paper.reasons.join('; ')}${showPaper ? ' (shown for reference, no Δ)' : ''}`,
    ...(paper.deviations.length ? [`deviations: ${paper.deviations.join('; ')}`] : []),
    `cost: ${plural(x.cost.scoredTexts, 'text')} scored${x.cost.encodedTexts !== null ? `, ${x.cost.encodedTexts} encoded by the model (the rest from the cache)` : ''}, ${formatFixed(x.cost.seconds, 2)} s`,
    ...files.map((f) => `wrote ${f}`),
  ];
  return lines.join('\n') + '\n';
}
