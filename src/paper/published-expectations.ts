/**
 * The published numbers of an experiment as regression-gate expectations (pipeline/expect.ts): what
 * configs/paper-*.yaml carry under `expect:`, so that a run on the pinned release checks itself
 * (exit code 1 when a published number is not reproduced). test/paper-expectations.test.ts holds
 * every paper config to exactly this list; `node scripts/paper-expectations.mjs <config>` prints it.
 *
 * Which numbers: for each run (retriever × reranker) with a published counterpart
 * (published-vs-measured.ts `publishedCounterparts`, the pairing of the summary's verdicts), the
 * first matching published row's cells of the metrics the config measures, in column order.
 *
 * Tolerances (points, against the printed value: round(mean, 5) × 100 to 2 decimals):
 *  - BM25 without a reranker: half a unit of the published value's last decimal, at least 0.005:
 *    the printed value must equal the published one (a 3-decimal published value: once rounded to 2
 *    decimals). bm25s and trec_eval are reproduced bit for bit (docs/protocol.md), so any other Δ is
 *    a regression;
 *  - every run through a model: 0.05, the paper verdict's OK tolerance (metrics/verdict.ts): a CPU run
 *    of an fp32 / quantised ONNX export differs from the official fp16 GPU run in the last bits of
 *    each score (docs/reproducing.md), which moves a printed value by a few hundredths at most; a
 *    tighter gate would fail on that float noise, not on a regression.
 */
import { findRelease } from '../data/hub.js';
import type { Config } from '../pipeline/config.js';
import type { ExpectEntry } from '../pipeline/expect.js';
import { experimentTargets } from '../pipeline/plan.js';
import { DEFAULT_TOLERANCES } from '../metrics/verdict.js';
import { columnDecimals, PAPER_SPLITS } from './results.js';
import { publishedCounterparts } from './published-vs-measured.js';

/**
 * The expectations of a config's published numbers (empty when its dataset is not a pinned release
 * with published tables), each with the decimals its column was published with.
 */
export function publishedExpectations(config: Pick<Config, 'dataset' | 'retrievers' | 'rerankers' | 'k' | 'measures'>): (ExpectEntry & { decimals: number })[] {
  const hub = config.dataset.hub;
  const release = hub ? findRelease(hub.repo, hub.revision) : undefined;
  const version = PAPER_SPLITS.find((s) => s === release?.version);
  if (version === undefined) return [];
  const targets = experimentTargets(config as Config);
  const out: (ExpectEntry & { decimals: number })[] = [];
  for (const run of targets.runs) {
    const [retriever, reranker] = run.split('/') as [string, string];
    const c = publishedCounterparts(config, { retriever, reranker }, version);
    const row = c?.rows.find((r) => Object.keys(r.published).some((m) => targets.metrics.includes(m)));
    if (!c || !row) continue;
    const exact = c.retriever.type === 'bm25' && reranker === 'none';
    for (const [metric, { value, column }] of Object.entries(row.published)) {
      if (!targets.metrics.includes(metric)) continue;
      const decimals = columnDecimals(row.match.table, column);
      const half = Math.max(0.005, 0.5 * 10 ** -decimals);
      out.push({ run, metric, value, tolerance: exact ? half : Math.max(DEFAULT_TOLERANCES.ok, half), decimals });
    }
  }
  return out;
}
