/**
 * The precision vectors are searched at: the official runs keep embeddings in bf16 (or fp16) on
 * GPU, so a preset may ask for its vectors rounded to that format before the inner products. The
 * embedding cache keeps the model's own float32 vectors; this rounding is applied on the way to the
 * search (retriever.ts) and to every score explain computes (scorer.ts), so both agree bit for bit.
 *
 * The official sentence-transformers path loads every model with `torch_dtype="auto"`
 * (eval.py:189): the checkpoint's own `torch_dtype` decides the precision its vectors come out in.
 * So, in order: the config's `vector_precision`; the preset's (the paper checkpoint's dtype where it
 * is known: Qwen3-Embedding and SkillRet-Embedding are bfloat16, KaLM and SkillRouter run bf16 on
 * their native path); for a model without a preset or whose preset leaves the dtype to the
 * checkpoint, the model folder's own `config.json` `torch_dtype` (or `dtype`); fp32.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbedderPreset } from '../../../models/embedder-presets.js';
import { toBfloat16, toFloat16 } from '../../../models/float-formats.js';
import { readBoundedSync } from '../../../util/files.js';

export type VectorPrecision = 'fp32' | 'bf16' | 'fp16';

/** torch dtype names (as config.json writes them) → the vector precision they give. */
const TORCH_DTYPES: Readonly<Record<string, VectorPrecision>> = { bfloat16: 'bf16', float16: 'fp16', float32: 'fp32' };

/**
 * The precision a model folder's own `config.json` gives its vectors under `torch_dtype="auto"`:
 * its `torch_dtype` (or the newer `dtype`) key; undefined when the file, the key or a known value
 * is missing (an unreadable file says nothing either: the model load reports it).
 */
export function folderVectorPrecision(folder: string): VectorPrecision | undefined {
  const file = join(folder, 'config.json');
  if (!existsSync(file)) return undefined;
  try {
    const cfg = JSON.parse(new TextDecoder().decode(readBoundedSync(file, 'model config', 16 << 20))) as Record<string, unknown>;
    const v = cfg.torch_dtype ?? cfg.dtype;
    return typeof v === 'string' && Object.hasOwn(TORCH_DTYPES, v) ? TORCH_DTYPES[v] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The config's `vector_precision`, else the preset's, else (a model without a preset, or a preset
 * whose checkpoint loads with `torch_dtype="auto"` and records no dtype) the model folder's
 * `torch_dtype`, else fp32 (see the module comment). A preset with a fixed official dtype (the
 * bundled GloVe and USE Lite models, bge, e5) is fp32 whatever its folder's config says.
 */
export function vectorPrecisionOf(configured: VectorPrecision | undefined, preset: EmbedderPreset | null | undefined, folder?: VectorPrecision): VectorPrecision {
  if (configured !== undefined) return configured;
  if (preset?.vectorPrecision !== undefined) return preset.vectorPrecision;
  const folderDecides = !preset || preset.officialDtype.startsWith('auto');
  return (folderDecides ? folder : undefined) ?? 'fp32';
}

/** Vectors with every component rounded to `p` (fp32: unchanged, they already are float32). */
export function roundVectors<V extends ArrayLike<number>>(vs: readonly V[], p: VectorPrecision): (V | Float32Array)[] {
  if (p === 'fp32') return [...vs];
  const f = p === 'bf16' ? toBfloat16 : toFloat16;
  return vs.map((v) => Float32Array.from(v as ArrayLike<number>, (x) => f(x)));
}
