/**
 * The comparison cache of report.html (src/report/html/comparison-cache.ts): a hit gives, bit for
 * bit, what compareSystems computes (−0, NaN and ±Infinity included); the key follows every value
 * compared and the settings, not the runs' file paths (put back from the runs at hand); a file that
 * does not parse is computed again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PerQueryRecord } from '../src/formats/per-query-jsonl.js';
import { cachedCompareSystems, comparisonKey, COMPARISON_SUBFOLDER, decodeExact, encodeExact } from '../src/report/html/comparison-cache.js';
import type { ComparedRun } from '../src/significance/query-set.js';
import { compareSystems, type ComparisonSettings } from '../src/significance/systems.js';
import { seededUniform } from './helpers/tiny-models.js';

const root = mkdtempSync(join(tmpdir(), 'skillret-comparison-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const KEYS = ['NDCG@10', 'Recall@10'];
const qids = Array.from({ length: 60 }, (_, i) => `q${String(i).padStart(3, '0')}`);

function run(label: string, seed: number, file = `/staging-${seed}/${label}/per-query.jsonl`): ComparedRun {
  const u = seededUniform(seed);
  const records = new Map<string, PerQueryRecord>(qids.map((q) => [q, { metrics: { 'NDCG@10': Math.max(0, u()), 'Recall@10': u() > 0 ? 1 : 0 } }]));
  return { label, file, records, line: new Map(qids.map((q, i) => [q, i + 1])) };
}

const settings: ComparisonSettings = { keys: KEYS, mainKey: 'NDCG@10', baseline: 0, test: 'randomization', correction: 'holm', alpha: 0.05, seed: 7, iterations: 500, pairs: false };
const qs = { qids, dropped: { missing: 0, judgedDifferently: 0 } };

/** Deep equality where numbers must be the same double (Object.is: −0 and NaN told apart). */
function sameBits(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameBits(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return sameBits(ka, kb) && ka.every((k) => sameBits((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}

describe('encodeExact / decodeExact', () => {
  it('keep −0, NaN and ±Infinity, nested anywhere', () => {
    const v = { a: -0, b: [NaN, Infinity, -Infinity, 0, 1.5, -2], c: { d: { e: -0 } }, s: 'x', n: null, t: true };
    expect(sameBits(decodeExact(encodeExact(v)), v)).toBe(true);
    expect(sameBits(decodeExact(encodeExact(v)), { ...v, a: 0 })).toBe(false); // the check tells −0 from +0
  });
});

describe('cachedCompareSystems', () => {
  it('computes once, then answers from the cache, bit for bit, with the runs\' own file paths', () => {
    const dir = join(root, 'a');
    const runs = [run('base', 1), run('other', 2), run('third', 3)];
    const want = compareSystems(runs, qs, settings);
    // NaN is in it (the p against the best, for the best itself)
    const first = cachedCompareSystems(dir)(runs, qs, settings);
    expect(sameBits(first, want)).toBe(true);
    const files = readdirSync(join(dir, COMPARISON_SUBFOLDER));
    expect(files).toEqual([`${comparisonKey(runs, qs, settings)}.json`]);
    // the next run reads a staging folder of another name: same key, its own paths
    const moved = [run('base', 1, '/elsewhere/a'), run('other', 2, '/elsewhere/b'), run('third', 3, '/elsewhere/c')];
    expect(comparisonKey(moved, qs, settings)).toBe(comparisonKey(runs, qs, settings));
    const again = cachedCompareSystems(dir)(moved, qs, settings);
    expect(again.rows.map((r) => r.file)).toEqual(['/elsewhere/a', '/elsewhere/b', '/elsewhere/c']);
    expect(sameBits(again, compareSystems(moved, qs, settings))).toBe(true);
    // a forged file proves the hit is read
    const file = join(dir, COMPARISON_SUBFOLDER, files[0]!);
    const forged = JSON.parse(readFileSync(file, 'utf8')) as { rows: { means: Record<string, number> }[] };
    forged.rows[0]!.means['NDCG@10'] = 0.123;
    writeFileSync(file, JSON.stringify(forged));
    expect(cachedCompareSystems(dir)(runs, qs, settings).rows[0]!.means['NDCG@10']).toBe(0.123);
    // unreadable: computed again and rewritten
    writeFileSync(file, '{"rows": [');
    expect(sameBits(cachedCompareSystems(dir)(runs, qs, settings), want)).toBe(true);
    expect(sameBits(decodeExact(readFileSync(file, 'utf8')), want)).toBe(true);
  });

  it('keys on every compared value, the labels and the settings', () => {
    const runs = [run('base', 1), run('other', 2)];
    const key = comparisonKey(runs, qs, settings);
    const changed = run('other', 2);
    changed.records.get('q017')!.metrics['Recall@10'] = 0.5;
    expect(comparisonKey([runs[0]!, changed], qs, settings)).not.toBe(key);
    const negZero = run('other', 2);
    negZero.records.get('q003')!.metrics['NDCG@10'] = -0;
    const posZero = run('other', 2);
    posZero.records.get('q003')!.metrics['NDCG@10'] = 0;
    expect(comparisonKey([runs[0]!, negZero], qs, settings)).not.toBe(comparisonKey([runs[0]!, posZero], qs, settings));
    expect(comparisonKey([runs[0]!, run('renamed', 2)], qs, settings)).not.toBe(key);
    expect(comparisonKey(runs, qs, { ...settings, seed: 8 })).not.toBe(key);
    expect(comparisonKey(runs, qs, { ...settings, iterations: 501 })).not.toBe(key);
    expect(comparisonKey(runs, { ...qs, qids: qids.slice(1) }, settings)).not.toBe(key);
    expect(comparisonKey(runs, { ...qs, dropped: { missing: 1, judgedDifferently: 0 } }, settings)).not.toBe(key);
  });
});
