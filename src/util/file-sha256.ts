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

/** The memo key of `path`'s current version (size, mtime, inode): take it before reading a file whose hash you will `rememberFileSha256`. */
export function fileVersion(path: string): string {
  return versionKey(path);
}

/** The memoised sha256 of `path`'s current version, or undefined; never reads the file. */
export function memoisedFileSha256(path: string, memoDir?: string): string | undefined {
  const key = versionKey(path);
  const hit = memo.get(key);
  if (hit) return hit;
  if (memoDir === undefined) return undefined;
  const stored = readStore(join(memoDir, FILE_SHA256_MEMO))[key];
  if (typeof stored === 'string' && /^[0-9a-f]{64}$/.test(stored)) {
    memo.set(key, stored);
    return stored;
  }
  return undefined;
}

/**
 * Records the sha256 a reader computed while reading `path` in full, so nothing hashes the file
 * again: only when the file's version is still `versionBefore` (taken before the read).
 */
export function rememberFileSha256(path: string, versionBefore: string, sha256: string, memoDir?: string): void {
  if (versionKey(path) !== versionBefore || !/^[0-9a-f]{64}$/.test(sha256)) return;
  memo.set(versionBefore, sha256);
  if (memoDir === undefined) return;
  const storeFile = join(memoDir, FILE_SHA256_MEMO);
  const store = readStore(storeFile);
  if (store[versionBefore] === sha256) return;
  store[versionBefore] = sha256;
  try {
    writeJsonAtomic(storeFile, Object.fromEntries(Object.keys(store).sort().map((k) => [k, store[k]])));
  } catch {
    /* a memo that cannot be written only costs re-hashing */
  }
}

/** Test hook: forget the in-process memo. */
export function clearFileHashMemo(): void {
  memo.clear();
}
