/**
 * The embedder facts cache: what a loaded local embedder knows about its model that the embedding
 * cache key and the run's manifest need (the model's own token limit, the padding side, the
 * special-token frame, the hidden size), stored so that a warm run whose vectors are all cached
 * never loads the model (lazy-embedder.ts).
 *
 * Store kind `embedder-facts` (cache/store.ts; `<cacheDir>/embedder-facts/<key>.json`), key over
 * the transformers.js version, the dtype and the SHA-256 of each ONNX file of the dtype, of
 * config.json and of the tokenizer files (every input the facts are read from). A changed model
 * file or library version misses; a damaged entry, or one whose facts are malformed, is reported
 * by the store and the model loaded (the facts written again). Written after a model was loaded.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageVersion } from '../../../util/package-version.js';
import { fileSha256 } from '../../../cache/file-sha256.js';
import { cacheKey } from '../../../cache/key.js';
import { CACHE_KINDS, entryKind } from '../../../cache/kinds.js';
import { CacheStore } from '../../../cache/store.js';
import { stableStringify } from '../../../util/hash.js';
import type { Frame } from '../tokenizers/token-frame.js';

export const FACTS_KIND = entryKind(CACHE_KINDS.embedderFacts, 'embedder-facts-v2');
export const FACTS_SUBFOLDER = CACHE_KINDS.embedderFacts.folder;

export interface EmbedderFacts {
  /** The model's own token limit (tokenizer model_max_length, config max_position_embeddings). */
  modelMaxLength: number;
  paddingSide: 'left' | 'right';
  frame: Frame;
  /** config.hidden_size, or null when the config does not say. */
  dim: number | null;
}

/** The files the facts are read from, as hashed for the key: the ONNX files, config.json, tokenizer files present. */
export function factsInputFiles(folder: string, modelFiles: readonly string[]): string[] {
  const own = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'].map((f) => join(folder, f));
  return [...modelFiles, ...own.filter((p, i) => i === 0 || existsSync(p))];
}

/**
 * The facts key of a model folder at `dtype` (`modelFiles`: its ONNX files, model file first), or
 * null when a file it covers is missing (a hub model not fetched yet: the model is loaded instead).
 * File hashes go through the memo of `hashes` (cache/file-sha256.ts).
 */
export async function embedderFactsKey(folder: string, modelFiles: readonly string[], dtype: string, hashes?: CacheStore): Promise<string | null> {
  const files = factsInputFiles(folder, modelFiles);
  if (!files.every((p) => existsSync(p))) return null;
  const hashed: { file: string; sha256: string }[] = [];
  for (const p of files) hashed.push({ file: relative(folder, p).split('\\').join('/'), sha256: await fileSha256(p, hashes) });
  return cacheKey(FACTS_KIND.name, [FACTS_KIND.format, packageVersion('@huggingface/transformers'), dtype, hashed]);
}

const storeOf = (cacheDir: string, log: (line: string) => void = () => {}) => CacheStore.of({ cacheDir, useCache: true, log });

export function factsPath(cacheDir: string, key: string): string {
  return storeOf(cacheDir).path(FACTS_KIND, key);
}

const isIdList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= 0);

/** The facts of a decoded entry; throws when they are malformed. */
function factsOfJson(v: unknown): EmbedderFacts {
  const f = v as Partial<EmbedderFacts>;
  const ok =
    Number.isSafeInteger(f.modelMaxLength) &&
    f.modelMaxLength! > 0 &&
    (f.paddingSide === 'left' || f.paddingSide === 'right') &&
    isIdList(f.frame?.prefix) &&
    isIdList(f.frame?.suffix) &&
    (f.dim === null || (Number.isInteger(f.dim) && f.dim! > 0));
  if (!ok) throw new Error('malformed facts');
  return { modelMaxLength: f.modelMaxLength!, paddingSide: f.paddingSide!, frame: { prefix: f.frame!.prefix, suffix: f.frame!.suffix }, dim: f.dim! };
}

/** The cached facts of `key`, or null (absent, or damaged: the store reports it in one line through `log`). */
export function readEmbedderFacts(cacheDir: string, key: string, log: (line: string) => void): EmbedderFacts | null {
  return storeOf(cacheDir, log).readJson(FACTS_KIND, key, factsOfJson) ?? null;
}

/** Stores the facts of `key` (a write that fails: one warning through `log`, cache/write-failures.ts). */
export function writeEmbedderFacts(cacheDir: string, key: string, facts: EmbedderFacts, log: (line: string) => void): void {
  const value: EmbedderFacts = { ...facts, frame: { prefix: [...facts.frame.prefix], suffix: [...facts.frame.suffix] } };
  storeOf(cacheDir, log).write(FACTS_KIND, key, JSON.stringify(value) + '\n');
}

/** Whether two fact sets agree (a lazily loaded model is checked against the facts it was keyed by). */
export function sameFacts(a: EmbedderFacts, b: EmbedderFacts): boolean {
  return stableStringify(a) === stableStringify(b);
}
