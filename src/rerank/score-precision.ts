/**
 * Reranker score precision: the official runs score in reduced precision, so their scores sit on a
 * coarse grid and many candidates tie (then trec_eval's rule orders them: doc id descending).
 * `score_precision` rounds each score to that grid before ranking:
 *
 * - `fp32`: the nearest float32 (what a float32 model output holds).
 * - `fp16` on a yes/no scorer (Qwen3-Reranker, SkillRet, SkillRouter): the official
 *   `log_softmax(stack([no, yes]), dim=1)[:, 1].exp()` on fp16 tensors, i.e. the log-probability
 *   rounded to fp16, then its exponential rounded to fp16. Every P(yes) above 1 − 2⁻¹² ≈ 0.99976
 *   becomes exactly 1.0; near 0.5 the grid step is 2⁻¹¹ ≈ 0.00049.
 * - `fp16` / `bf16` on a logit (cross-encoders): the logit rounded to that format (jina's official
 *   scores are bf16 logits cast to float).
 * Rounding is round-to-nearest, ties to even, from the double value; overflow gives ±Infinity as the
 * hardware does (the scorers here never produce one).
 */

import { toBfloat16, toFloat16 } from '../models/float-formats.js';

export { toBfloat16, toFloat16 };

export type ScoreKind = 'p-yes' | 'logit';

export const SCORE_PRECISIONS = ['fp32', 'fp16', 'bf16'] as const;
export type ScorePrecision = (typeof SCORE_PRECISIONS)[number];

/** A score as the official run in `precision` would have produced it (see the module comment). */
export function roundScore(score: number, precision: ScorePrecision, kind: ScoreKind): number {
  if (precision === 'fp32') return Math.fround(score);
  if (precision === 'bf16') return toBfloat16(score);
  if (kind === 'logit') return toFloat16(score);
  // log_softmax in fp16, then exp in fp16.
  if (score <= 0) return 0;
  return toFloat16(Math.exp(toFloat16(Math.log(score))));
}

/** What `score_precision` does to a scorer's scores, in words (manifest and summary). */
export function describeScorePrecision(precision: ScorePrecision, kind: ScoreKind): string {
  if (precision === 'fp32') return 'scores rounded to float32';
  if (precision === 'fp16' && kind === 'p-yes') return 'P(yes) as fp16 log_softmax(...).exp() (official fp16 runs)';
  return `scores rounded to ${precision}`;
}
