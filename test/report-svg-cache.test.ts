/**
 * The chart cache of report.html (src/report/html/svg-cache.ts): a hit gives the SVG the chart
 * renders to, without rendering; any change of the specification (data included) misses; a
 * corrupted or partial file is ignored with one log line and rewritten; and report.html is
 * byte-identical with no cache, a cold cache and a warm one.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { atKSpec, renderSvg } from '../src/report/html/charts.js';
import { cachedSvgRenderer, svgCachePath, svgKey, SVG_SUBFOLDER } from '../src/report/html/svg-cache.js';
import { writeHtmlReport } from '../src/api/report.js';
import { runLeaderboardSettings } from '../src/analysis/leaderboard.js';

let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'report-svg-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const points = [
  { run: 'bm25/none', measure: 'NDCG', k: 5, value: 0.25 },
  { run: 'bm25/none', measure: 'NDCG', k: 10, value: 0.375 },
  { run: 'dense/none', measure: 'NDCG', k: 5, value: 0.5 },
  { run: 'dense/none', measure: 'NDCG', k: 10, value: 0.625 },
];

/** A renderer that counts its calls. */
function counting(): { render: (s: Parameters<typeof renderSvg>[0]) => Promise<string>; calls: () => number } {
  let n = 0;
  return { render: async (s) => (n++, renderSvg(s)), calls: () => n };
}

function makeResults(dir: string): void {
  const run = (ret: string, vals: number[]) => {
    const d = join(dir, ret, 'none');
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'per-query.jsonl'), vals.map((v, i) => JSON.stringify({ id: `q${i}`, metrics: { 'NDCG@10': v, 'Recall@10': v }, gold: ['s1'], retrieved: ['s1', 's2'] })).join('\n') + '\n');
    writeFileSync(join(d, 'metrics.json'), JSON.stringify({ experiment: 'exp', retriever: ret, reranker: 'none' }));
    writeFileSync(join(d, 'breakdown.json'), JSON.stringify({ by: 'major', groups: { A: { queries: 2, metrics: { 'NDCG@10': 0.5 } }, B: { queries: 2, metrics: { 'NDCG@10': 0.25 } } } }));
  };
  run('bm25', [1, 0.5, 0, 0.5]);
  run('dense', [0.5, 1, 0.25, 0]);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ config: { resolved: { name: 'exp' } }, runs: [{ dir: 'bm25/none' }, { dir: 'dense/none' }] }));
}

describe('chart cache', () => {
  it('miss renders and stores; a hit gives the same SVG without rendering', async () => {
    const cacheDir = join(root, 'c1');
    const c = counting();
    const svg = cachedSvgRenderer(cacheDir, () => {}, c.render);
    const spec = atKSpec(points);
    const a = await svg(spec);
    expect(c.calls()).toBe(1);
    const b = await svg(spec);
    expect(c.calls()).toBe(1);
    expect(b).toBe(a);
    expect(a).toBe(await renderSvg(spec));
    expect(a.startsWith('<svg')).toBe(true);
    expect(readdirSync(join(cacheDir, SVG_SUBFOLDER))).toHaveLength(1);
  });

  it('any change of the specification or its data misses', () => {
    const k0 = svgKey(atKSpec(points));
    const changed = [
      atKSpec(points.map((p, i) => (i === 0 ? { ...p, value: 0.2500001 } : p))),
      atKSpec(points.map((p, i) => (i === 3 ? { ...p, run: 'dense/rr' } : p))),
      atKSpec(points.slice(1)),
      { ...atKSpec(points), width: 181 },
    ].map(svgKey);
    expect(new Set([k0, ...changed]).size).toBe(changed.length + 1);
    expect(svgKey(atKSpec(points))).toBe(k0);
  });

  it('a corrupted or partial file is reported once, rendered again and rewritten', async () => {
    const cacheDir = join(root, 'c2');
    const spec = atKSpec(points);
    const good = await cachedSvgRenderer(cacheDir)(spec);
    const path = svgCachePath(cacheDir, svgKey(spec));
    const file = readFileSync(path, 'utf8');
    for (const bad of [file.slice(0, file.length - 10), file.replace('<svg', '<svh'), 'garbage', '']) {
      writeFileSync(path, bad);
      const logs: string[] = [];
      const c = counting();
      expect(await cachedSvgRenderer(cacheDir, (l) => logs.push(l), c.render)(spec)).toBe(good);
      expect(c.calls()).toBe(1);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatch(/^cache: report-svg entry .* is damaged \(.+\); computing it again$/);
      expect(logs[0]).toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(file);
    }
    expect(readdirSync(join(cacheDir, SVG_SUBFOLDER)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('report.html is byte-identical without a cache, with a cold one and a warm one', async () => {
    const dir = join(root, 'exp');
    makeResults(dir);
    const stats = { seed: 1, iterations: 200 };
    const out = join(dir, 'report.html');
    const html = async (cache?: { cacheDir: string }) => (await writeHtmlReport([dir], out, runLeaderboardSettings(stats), cache), readFileSync(out));
    const none = await html();
    const cacheDir = join(root, 'c3');
    const cold = await html({ cacheDir });
    expect(existsSync(join(cacheDir, SVG_SUBFOLDER))).toBe(true);
    const warm = await html({ cacheDir });
    expect(cold.equals(none)).toBe(true);
    expect(warm.equals(none)).toBe(true);
  });
});
