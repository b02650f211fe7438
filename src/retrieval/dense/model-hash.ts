/**
 * SHA-256 of model files, computed once per file version: memoised in-process by
 * (absolute path, size, mtime) and, when a cache folder is given, in
 * `<cacheDir>/file-sha256.json` so multi-GB ONNX files are not re-read on every run.
 * A file whose size or mtime changed is hashed again.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { writeJsonAtomic } from '../../util/atomic.js';
import { sha256File, sha256Hex } from '../../util/hash.js';

const memo = new Map<string, string>();

function fingerprint(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${resolve(path)}\u0000${st.size}\u0000${st.mtimeNs}\u0000${st.ino}`;
}

type Store = Record<string, string>;

function readStore(file: string): Store {
  if (!existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Store) : {};
  } catch {
    return {};
  }
}

/** sha256 (hex) of one file, memoised as described above. */
export async function fileSha256(path: string, cacheDir?: string): Promise<string> {
  const fp = fingerprint(path);
  const hit = memo.get(fp);
  if (hit) return hit;
  const storeFile = cacheDir !== undefined ? join(cacheDir, 'file-sha256.json') : undefined;
  if (storeFile) {
    const stored = readStore(storeFile)[fp];
    if (typeof stored === 'string' && /^[0-9a-f]{64}$/.test(stored)) {
      memo.set(fp, stored);
      return stored;
    }
  }
  const h = await sha256File(path);
  memo.set(fp, h);
  if (storeFile) {
    const store = readStore(storeFile);
    store[fp] = h;
    writeJsonAtomic(storeFile, Object.fromEntries(Object.keys(store).sort().map((k) => [k, store[k]])));
  }
  return h;
}

export interface ModelFilesHash {
  /** sha256 of the model: the ONNX file's own sha256 when it has no external data, else sha256 over "name sha256" lines. */
  sha256: string;
  files: { name: string; sha256: string }[];
}

/** Hash of the ONNX file plus its external-data files (`paths[0]` is the .onnx file). */
export async function modelFilesSha256(paths: readonly string[], cacheDir?: string): Promise<ModelFilesHash> {
  const files: { name: string; sha256: string }[] = [];
  for (const p of paths) files.push({ name: basename(p), sha256: await fileSha256(p, cacheDir) });
  const sha256 = files.length === 1 ? files[0]!.sha256 : sha256Hex(files.map((f) => `${f.name} ${f.sha256}\n`).join(''));
  return { sha256, files };
}

/** Test hook: forget the in-process memo. */
export function clearFileHashMemo(): void {
  memo.clear();
}
