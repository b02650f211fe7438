/**
 * The files and the terminal report of `explain` (src/pipeline/explain-run.ts):
 *   <run folder>/explain.jsonl   one record per explained query (sentences, and per gold skill the
 *                                erasure of each sentence, the field variants and the shares)
 *   <run folder>/explain.json    the selection, the scorer and the concentration summary
 * Both are functions of the results folder, the data and the selection only (no timings, no cache
 * state), so a repeat writes the same bytes. Seconds and model work go to the terminal.
 */
import { join } from 'node:path';
import type { ExplainResult } from '../pipeline/explain-run.js';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic.js';
import { formatFixed } from '../util/python-round.js';
import { plural } from '../util/plural.js';

export function explainJsonl(x: ExplainResult): string {
  return x.explanations.map((e) => JSON.stringify(e)).join('\n') + (x.explanations.length ? '\n' : '');
}

export function explainSummaryJson(x: ExplainResult): Record<string, unknown> {
  return {
    run: `${x.retriever}/${x.reranker}`,
    scorer: x.scorer,
    selection: x.selection,
    queries: x.explanations.length,
    ...(x.cost.truncatedTo !== undefined ? { truncated_to: x.cost.truncatedTo } : {}),
    gold_pairs: x.explanations.reduce((n, e) => n + e.gold.length, 0),
    scored_texts: x.cost.scoredTexts,
    importance: 'score_drop = score(whole query) - score(query without the sentence); shares use max(0, score_drop)',
    concentration: x.concentration,
  };
}

export function writeExplain(x: ExplainResult): string[] {
  const files = [join(x.runDir, 'explain.jsonl'), join(x.runDir, 'explain.json')];
  writeFileAtomic(files[0]!, explainJsonl(x));
  writeJsonAtomic(files[1]!, explainSummaryJson(x));
  return files;
}

const share = (v: number) => (Number.isFinite(v) ? formatFixed(v, 2) : '–');

export function renderExplainText(x: ExplainResult, files: readonly string[]): string {
  const c = x.concentration;
  const lines = [
    `explain ${x.retriever}/${x.reranker}: ${plural(x.explanations.length, 'query', 'queries')} (${x.selection}${x.cost.truncatedTo !== undefined ? `, first ${x.cost.truncatedTo}` : ''}), ${plural(c.pairs + c.without_signal, '(query, gold skill) pair')}`,
    `scorer: ${x.scorer}`,
    `concentration of sentence-erasure importance (share held by the top 1 / 2 / 3 sentences, mean over pairs):`,
    `  all: ${share(c.top1.mean)} / ${share(c.top2.mean)} / ${share(c.top3.mean)} (${plural(c.pairs, 'pair')}${c.without_signal ? `; ${c.without_signal} with no positive importance left out` : ''})`,
    ...c.by_length.filter((s) => s.pairs > 0).map((s) => `  ${s.slice}: ${share(s.top1)} / ${share(s.top2)} / ${share(s.top3)} (${plural(s.pairs, 'pair')})`),
    `cost: ${plural(x.cost.scoredTexts, 'text or pair', 'texts or pairs')} scored${x.cost.encodedTexts !== null ? `, ${x.cost.encodedTexts} encoded by the model (the rest from the cache)` : ''}${x.cost.modelPairs !== null ? `, ${plural(x.cost.modelPairs, 'pair')} through the model (the rest from the score cache)` : ''}, ${formatFixed(x.cost.seconds, 2)} s`,
    ...files.map((f) => `wrote ${f}`),
  ];
  return lines.join('\n') + '\n';
}
