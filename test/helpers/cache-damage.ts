/**
 * Shared pieces of the cache property tests: a seeded generator, random damage to cache files
 * (deleted, cut short, one bit flipped, a byte appended), and bit-exact comparisons.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { mulberry32 } from './mulberry32.js';
import { CacheStore, entryHeader } from '../../src/cache/store.js';
import type { EntryKind } from '../../src/cache/kinds.js';
import { ScoreCache } from '../../src/rerank/score-cache.js';

/** A deterministic generator of uniform floats in [0, 1). */
export const rng = mulberry32;

/** An integer in [0, n). */
export const pick = (rnd: () => number, n: number): number => Math.floor(rnd() * n);

/** FNV-1a of a string's UTF-16 units (a cheap deterministic hash for stand-in models). */
export function fnv(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

export type Damage = 'delete' | 'truncate' | 'flip' | 'append';
export const DAMAGES: readonly Damage[] = ['delete', 'truncate', 'flip', 'append'];

/**
 * Damages one file: deleted, cut to a random shorter length (possibly empty), one random bit of
 * one random byte flipped, or a byte appended. The file's content always changes.
 */
export function damageFile(path: string, how: Damage, rnd: () => number): void {
  if (how === 'delete') return rmSync(path);
  const b = readFileSync(path);
  if (how === 'truncate') return writeFileSync(path, b.subarray(0, pick(rnd, b.length)));
  if (how === 'append') return writeFileSync(path, Buffer.concat([b, Buffer.from([pick(rnd, 256)])]));
  if (b.length === 0) return writeFileSync(path, Buffer.from([1]));
  const c = Buffer.from(b);
  const at = pick(rnd, c.length);
  c[at] = c[at]! ^ (1 << pick(rnd, 8));
  writeFileSync(path, c);
}

/**
 * Damages each file of `files` with probability `p` (a random kind among `kinds`): the files
 * damaged, by kind.
 */
export function damageSome(files: readonly string[], p: number, rnd: () => number, kinds: readonly Damage[] = DAMAGES): Map<string, Damage> {
  const out = new Map<string, Damage>();
  for (const f of files) {
    if (rnd() >= p) continue;
    const how = kinds[pick(rnd, kinds.length)]!;
    damageFile(f, how, rnd);
    out.set(f, how);
  }
  return out;
}

/** Every file under `dir` (recursively), sorted; none when it does not exist. */
export function filesUnder(dir: string, pred: (p: string) => boolean = () => true): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (pred(p)) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The float32 bit patterns of vectors (what "bit for bit equal" compares). */
export function f32Bits(vs: readonly Float32Array[]): number[][] {
  return vs.map((v) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length)));
}

/** The float64 bit patterns of numbers, as hex (distinguishes -0 from 0, every NaN payload). */
export function f64Bits(xs: readonly number[]): string[] {
  const dv = new DataView(new ArrayBuffer(8));
  return xs.map((x) => {
    dv.setFloat64(0, x);
    return dv.getBigUint64(0).toString(16);
  });
}

/** The scorer group the tests' score caches use. */
export const TEST_SCORER = 'e'.repeat(64);

/** A reranker score cache under the cache root `dir` (one scorer group, TEST_SCORER). */
export function openScores(dir: string, describe?: Record<string, unknown>, compactAbove?: number, log: (line: string) => void = () => {}): ScoreCache {
  return ScoreCache.open(CacheStore.of({ cacheDir: dir, useCache: true, log }), TEST_SCORER, describe, compactAbove);
}

/** The folder of `openScores(dir)`'s chunks. */
export const scoreChunkDir = (dir: string): string => join(dir, 'rerank', TEST_SCORER);

/** Writes `body` as a well-framed store entry of `kind` at `file` (its key: the file's name): forged values, or bodies only the kind's decoder can refuse. */
export function forgeEntry(file: string, kind: EntryKind, body: string | Uint8Array): void {
  const key = basename(file).replace(/\.[^.]+$/, '');
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  writeFileSync(file, Buffer.concat([entryHeader(kind, key, b), b]));
}

/** The body of an entry file (what follows its header line). */
export function entryBody(file: string): Buffer {
  const b = readFileSync(file);
  return b.subarray(b.indexOf(10) + 1);
}
