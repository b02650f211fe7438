/**
 * The evaluation policy: which queries count in the denominators and where the gold comes from.
 *
 * | | `trec_eval` (default) | `official` (skillret/eval.py) |
 * |---|---|---|
 * | gold source | `qrels/<split>.jsonl` when present, else the query records | the query records (`labels`, else `skill_ids` at relevance 1), never the qrels file |
 * | query without any judgement | left out (trec_eval skips queries absent from the qrels) | evaluated, scores 0 (pytrec_eval sees an empty judgement set) |
 * | query whose judgements are all <= 0 | evaluated, scores 0 (trec_eval 10.0) | evaluated, scores 0 |
 * | gold id not in the (filtered) corpus | `unknown_gold`, default `error` | kept (counts in recall, never retrievable) |
 *
 * Either choice can be overridden: `dataset.gold` (qrels | skill_ids) and `dataset.unknown_gold`.
 */
export type EvaluationPolicy = 'trec_eval' | 'official';
export type GoldSourceChoice = 'qrels' | 'skill_ids';

export interface GoldPolicy {
  evaluation: EvaluationPolicy;
  /** 'qrels': the qrels file when present (else the records); 'skill_ids': always the query records. */
  gold: GoldSourceChoice;
  unknownGold: 'error' | 'drop' | 'keep';
  /** Keep queries without any judgement (they score 0). */
  keepUnjudged: boolean;
}

export function goldPolicy(evaluation: EvaluationPolicy, gold?: GoldSourceChoice, unknownGold?: 'error' | 'drop' | 'keep'): GoldPolicy {
  const official = evaluation === 'official';
  return {
    evaluation,
    gold: gold ?? (official ? 'skill_ids' : 'qrels'),
    unknownGold: unknownGold ?? (official ? 'keep' : 'error'),
    keepUnjudged: official,
  };
}
