/**
 * The embedder facts cache: what a loaded local embedder knows about its model that the embedding
 * cache key and the run's manifest need (the model's own token limit, the padding side, the
 * special-token frame, the hidden size), stored so that a warm run whose vectors are all cached
 * never loads the model (lazy-embedder.ts).
 *
 * File: `<cacheDir>/embedder-facts/<key>.json`, key = sha256 of (format, transformers.js version,
 * dtype, the SHA-256 of each ONNX file of the dtype, of config.json and of the tokenizer files:
 * every input the facts are read from). A changed model file or library version misses; a file
 * that is unreadable, of another format or key, or malformed is ignored and rewritten. Written
 * atomically after a model was loaded.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { packageVersion } from '../../util/package-version.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { fileSha256 } from '../../util/file-sha256.js';
import { sha256Hex, stableStringify } from '../../util/hash.js';
import type { Frame } from './token-frame.js';

export const FACTS_FORMAT = 'skillret-embedder-facts-v1';
export const FACTS_SUBFOLDER = 'embedder-facts';

export interface EmbedderFacts {
  /** The model's own token limit (tokenizer model_max_length, config max_position_embeddings). */
  modelMaxLength: number;
  paddingSide: 'left' | 'right';
  frame: Frame;
  /** config.hidden_size, or null when the config does not say. */
  dim: number | null;
}

interface FactsFile extends EmbedderFacts {
  format: string;
  key: string;
}

/** The files the facts are read from, as hashed for the key: the ONNX files, config.json, tokenizer files present. */
export function factsInputFiles(folder: string, modelFiles: readonly string[]): string[] {
  const own = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json'].map((f) => join(folder, f));
  return [...modelFiles, ...own.filter((p, i) => i === 0 || existsSync(p))];
}

/**
 * The facts key of a model folder at `dtype` (`modelFiles`: its ONNX files, model file first), or
 * null when a file it covers is missing (a hub model not fetched yet: the model is loaded instead).
 */
export async function embedderFactsKey(folder: string, modelFiles: readonly string[], dtype: string, hashDir?: string): Promise<string | null> {
  const files = factsInputFiles(folder, modelFiles);
  if (!files.every((p) => existsSync(p))) return null;
  const hashes: string[] = [];
  for (const p of files) hashes.push(`${relative(folder, p).split('\\').join('/')} ${await fileSha256(p, hashDir)}`);
  return sha256Hex(stableStringify({ format: FACTS_FORMAT, transformers: packageVersion('@huggingface/transformers'), dtype, files: hashes }));
}

export function factsPath(cacheDir: string, key: string): string {
  return join(cacheDir, FACTS_SUBFOLDER, `${key}.json`);
}

const isIdList = (v: unknown): v is number[] => Array.isArray(v) && v.every((x) => Number.isInteger(x) && x >= 0);

/** The cached facts of `key`, or null (absent, unreadable, malformed or another key: `log` says which). */
export function readEmbedderFacts(cacheDir: string, key: string, log: (line: string) => void): EmbedderFacts | null {
  const path = factsPath(cacheDir, key);
  if (!existsSync(path)) return null;
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as Partial<FactsFile>;
    const ok =
      f.format === FACTS_FORMAT &&
      f.key === key &&
      Number.isSafeInteger(f.modelMaxLength) &&
      f.modelMaxLength! > 0 &&
      (f.paddingSide === 'left' || f.paddingSide === 'right') &&
      isIdList(f.frame?.prefix) &&
      isIdList(f.frame?.suffix) &&
      (f.dim === null || (Number.isInteger(f.dim) && f.dim! > 0));
    if (!ok) throw new Error('not a facts file of this model');
    return { modelMaxLength: f.modelMaxLength!, paddingSide: f.paddingSide!, frame: { prefix: f.frame!.prefix, suffix: f.frame!.suffix }, dim: f.dim! };
  } catch (e) {
    log(`dense: cached embedder facts ${path} are unusable (${e instanceof Error ? e.message : String(e)}); loading the model`);
    return null;
  }
}

export function writeEmbedderFacts(cacheDir: string, key: string, facts: EmbedderFacts): void {
  const file: FactsFile = { format: FACTS_FORMAT, key, ...facts, frame: { prefix: [...facts.frame.prefix], suffix: [...facts.frame.suffix] } };
  writeFileAtomic(factsPath(cacheDir, key), JSON.stringify(file) + '\n');
}

/** Whether two fact sets agree (a lazily loaded model is checked against the facts it was keyed by). */
export function sameFacts(a: EmbedderFacts, b: EmbedderFacts): boolean {
  return stableStringify(a) === stableStringify(b);
}
