/**
 * `explain --mask [k]`: paper Table 5 on one finished first-stage run. For every single-gold query
 * of the selection (exactly one gold skill of grade >= 1 in the gold the run was evaluated with),
 * the sentences are attributed and masked as src/explain/mask.ts says, and NDCG@10 is measured per
 * masking level 0..k (default 3) by the run's own first stage over the whole corpus (the kind's
 * `explainScorer`: bm25 with its index, a local dense model with its cached corpus vectors).
 *
 * Only `<first stage>/none` runs: a reranker's pool was retrieved with the unmasked query, so masking
 * it is another experiment. The selection flags of explain apply (default: every query, no cap;
 * `--max-queries` caps when given); queries with several gold skills or none are counted and left out.
 */
import type { StageContext } from '../core/context.js';
import type { PaperCounterpart } from '../core/stages.js';
import { UserError } from '../core/errors.js';
import type { DatasetFileInfo } from '../data/dataset.js';
import { maskQuery, summarizeMask, type MaskQuery, type MaskSummary } from '../explain/mask.js';
import { countRelevant } from '../metrics/relevance.js';
import { join } from 'node:path';
import { named, openExplainedRun, readPerQueryRows, selectQueries, type ExplainSelection } from './explain-run.js';
import { retrieverKind } from './registry.js';

/** Masking levels of paper Table 5 (top-1, top-2, top-3). */
export const DEFAULT_MASK_LEVELS = 3;
export const MAX_MASK_LEVELS = 10;

export interface MaskResult {
  runDir: string;
  retriever: string;
  reranker: string;
  scorer: string;
  selection: string;
  /** The highest masking level (levels 0..maxLevel). */
  maxLevel: number;
  records: MaskQuery[];
  summary: MaskSummary;
  /** Queries of the selection left out: several gold skills, or none. */
  leftOut: { multiGold: number; noGold: number };
  /** True when the queries are not every query of the dataset (a selection flag or a cap). */
  subset: boolean;
  /** The first stage's published name and its deviations from the paper's setup (undefined: none). */
  counterpart: PaperCounterpart | undefined;
  /** The first stage as the config names it (`bm25`, `dense Qwen/Qwen3-Embedding-0.6B`). */
  firstStage: string;
  dataset: {
    files: DatasetFileInfo[];
    fields: string[];
    separator: string;
    skillMdField: string;
    droppedGoldPairs: number;
  };
  cost: { queries: number; scoredTexts: number; encodedTexts: number | null; seconds: number; truncatedTo?: number };
}

export async function maskRun(ctx: StageContext, o: { results: string; run: string; levels?: number } & ExplainSelection): Promise<MaskResult> {
  const t0 = performance.now();
  const maxLevel = o.levels ?? DEFAULT_MASK_LEVELS;
  if (!Number.isInteger(maxLevel) || maxLevel < 1 || maxLevel > MAX_MASK_LEVELS)
    throw new UserError(`--mask: expected an integer from 1 to ${MAX_MASK_LEVELS} (sentences masked at the highest level), got ${String(o.levels)}`);
  const run = await openExplainedRun(o);
  const { config, configDir, retrieverId, rerankerId, r, runDir, ds, docs, docIds } = run;
  if (rerankerId !== 'none')
    throw run.unsupported(`--mask re-scores the whole corpus with the first stage, and a reranker's pool was retrieved with the unmasked query; mask ${retrieverId}/none`);
  const kind = retrieverKind(r.type);
  const got = kind.explainScorer ? await kind.explainScorer(ctx, r, docs, configDir) : { unsupported: `its first stage is of type ${r.type}` };
  if ('unsupported' in got) throw run.unsupported(`explain re-scores bm25 and local dense runs (${got.unsupported})`);

  if (o.hurt) throw new UserError('--hurt: not with --mask (it selects queries a reranker made worse; --mask measures a first-stage run)');
  const { queries: chosen, label } = selectQueries(ds, o, () => readPerQueryRows(join(runDir, 'per-query.jsonl')), config.k, config.stats.seed, false);
  const queries = o.maxQueries !== undefined ? chosen.slice(0, o.maxQueries) : chosen;
  const single = queries.filter((q) => countRelevant(ds.qrels.get(q.id) ?? new Map<string, number>()) === 1).length;
  if (single === 0) throw new UserError(`--mask: no single-gold query (exactly one gold skill) among the ${queries.length} selected (${label}); Table 5 measures single-gold queries only`);
  let scoredTexts = 0;
  const score = async (texts: readonly string[]) => {
    scoredTexts += texts.length;
    return got.scoreAll(texts);
  };

  const records: MaskQuery[] = [];
  let multiGold = 0;
  let noGold = 0;
  const bar = ctx.progress('mask', queries.length, 'queries');
  try {
    for (const q of queries) {
      const judged = ds.qrels.get(q.id) ?? new Map<string, number>();
      const n = countRelevant(judged);
      if (n !== 1) {
        if (n === 0) noGold++;
        else multiGold++;
      } else {
        const gold = [...judged].find(([, g]) => g >= 1)![0];
        records.push(await maskQuery(score, q, gold, judged, docIds, maxLevel));
      }
      bar.increment();
    }
  } finally {
    bar.stop();
    await got.dispose?.();
  }
  const model = 'model' in r && typeof r.model === 'string' ? r.model : undefined;
  return {
    runDir,
    retriever: retrieverId,
    reranker: rerankerId,
    scorer: `${named(r.type, r.id, got.detail)} over the corpus${got.how ? `, ${got.how}` : ''}`,
    selection: label,
    maxLevel,
    records,
    summary: summarizeMask(records, maxLevel),
    leftOut: { multiGold, noGold },
    subset: queries.length < ds.queries.length,
    counterpart: kind.paperCounterpart?.(r),
    firstStage: model !== undefined ? `${r.type} ${model}` : r.type,
    dataset: {
      files: ds.files,
      fields: [...config.dataset.text.fields],
      separator: config.dataset.text.separator,
      skillMdField: config.dataset.skill_md_field,
      droppedGoldPairs: ds.stats.droppedGoldPairs,
    },
    cost: {
      queries: queries.length,
      scoredTexts,
      encodedTexts: got.encoded ? got.encoded() : null,
      seconds: (performance.now() - t0) / 1000,
      ...(chosen.length > queries.length ? { truncatedTo: o.maxQueries! } : {}),
    },
  };
}
