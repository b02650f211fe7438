/**
 * The one memo of file hashes (model files of embedders and rerankers, skills files): the SHA-256
 * of a file, computed once per file version, memoised in-process by (absolute path, size, mtime in
 * ns, inode) and, when a store is given, as the store's `file-sha256` entries (one per file
 * version, keyed by the same four facts), so multi-GB ONNX files are not re-read on every run. A
 * file whose size, mtime or inode changed is hashed again. The memo only saves time: a damaged
 * entry is reported and the file hashed again, and one that cannot be written (read-only cache)
 * costs a re-hash next run.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { sha256File } from '../util/hash.js';
import { CACHE_KINDS, entryKind } from './kinds.js';
import type { CacheStore } from './store.js';

const KIND = entryKind(CACHE_KINDS.fileSha256, 'file-sha256-v1');

const memo = new Map<string, string>();

interface Version {
  /** The in-process memo key. */
  id: string;
  parts: [string, string, string, string];
}

function versionOf(path: string): Version {
  const st = statSync(path, { bigint: true });
  const parts: Version['parts'] = [resolve(path), String(st.size), String(st.mtimeNs), String(st.ino)];
  return { id: parts.join('\u0000'), parts };
}

const isSha = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);

function stored(v: Version, store: CacheStore | undefined): string | undefined {
  if (store === undefined) return undefined;
  return store.readText(KIND, store.key(KIND, v.parts), (text) => {
    const h = text.trim();
    if (!isSha(h) || text !== `${h}\n`) throw new Error('not a SHA-256');
    return h;
  });
}

function keep(v: Version, sha256: string, store: CacheStore | undefined): void {
  if (store === undefined) return;
  try {
    store.write(KIND, store.key(KIND, v.parts), `${sha256}\n`);
  } catch {
    /* a memo that cannot be written only costs re-hashing */
  }
}

/** sha256 (hex) of one file, memoised as described above. */
export async function fileSha256(path: string, store?: CacheStore): Promise<string> {
  const v = versionOf(path);
  const hit = memo.get(v.id) ?? stored(v, store);
  if (hit) {
    memo.set(v.id, hit);
    return hit;
  }
  const h = await sha256File(path);
  memo.set(v.id, h);
  keep(v, h, store);
  return h;
}

/** `path`'s current version (size, mtime, inode): take it before reading a file whose hash you will `rememberFileSha256`. */
export function fileVersion(path: string): string {
  return versionOf(path).id;
}

/** The memoised sha256 of `path`'s current version, or undefined; never reads the file. */
export function memoisedFileSha256(path: string, store?: CacheStore): string | undefined {
  const v = versionOf(path);
  const hit = memo.get(v.id) ?? stored(v, store);
  if (hit) memo.set(v.id, hit);
  return hit;
}

/**
 * Records the sha256 a reader computed while reading `path` in full, so nothing hashes the file
 * again: only when the file's version is still `versionBefore` (taken before the read).
 */
export function rememberFileSha256(path: string, versionBefore: string, sha256: string, store?: CacheStore): void {
  const v = versionOf(path);
  if (v.id !== versionBefore || !isSha(sha256)) return;
  memo.set(v.id, sha256);
  if (store !== undefined && stored(v, store) !== sha256) keep(v, sha256, store);
}

/** Test hook: forget the in-process memo. */
export function clearFileHashMemo(): void {
  memo.clear();
}
