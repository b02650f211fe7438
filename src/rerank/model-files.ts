/**
 * The files that make a transformers.js reranker folder: those it must hold to load with a dtype
 * (the dtype → ONNX file rule is models/dtype.ts), and those that define its scores (the
 * fingerprint of model-fingerprint.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { onnxFileFor } from '../models/dtype.js';

/** The model's text files: configuration and tokenizer. */
const TEXT_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];

/** Files a transformers.js reranker folder must hold for `dtype`. */
export function requiredFiles(dtype: string): string[] {
  return [...TEXT_FILES, onnxFileFor(dtype)];
}

/**
 * The files that define a reranker's scores (relative to `folder`): the text files and every
 * `onnx/model<suffix>.onnx*` file of the dtype, external data included (`…onnx_data*`,
 * `…onnx.data*`), sorted; undefined when one of them is missing.
 */
export function scoreDefiningFiles(folder: string, dtype: string): string[] | undefined {
  const onnxDir = join(folder, 'onnx');
  if (!existsSync(onnxDir)) return undefined;
  const base = onnxFileFor(dtype).slice('onnx/'.length);
  const onnx = readdirSync(onnxDir)
    .filter((f) => f === base || f.startsWith(base + '_data') || f.startsWith(base + '.data'))
    .sort()
    .map((f) => `onnx/${f}`);
  const files = [...TEXT_FILES, ...onnx];
  if (!onnx.includes(`onnx/${base}`) || files.some((f) => !existsSync(join(folder, f)))) return undefined;
  return files;
}
