/**
 * The systems comparison of report.html, kept in the cache: `<cacheDir>/report-comparison/<key>.json`,
 * keyed by everything `compareSystems` computes from (the settings, the compared query ids and what
 * was dropped, each run's label and its value of every compared metric on every compared query,
 * bit for bit; not the runs' file paths, which it only copies: the run step reads a staging folder
 * of a new name each time, so they are put back from the runs at hand) plus this tool's version, its compiled code (`codeFingerprint`) and the format below, so a warm rerun whose per-query
 * values are unchanged skips the randomization test and the bootstrap (about 0.05 s per metric per
 * run). The file holds the comparison as JSON with −0, NaN and ±Infinity tagged, so what is read
 * back is what was computed, bit for bit; an unreadable file is ignored (computed again and
 * rewritten). A comparison that throws is not kept.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QuerySet, ComparedRun } from '../../significance/query-set.js';
import { compareSystems, type ComparisonSettings, type SystemsComparison } from '../../significance/systems.js';
import { writeFileAtomic } from '../../util/atomic.js';
import { stableStringify } from '../../util/hash.js';
import { codeFingerprint, ownPackage } from '../../util/package-version.js';

export const COMPARISON_SUBFOLDER = 'report-comparison';
/** Bump when the comparison's computation or its JSON changes. */
const FORMAT = 'skillret-comparison v1';

export type CompareSystems = typeof compareSystems;


/** The cache key of a comparison (see the module comment). */
export function comparisonKey(runs: readonly ComparedRun[], qs: QuerySet, s: ComparisonSettings): string {
  const h = createHash('sha256');
  h.update(stableStringify({ format: FORMAT, tool: ownPackage().version, code: codeFingerprint(), settings: s, qids: qs.qids, dropped: qs.dropped, labels: runs.map((r) => r.label) }));
  const values = new Float64Array(qs.qids.length * s.keys.length);
  for (const r of runs) {
    let i = 0;
    for (const q of qs.qids) {
      const m = r.records.get(q)?.metrics;
      for (const k of s.keys) values[i++] = m?.[k] ?? Number.NaN;
    }
    h.update(new Uint8Array(values.buffer));
  }
  return h.digest('hex');
}

/** JSON of a value whose numbers keep −0, NaN and ±Infinity (as {"$n": "-0" | "NaN" | "Infinity" | "-Infinity"}). */
export function encodeExact(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)) ? { $n: Object.is(v, -0) ? '-0' : String(v) } : v));
}

export function decodeExact(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o);
      if (keys.length === 1 && keys[0] === '$n' && typeof o['$n'] === 'string') return Number(o['$n']);
    }
    return v;
  });
}

/** `compareSystems` through the cache under `cacheDir`. */
export function cachedCompareSystems(cacheDir: string): CompareSystems {
  return (runs, qs, s) => {
    const file = join(cacheDir, COMPARISON_SUBFOLDER, `${comparisonKey(runs, qs, s)}.json`);
    if (existsSync(file)) {
      try {
        const v = decodeExact(readFileSync(file, 'utf8')) as SystemsComparison;
        if (v && typeof v === 'object' && Array.isArray(v.rows) && v.rows.length === runs.length) {
          v.rows.forEach((row, i) => (row.file = runs[i]!.file));
          return v;
        }
      } catch {
        // unreadable: computed again
      }
    }
    const c = compareSystems(runs, qs, s);
    writeFileAtomic(file, encodeExact(c) + '\n');
    return c;
  };
}
