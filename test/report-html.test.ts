/**
 * report.html built in Node from small hand-made results folders (no browser): escaping of every
 * untrusted text, the CSP, the explorer data block, safe links, determinism and the command's flags.
 * The browser behaviour is test/report-browser.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportCommand } from '../src/commands/report.js';
import { jsonForScript } from '../src/report/html/page.js';
import { explorerBlock, explorerColumns, explorerDataOfPage, FORMAT, readExplorerBlock, type ExplorerBlock } from '../src/report/html/explorer-data.js';
import { formatPercent, formatSignedPercent } from '../src/metrics/official-percent.js';
import type { ExplorerData } from '../src/analysis/report-view.js';
import { safeHttpUrl } from '../src/analysis/report-view.js';
import { userError } from './helpers/cli.js';

let root: string;
const EVIL = '<script>alert(1)</script>';
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'report-html-'));
  const exp = join(root, 'exp');
  const run = (ret: string, rr: string, vals: number[], extra: Record<string, unknown> = {}) => {
    const dir = join(exp, ret, rr);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'per-query.jsonl'),
      vals.map((v, i) => JSON.stringify({ id: `q${i}`, metrics: { 'NDCG@10': v, 'Recall@10': v }, gold: ['s1'], retrieved: v > 0 ? ['s1', 's2'] : ['s2', 's1'], ...(rr !== 'none' ? { vs_none: { 'NDCG@10': v - 0.5 } } : {}) })).join('\n') + '\n',
    );
    writeFileSync(join(dir, 'metrics.json'), JSON.stringify({ experiment: 'exp', retriever: ret, reranker: rr, ...extra }));
    if (rr === 'none') writeFileSync(join(dir, 'breakdown.json'), JSON.stringify({ by: 'major', groups: { [EVIL]: { queries: 2, metrics: { 'NDCG@10': 0.5 } }, Other: { queries: 2, metrics: { 'NDCG@10': 0.25 } } } }));
    else {
      // The current shape: slices, with on − off inside each group of a reranked run.
      const vs = (base: number, treated: number, pHolm: number) => ({ metric: 'NDCG@10', base, treated, delta: treated - base, helped: 1, hurt: 0, unchanged: 1, p_value: pHolm / 2, p_holm: pHolm });
      const groups = { [EVIL]: { queries: 2, metrics: { 'NDCG@10': 0.75 }, vs_none: vs(0.5, 0.75, 0.01) }, Other: { queries: 2, metrics: { 'NDCG@10': 0.5 }, vs_none: vs(0.25, 0.5, 0.2) } };
      writeFileSync(join(dir, 'breakdown.json'), JSON.stringify({ category_rule: 'each_gold', slices: { major: { note: `rule ${EVIL}`, overlapping: true, groups } } }));
    }
  };
  run('bm25', 'none', [1, 0.5, 0, 0.5]);
  run('bm25', 'rr', [1, 1, 0.5, 0], { reranking: { depth: 20, versus: 'bm25/none', ceiling: { 'Recall@20': 1 }, attribution: { primaryKey: 'NDCG@10', counts: { helped: 2, hurt: 1, unchanged: 1 }, metrics: { 'NDCG@10': { base: 0.5, treated: 0.625, randomization: { pValue: 0.5 }, tTest: { pValue: 0.4 } } } } } });
  writeFileSync(join(exp, 'manifest.json'), JSON.stringify({ config: { resolved: { name: 'exp', description: `desc ${EVIL}` } }, runs: [{ dir: 'bm25/none' }, { dir: 'bm25/rr' }] }));
  writeFileSync(join(exp, 'queries.jsonl'), ['q0', 'q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, query: `text of ${id} ${EVIL} </script><script>alert(2)</script>`, gold: ['s1'] })).join('\n') + '\n');
  writeFileSync(
    join(exp, 'skills.jsonl'),
    [
      JSON.stringify({ id: 's1', name: `one ${EVIL}`, major: EVIL, source_url: 'javascript:alert(3)' }),
      JSON.stringify({ id: 's2', name: 'two', source_url: 'https://example.org/two' }),
    ].join('\n') + '\n',
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('report.html', () => {
  it('writes <folder>/report.html: escaped texts, CSP hashes that match, JSON block without raw <', async () => {
    const msg = await reportCommand({ paths: [join(root, 'exp')], iterations: 200 });
    const file = join(root, 'exp', 'report.html');
    expect(msg).toBe(`wrote ${file} (2 runs, 4 queries)\n`);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toContain(EVIL);
    expect(html).toContain('desc &lt;script&gt;alert(1)&lt;/script&gt;');
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = (s: string) => createHash('sha256').update(s).digest('base64');
    expect(html).toContain(`script-src 'sha256-${hash(scripts[0]!)}'`);
    expect(html).toContain(`style-src 'sha256-${hash(style)}'`);
    // Slices: both breakdown.json shapes read; the reranked run's on − off per group, * where Holm's p < 0.05.
    expect(html).toContain('<h3>By major</h3>'); // the first run's (older) shape names the slices
    expect(html).toContain('<tr><th scope="row">bm25/rr</th><td>+25.00* (1/0)</td><td>+25.00 (1/0)</td></tr>');
    const block = /<script type="application\/json" id="explorer-data">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(block).not.toMatch(/[<>]/);
    expect(JSON.parse(block)).toMatchObject({ format: FORMAT, encoding: 'deflate-raw;base64', mainKey: 'NDCG@10', k: 10 });
    expect(html).not.toContain('</script><script>alert(2)'); // the query texts are inside the compressed columns
    const data = explorerDataOfPage(html);
    expect(data.queries[0]!.text).toContain('</script><script>alert(2)</script>');
    expect(data.skills.s1).toMatchObject({ name: `one ${EVIL}`, major: EVIL, url: null, rawUrl: 'javascript:alert(3)' });
    expect(data.skills.s2!.url).toBe('https://example.org/two');
    expect(data.runs).toEqual([{ label: 'bm25/none', reranked: false }, { label: 'bm25/rr', reranked: true }]);
    expect(data.queries[2]!.runs[0]).toMatchObject({ goldRanks: [2], failed: false, valueText: '0.00' });
    expect(html).toContain('helped 2</span>, <span class="hurt">hurt 1</span>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; (2)');
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(3);
    // Same inputs, same bytes.
    await reportCommand({ paths: [join(root, 'exp')], iterations: 200, out: join(root, 'again.html') });
    expect(readFileSync(join(root, 'again.html'), 'utf8')).toBe(html);
  });

  it("the explorer's compressed columns hold every query's shown values: per-query.jsonl's, and the same bytes for the same data", () => {
    const html = readFileSync(join(root, 'exp', 'report.html'), 'utf8');
    const data = explorerDataOfPage(html);
    const names = new Map(readFileSync(join(root, 'exp', 'skills.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; name: string }).map((s) => [s.id, s.name]));
    expect(data.runs.map((r) => r.label)).toEqual(['bm25/none', 'bm25/rr']);
    data.runs.forEach((run, j) => {
      const rows = readFileSync(join(root, 'exp', ...run.label.split('/'), 'per-query.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; metrics: Record<string, number>; gold: string[]; retrieved: string[]; vs_none?: Record<string, number> });
      expect(data.queries.map((q) => q.id)).toEqual(rows.map((r) => r.id));
      rows.forEach((r, i) => {
        const q = data.queries[i]!;
        const shown = q.runs[j]!;
        const ranks = r.gold.map((g) => (r.retrieved.includes(g) ? r.retrieved.indexOf(g) + 1 : null));
        expect(q.gold).toEqual(r.gold);
        expect(shown).toEqual({
          top: r.retrieved.slice(0, data.k),
          goldRanks: ranks,
          valueText: formatPercent(r.metrics[data.mainKey]!),
          failed: ranks.some((x) => x === null || x > data.k),
          vsNone: r.vs_none?.[data.mainKey] ?? null,
          vsNoneText: r.vs_none ? formatSignedPercent(r.vs_none[data.mainKey]!) : null,
        });
        for (const id of shown.top) expect(data.skills[id]!.name).toBe(names.get(id));
      });
    });
    // Deterministic: the same data, the same block, byte for byte; and it reads back to the data.
    const again = explorerDataOfPage(html);
    expect(jsonForScript(explorerBlock(again))).toBe(/id="explorer-data">([\s\S]*?)<\/script>/.exec(html)![1]);
    expect(readExplorerBlock(explorerBlock(again))).toEqual(explorerColumns(again));
  });

  it('explorer columns: skills by index in id order, family only when some skill has one, hostile texts kept as data', () => {
    const data: ExplorerData = {
      mainKey: 'NDCG@10',
      k: 2,
      runs: [{ label: `r ${EVIL}`, reranked: true }],
      queries: [{ id: `q ${EVIL}`, text: `</script>${EVIL}\u2028`, generatorModel: null, gold: ['b'], runs: [{ top: ['b', 'a'], goldRanks: [1], valueText: '100.00', failed: false, vsNone: -0.5, vsNoneText: '-50.00' }] }],
      skills: { b: { name: `<b>${EVIL}</b>`, major: null, sub: 'x', url: null, rawUrl: 'javascript:x' }, a: { name: 'a', major: 'M', sub: null, url: 'https://a.example/', rawUrl: 'https://a.example/' } },
    };
    const c = explorerColumns(data);
    expect(c.skills.id).toEqual(['a', 'b']);
    expect(c.skills.family).toBeUndefined();
    expect(c.queries.gold).toEqual([[1]]);
    expect(c.runs[0]!.top).toEqual([[1, 0]]);
    const block = jsonForScript(explorerBlock(data));
    expect(block).not.toMatch(/[<>&\u2028]/);
    expect(block).toBe(jsonForScript(explorerBlock(structuredClone(data))));
    const page = `<script type="application/json" id="explorer-data">${block}</script>`;
    expect(explorerDataOfPage(page)).toEqual(data);
    const withFamily = { ...data, skills: { ...data.skills, a: { ...data.skills.a!, family: 'f1' } } };
    expect(explorerColumns(withFamily).skills.family).toEqual(['f1', null]);
    expect(explorerDataOfPage(`<script type="application/json" id="explorer-data">${jsonForScript(explorerBlock(withFamily))}</script>`)).toEqual(withFamily);
    expect(() => readExplorerBlock({ ...(JSON.parse(block) as ExplorerBlock), format: 'other' as typeof FORMAT })).toThrow('unknown format');
  });

  it("the on/off chart draws its zero rule once, not once per query", () => {
    const html = readFileSync(join(root, 'exp', 'report.html'), 'utf8');
    const onoff = /<section id="onoff">([\s\S]*?)<\/section>/.exec(html)![1]!;
    const rules = [...onoff.matchAll(/<g class="mark-rule role-mark[^"]*"[^>]*>([\s\S]*?)<\/g>/g)].map((m) => (m[1]!.match(/<line /g) ?? []).length);
    expect(rules).toEqual([1]);
  });

  it('safe links: only http(s)', () => {
    expect(safeHttpUrl('https://a.example/x?y=<1>')).toBe('https://a.example/x?y=%3C1%3E');
    for (const u of ['javascript:alert(1)', ' javascript:x', 'JAVASCRIPT:x', 'data:text/html,x', '//evil.example', 'ftp://x', 'http//x', undefined]) expect(safeHttpUrl(u)).toBeNull();
  });

  it('jsonForScript leaves no way out of the data block', () => {
    const s = jsonForScript({ a: '</script><!-- \u2028 & >' });
    expect(s).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(s)).toEqual({ a: '</script><!-- \u2028 & >' });
  });

  it('bad input: one line', async () => {
    expect(await userError(reportCommand({ paths: [join(root, 'exp', 'bm25', 'none'), join(root, 'exp', 'bm25', 'rr')] }))).toContain('--out: required');
    expect(await userError(reportCommand({ paths: [join(root, 'nope')] }))).toContain('no such results folder');
    expect(await userError(reportCommand({ paths: [join(root, 'exp')], out: join(root, 'no', 'r.html') }))).toContain('--out');
  });
});
