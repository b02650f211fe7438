/**
 * The official oracle pool (SkillRet v1.1 code, `eval_rerank(oracle=True)`): the gold skills of a
 * query that the first stage missed replace the pool's lowest-ranked non-gold candidates, so the pool
 * keeps its size and the reranker is measured against its ceiling (every gold skill present).
 *
 * - `pool`: the ordinary pool (first `depth` candidates in trec order, ids outside the corpus skipped);
 * - `gold`: the query's relevant skills (grade >= 1) that are in the corpus, in judgement order
 *   (the primary skill first);
 * - missing gold replaces non-gold candidates from the bottom up, primary gold at the lowest slot;
 *   a pool with fewer non-gold candidates than missing gold keeps the gold it can hold; an empty pool
 *   stays empty (nothing is replaced: the pool size is unchanged).
 */
import type { Qrels, Run } from '../core/types.js';
import { rerankPool } from './rerank.js';
export function oraclePool(pool: readonly string[], gold: readonly string[]): { pool: string[]; inserted: number } {
  const inPool = new Set(pool);
  const goldSet = new Set(gold);
  const missing = gold.filter((g) => !inPool.has(g));
  const out = [...pool];
  let inserted = 0;
  for (let i = out.length - 1; i >= 0 && inserted < missing.length; i--) {
    if (goldSet.has(out[i]!)) continue;
    out[i] = missing[inserted]!;
    inserted++;
  }
  return { pool: out, inserted };
}

/**
 * A first-stage run whose top `depth` per query is the oracle pool (synthetic descending scores, so
 * any reranking of the top `depth` sees exactly that pool). `qrels`: the judgements; only relevant
 * skills that are in `docs` (the corpus) can be inserted. `inserted` counts gold put in by the oracle.
 */
export function oracleFirstStage(
  firstStage: Run,
  qrels: Qrels,
  docs: ReadonlyMap<string, string>,
  depth: number,
): { run: Run; inserted: number; queriesChanged: number } {
  const run: Run = new Map();
  let inserted = 0;
  let queriesChanged = 0;
  for (const [qid, candidates] of firstStage) {
    const { pool } = rerankPool(candidates, depth, docs);
    const gold = [...(qrels.get(qid) ?? new Map<string, number>())].filter(([id, g]) => g >= 1 && docs.has(id)).map(([id]) => id);
    const o = oraclePool(pool, gold);
    inserted += o.inserted;
    if (o.inserted > 0) queriesChanged++;
    run.set(
      qid,
      o.pool.map((docId, i) => ({ docId, score: o.pool.length - i })),
    );
  }
  return { run, inserted, queriesChanged };
}
