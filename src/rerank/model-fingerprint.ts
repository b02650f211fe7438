/**
 * Content fingerprint of a local reranker for its score cache key: SHA-256 over the hashes of the
 * files that define its scores (model-files.ts), each file hashed once per version through the
 * shared memo (cache/file-sha256.ts).
 */
import { join } from 'node:path';
import { fileSha256 } from '../cache/file-sha256.js';
import type { CacheStore } from '../cache/store.js';
import { sha256Hex, stableStringify } from '../util/hash.js';
import { scoreDefiningFiles } from './model-files.js';

/**
 * sha256 of `{relative path: file sha256}` (stable JSON) over the score-defining files of `folder`
 * for `dtype`, the file hashes memoised in `hashes`; undefined when a file is missing.
 */
export async function modelFingerprint(folder: string, dtype: string, hashes: CacheStore): Promise<string | undefined> {
  const files = scoreDefiningFiles(folder, dtype);
  if (files === undefined) return undefined;
  const parts: Record<string, string> = {};
  for (const f of files) parts[f] = await fileSha256(join(folder, f), hashes);
  return sha256Hex(stableStringify(parts));
}
