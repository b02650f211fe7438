/**
 * What a local embedder's inputs are and the checks that need no model (so that the callers that
 * only need these, a warm run's stage cache among them, do not load transformers.js): the
 * options, the role of a text, the model files of a dtype, the token limit.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../../core/errors.js';
import { onnxFileFor } from '../../../models/dtype.js';
import type { Pooling } from '../../../models/embedder-presets.js';
import { assertHubFilesPresent, type ModelLocationOptions, type ResolvedModel } from '../../../models/resolve.js';

export type Role = 'query' | 'document';

/** Padded tokens per batch at most, unless `maxBatchTokens` says otherwise. */
export const DEFAULT_MAX_BATCH_TOKENS = 16384;

export interface EmbedderOptions {
  queryPrefix: string;
  docPrefix: string;
  pooling: Pooling;
  normalize: boolean;
  /** Token limit; null = the model's own maximum. The effective limit is min(this, model max). */
  maxTokens: number | null;
  /** transformers.js dtype: fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4 (selects onnx/model<suffix>.onnx). */
  dtype: string;
  batchSize: number;
  /** onnxruntime intra-op threads (undefined = onnxruntime's default: all cores). */
  threads?: number;
  /** Cap on padded tokens per batch (default 16,384), so long texts get small batches. */
  maxBatchTokens?: number;
  /** Token ids held in memory while encoding before they go to a temporary file (default 1,048,576). */
  tokenBlockInts?: number;
}

/** The ONNX file of `dtype` plus its external-data files present next to it (absolute paths, sorted). */
export function modelFilePaths(folder: string, dtype: string): string[] {
  const rel = onnxFileFor(dtype);
  const main = join(folder, rel);
  const dir = join(folder, 'onnx');
  const base = rel.slice('onnx/'.length);
  const extra = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith(`${base}_data`))
        .sort()
        .map((f) => join(dir, f))
    : [];
  return [main, ...extra];
}

/** The token limit a model applies: min(the user's maxTokens, the model's own maximum). */
export function effectiveMaxLength(maxTokens: number | null, modelMaxLength: number): number {
  return maxTokens === null ? modelMaxLength : Math.min(maxTokens, modelMaxLength);
}

/**
 * The checks that need no model load: the options, and the model files present (the ONNX file of
 * the dtype in a local folder; offline, every file a hub model needs). One-line UserErrors.
 */
export function checkEmbedderInputs(model: ResolvedModel, options: EmbedderOptions, loc: ModelLocationOptions): void {
  validateOptions(options);
  const onnxFile = onnxFileFor(options.dtype);
  const needed = ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFile];
  if (model.source === 'local' && !existsSync(join(model.folder, onnxFile))) {
    const have = existsSync(join(model.folder, 'onnx'))
      ? readdirSync(join(model.folder, 'onnx')).filter((f) => f.endsWith('.onnx'))
      : [];
    throw new UserError(
      `model "${model.ref}": dtype ${options.dtype} needs ${onnxFile}, not in ${model.folder}` +
        (have.length > 0 ? ` (present: ${have.sort().join(', ')})` : ''),
    );
  }
  assertHubFilesPresent(model, needed, loc.offline);
}

function validateOptions(o: EmbedderOptions): void {
  if (!['cls', 'mean', 'last_token'].includes(o.pooling)) throw new UserError(`pooling "${o.pooling}": use cls, mean or last_token`);
  if (!Number.isInteger(o.batchSize) || o.batchSize < 1) throw new UserError(`batch_size ${o.batchSize}: must be a positive integer`);
  if (o.maxTokens !== null && (!Number.isInteger(o.maxTokens) || o.maxTokens < 1)) throw new UserError(`max_tokens ${o.maxTokens}: must be a positive integer`);
  if (o.threads !== undefined && (!Number.isInteger(o.threads) || o.threads < 1)) throw new UserError(`threads ${o.threads}: must be a positive integer`);
  onnxFileFor(o.dtype);
}
