/**
 * Loading side of the rerankers: the dtype → ONNX file rule of transformers.js, onnxruntime
 * session options (thread count), the model files a reranker needs, and a content fingerprint of
 * those files for the score cache (SHA-256, memoised by path, size and mtime).
 */
import { assertJsonFilesParse } from '../util/json-files.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import * as transformers from '@huggingface/transformers';
import { AutoConfig, type PretrainedConfig, type PreTrainedModel } from '@huggingface/transformers';
import { UserError } from '../core/errors.js';
import { writeJsonAtomic } from '../util/atomic.js';
import { sha256File, sha256Hex, stableStringify } from '../util/hash.js';

import { DTYPE_SUFFIX, onnxFileFor } from '../models/dtype.js';

/** Files a transformers.js reranker folder must hold for `dtype`. */
export function requiredFiles(dtype: string): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', onnxFileFor(dtype)];
}

/** Default onnxruntime intra-op thread count: every core this process may use. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/** onnxruntime session options for a CPU reranker. */
export function sessionOptions(threads: number): Record<string, unknown> {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
}

/** The `dtype` a model asks for in its config (`transformers.js_config.dtype`), if a plain string. */
export function configDtype(config: PretrainedConfig): string | undefined {
  const tj = (config as unknown as Record<string, unknown>)['transformers.js_config'];
  if (tj && typeof tj === 'object') {
    const d = (tj as Record<string, unknown>).dtype;
    if (typeof d === 'string') return d;
  }
  return undefined;
}

/** The model's config.json through transformers.js. */
export async function loadModelConfig(location: string, revision?: string): Promise<PretrainedConfig> {
  if (existsSync(location)) assertJsonFilesParse(location);
  return AutoConfig.from_pretrained(location, revision !== undefined ? { revision } : {});
}

interface ModelClass {
  from_pretrained(location: string, options: Record<string, unknown>): Promise<PreTrainedModel>;
}

/**
 * The class to load a model with: the Auto class, or, for a config without `model_type`
 * (custom-code models such as jina-reranker-v2, whose Python config class supplies it), the
 * transformers.js class named by its first architecture (e.g. XLMRobertaForSequenceClassification).
 */
export function modelClassFor(config: PretrainedConfig, auto: ModelClass, id: string): ModelClass {
  const raw = config as unknown as Record<string, unknown>;
  if (typeof raw.model_type === 'string' && raw.model_type !== '') return auto;
  const arch = Array.isArray(raw.architectures) ? raw.architectures[0] : undefined;
  const cls = typeof arch === 'string' ? (transformers as Record<string, unknown>)[arch] : undefined;
  if (typeof cls === 'function' && typeof (cls as unknown as ModelClass).from_pretrained === 'function') return cls as unknown as ModelClass;
  throw new UserError(`reranker "${id}": config.json has no model_type and its architecture ${JSON.stringify(arch ?? null)} is not a transformers.js class`);
}

interface HashMemo {
  [path: string]: { size: number; mtimeMs: number; sha256: string };
}

/**
 * SHA-256 fingerprint of the files that define a reranker: config.json, tokenizer.json,
 * tokenizer_config.json and every `onnx/model<suffix>.onnx*` file of the dtype (external data
 * included). File hashes are memoised in `<memoDir>/file-hashes.json` by absolute path, size and
 * mtime, so a multi-GB model is hashed once. Returns undefined when a file is missing.
 */
export async function modelFingerprint(folder: string, dtype: string, memoDir: string): Promise<string | undefined> {
  const onnxDir = join(folder, 'onnx');
  if (!existsSync(onnxDir)) return undefined;
  const base = `model${DTYPE_SUFFIX[dtype] ?? ''}.onnx`;
  const onnx = readdirSync(onnxDir)
    .filter((f) => f === base || f.startsWith(base + '_data') || f.startsWith(base + '.data'))
    .sort()
    .map((f) => `onnx/${f}`);
  const files = ['config.json', 'tokenizer.json', 'tokenizer_config.json', ...onnx];
  if (!onnx.includes(`onnx/${base}`) || files.some((f) => !existsSync(join(folder, f)))) return undefined;

  const memoPath = join(memoDir, 'file-hashes.json');
  let memo: HashMemo = {};
  try {
    memo = JSON.parse(readFileSync(memoPath, 'utf8')) as HashMemo;
  } catch {
    memo = {};
  }
  let changed = false;
  const parts: Record<string, string> = {};
  for (const f of files) {
    const abs = join(folder, f);
    const st = statSync(abs);
    const m = memo[abs];
    if (m && m.size === st.size && m.mtimeMs === st.mtimeMs) {
      parts[f] = m.sha256;
    } else {
      const h = await sha256File(abs);
      memo[abs] = { size: st.size, mtimeMs: st.mtimeMs, sha256: h };
      parts[f] = h;
      changed = true;
    }
  }
  if (changed) {
    try {
      writeJsonAtomic(memoPath, memo);
    } catch {
      /* a read-only cache only costs re-hashing */
    }
  }
  return sha256Hex(stableStringify(parts));
}
