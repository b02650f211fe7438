/**
 * Identity of a dense model's ONNX files for the embedding cache key: the file hashes come from
 * the shared memo (cache/file-sha256.ts), combined here.
 */
import { basename } from 'node:path';
import { fileSha256 } from '../../../cache/file-sha256.js';
import type { CacheStore } from '../../../cache/store.js';
import { sha256Hex } from '../../../util/hash.js';

export interface ModelFilesHash {
  /** sha256 of the model: the ONNX file's own sha256 when it has no external data, else sha256 over "name sha256" lines. */
  sha256: string;
  files: { name: string; sha256: string }[];
}

/** Hash of the ONNX file plus its external-data files (`paths[0]` is the .onnx file). */
export async function modelFilesSha256(paths: readonly string[], hashes?: CacheStore): Promise<ModelFilesHash> {
  const files: { name: string; sha256: string }[] = [];
  for (const p of paths) files.push({ name: basename(p), sha256: await fileSha256(p, hashes) });
  const sha256 = files.length === 1 ? files[0]!.sha256 : sha256Hex(files.map((f) => `${f.name} ${f.sha256}\n`).join(''));
  return { sha256, files };
}
