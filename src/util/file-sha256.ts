/**
 * The one memo of model file hashes (dense embedders and rerankers alike): the SHA-256 of a file,
 * computed once per file version, memoised in-process by (absolute path, size, mtime in ns, inode)
 * and, when a memo folder is given, in `<memoDir>/file-sha256.json`, so multi-GB ONNX files are
 * not re-read on every run. A file whose size, mtime or inode changed is hashed again. The memo
 * only saves time: a memo file that cannot be written (read-only cache) costs a re-hash next run.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJsonAtomic } from './atomic.js';
import { sha256File } from './hash.js';

/** The memo file inside a memo folder. */
export const FILE_SHA256_MEMO = 'file-sha256.json';

const memo = new Map<string, string>();

/** The memo key of a file's current version. */
function versionKey(path: string): string {
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
export async function fileSha256(path: string, memoDir?: string): Promise<string> {
  const key = versionKey(path);
  const hit = memo.get(key);
  if (hit) return hit;
  const storeFile = memoDir !== undefined ? join(memoDir, FILE_SHA256_MEMO) : undefined;
  if (storeFile) {
    const stored = readStore(storeFile)[key];
    if (typeof stored === 'string' && /^[0-9a-f]{64}$/.test(stored)) {
      memo.set(key, stored);
      return stored;
    }
  }
  const h = await sha256File(path);
  memo.set(key, h);
  if (storeFile) {
    const store = readStore(storeFile);
    store[key] = h;
    try {
      writeJsonAtomic(storeFile, Object.fromEntries(Object.keys(store).sort().map((k) => [k, store[k]])));
    } catch {
      /* a memo that cannot be written only costs re-hashing */
    }
  }
  return h;
}

/** Test hook: forget the in-process memo. */
export function clearFileHashMemo(): void {
  memo.clear();
}
