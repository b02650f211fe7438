/**
 * A run as the results files spell it: per query, the ranking in trec_eval order and each score's
 * decimal spelling, `String(score)` (the shortest decimal that reads back as the same double, which
 * is also JSON's spelling of a finite number). Made once per query, on first use, and shared by
 * the writers of one run (run.trec, official.json, per-query.jsonl's retrieved ids), so a results
 * folder sorts each ranking and spells each score once instead of once per file.
 */
import type { Run, ScoredDoc } from '../core/types.js';
import { trecOrder } from '../metrics/rank.js';

export interface SpelledRanking {
  /** The query's documents in trec_eval order. */
  readonly docs: readonly ScoredDoc[];
  /** `String(docs[i].score)`. */
  readonly scores: readonly string[];
}

const EMPTY: SpelledRanking = { docs: [], scores: [] };

export class SpelledRun {
  private readonly memo = new Map<string, SpelledRanking>();

  constructor(readonly run: Run) {}

  /** The ranking of `qid` (empty when the run has none). */
  get(qid: string): SpelledRanking {
    let r = this.memo.get(qid);
    if (r === undefined) {
      const found = this.run.get(qid);
      if (found === undefined) return EMPTY;
      const docs = trecOrder(found);
      const scores = new Array<string>(docs.length);
      for (let i = 0; i < docs.length; i++) scores[i] = String(docs[i]!.score);
      r = { docs, scores };
      this.memo.set(qid, r);
    }
    return r;
  }
}
