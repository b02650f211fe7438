/**
 * The precision vectors are searched at: the official runs keep embeddings in bf16 (or fp16) on
 * GPU, so a preset may ask for its vectors rounded to that format before the inner products. The
 * embedding cache keeps the model's own float32 vectors; this rounding is applied on the way to the
 * search (retriever.ts) and to every score explain computes (scorer.ts), so both agree bit for bit.
 */
import type { EmbedderPreset } from '../../../models/embedder-presets.js';
import { toBfloat16, toFloat16 } from '../../../models/float-formats.js';

export type VectorPrecision = 'fp32' | 'bf16' | 'fp16';

/** The config's `vector_precision`, else the preset's, else fp32. */
export function vectorPrecisionOf(configured: VectorPrecision | undefined, preset: EmbedderPreset | null | undefined): VectorPrecision {
  return configured ?? preset?.vectorPrecision ?? 'fp32';
}

/** Vectors with every component rounded to `p` (fp32: unchanged, they already are float32). */
export function roundVectors<V extends ArrayLike<number>>(vs: readonly V[], p: VectorPrecision): (V | Float32Array)[] {
  if (p === 'fp32') return [...vs];
  const f = p === 'bf16' ? toBfloat16 : toFloat16;
  return vs.map((v) => Float32Array.from(v as ArrayLike<number>, (x) => f(x)));
}
