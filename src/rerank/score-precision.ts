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

export type ScorePrecision = 'fp32' | 'fp16' | 'bf16';
export type ScoreKind = 'p-yes' | 'logit';

export const SCORE_PRECISIONS: readonly ScorePrecision[] = ['fp32', 'fp16', 'bf16'];

/** Round-half-even of a non-negative double to an integer (exact for values below 2^52). */
function roundHalfEvenInt(q: number): number {
  const f = Math.floor(q);
  const d = q - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Rounds x to a binary format with `mant` explicit mantissa bits, minimum normal exponent `emin`
 * and maximum finite value `max`.
 */
function toFormat(x: number, mant: number, emin: number, max: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  let e = Math.floor(Math.log2(a));
  // Math.log2 may be off by one next to powers of two.
  if (2 ** e > a) e -= 1;
  else if (2 ** (e + 1) <= a) e += 1;
  const step = 2 ** (Math.max(e, emin) - mant);
  const r = roundHalfEvenInt(a / step) * step;
  if (r > max) return sign * Infinity;
  return sign * r;
}

/** The nearest IEEE half-precision value (as a number). */
export function toFloat16(x: number): number {
  return toFormat(x, 10, -14, 65504);
}

/** The nearest bfloat16 value (as a number). */
export function toBfloat16(x: number): number {
  return toFormat(x, 7, -126, 3.3895313892515355e38);
}

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
