/**
 * The HTML report in a real browser (Debian's chromium through playwright-core, one launch).
 *
 * A copy of data/mini is made hostile: skill names and categories carrying <script> and
 * <img onerror>, a `javascript:` source_url, a query text with markup; one skill keeps an https
 * source_url. `skillret-eval run` on it (BM25 and GloVe with HNSW, each with and without the GloVe
 * MaxSim scorer) writes report.html; the page is opened from disk and must render the comparison
 * table, the charts, the on/off and audit sections, the slices and the explorer; filtering and search
 * must work; the hostile text must show as text and run nothing; no console error and no request
 * other than the file itself. A screenshot is saved to test-artifacts/report.png.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { runCli } from './helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const REPO = resolve(import.meta.dirname, '..');
const ARTIFACTS = join(REPO, 'test-artifacts');
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI installs Debian's chromium (.ci/run)`);
if (!haveChromium) console.log(`report-browser: skipped, ${CHROMIUM} not installed (apt-get install chromium)`);

const EVIL_NAME = '<script>window.__pwned = "name"</script>agent-trajectory-review';
const EVIL_MAJOR = '<img src=x onerror="window.__pwned=\'major\'">AI Agents';
const EVIL_URL = 'javascript:window.__pwned="url"';
const GOOD_URL = 'https://example.org/skills/subagent-fanout?a=1&b=<2>';
const EVIL_QUERY = ' <img src=x onerror="window.__pwned=\'query\'"> <a href="javascript:window.__pwned=1">click</a> zebracorn';

let root: string;
let out: string;
let browser: Browser | undefined;

function hostileCopy(): string {
  const data = join(root, 'data');
  cpSync(join(REPO, 'data', 'mini'), data, { recursive: true });
  const edit = (file: string, f: (r: Record<string, unknown>) => void) => {
    const p = join(data, file);
    const rows = readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    rows.forEach(f);
    writeFileSync(p, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  };
  edit('skills/test.jsonl', (r) => {
    if (r.name === 'agent-trajectory-review') Object.assign(r, { name: EVIL_NAME, source_url: EVIL_URL });
    if (r.major === 'AI Agents') r.major = EVIL_MAJOR;
    if (r.name === 'subagent-fanout') r.source_url = GOOD_URL;
  });
  edit('queries/test.jsonl', (r) => {
    if (r.id === 'q-00001') r.query = `${String(r.query)}${EVIL_QUERY}`;
  });
  return data;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'report-browser-'));
  const data = hostileCopy();
  out = join(root, 'results');
  writeFileSync(
    join(root, 'hostile.yaml'),
    [
      'name: hostile',
      'description: "<b onmouseover=alert(1)>hostile</b> description"',
      `dataset: { path: ${JSON.stringify(data)}, split: test }`,
      'k: [5, 10, 15]',
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 20 }',
      '  - { id: glove, type: dense, model: glove-6b-100d-static, index: { type: hnsw }, top_k: 20 }',
      'rerankers:',
      '  - { id: none }',
      '  - { id: glove-maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }',
      'stats: { iterations: 1000 }',
      `output: ${JSON.stringify(out)}`,
    ].join('\n') + '\n',
  );
  const r = await runCli(['run', '-q', '--cache-dir', join(root, 'cache'), join(root, 'hostile.yaml')]);
  if (r.code !== 0) throw new Error(`run failed: ${r.err}`);
  if (haveChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!haveChromium)('report.html in chromium', () => {
  it('renders, filters, searches, shows hostile text as text, runs nothing and loads nothing', async () => {
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';/);
    expect(html).not.toContain(EVIL_NAME);
    expect(html).not.toMatch(/<img|<script>window/);

    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith('file:')) requests.push(r.url());
    });
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(pathToFileURL(join(out, 'report.html')).href);

    // Comparison table: one row per run, sortable.
    const labels = await page.locator('#comparison-table tbody th').allTextContents();
    expect(labels).toEqual(['bm25/none (baseline)', 'bm25/glove-maxsim', 'glove/none', 'glove/glove-maxsim']);
    await page.locator('#comparison-table thead th', { hasText: 'NDCG@10' }).first().locator('button').click();
    const col = await page.locator('#comparison-table thead th').allTextContents();
    const j = col.findIndex((t) => t.startsWith('NDCG@10'));
    const sorted = await page.locator(`#comparison-table tbody td:nth-child(${j + 1})`).evaluateAll((tds) => tds.map((td) => Number((td as HTMLElement).dataset.v)));
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b));

    // Charts: rendered SVG with marks, in every chart section.
    for (const sel of ['#charts', '#onoff', '#slices']) {
      expect(await page.locator(`${sel} svg`).count(), sel).toBeGreaterThan(0);
      expect(await page.locator(`${sel} svg path, ${sel} svg line`).count(), sel).toBeGreaterThan(2);
    }
    expect(await page.locator('#onoff .onoff').count()).toBe(2);
    expect(await page.locator('#audit tbody tr').count()).toBe(1);
    expect(await page.locator('#slices').textContent()).toContain(EVIL_MAJOR);

    // Explorer: every query, then filters and search.
    const count = () => page.locator('#q-count').textContent();
    expect(await count()).toBe('21 of 21 queries');
    const perQuery = (run: string) =>
      readFileSync(join(out, run, 'per-query.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; gold: string[]; retrieved: string[]; vs_none?: Record<string, number> });
    const failedGlove = perQuery('glove/none').filter((q) => q.gold.some((g) => !q.retrieved.slice(0, 10).includes(g))).length;
    await page.selectOption('#q-filter', 'failed:2');
    expect(await count()).toBe(`${failedGlove} of 21 queries`);
    expect(failedGlove).toBeGreaterThan(0);
    expect(await page.locator('#q-list details').count()).toBe(failedGlove);
    const hurt = perQuery('glove/glove-maxsim').filter((q) => (q.vs_none?.['NDCG@10'] ?? 0) < -1e-12).length;
    await page.selectOption('#q-filter', 'hurt:3');
    expect(await count()).toBe(`${hurt} of 21 queries`);
    await page.selectOption('#q-filter', 'all');
    await page.fill('#q-search', 'zebracorn');
    expect(await count()).toBe('1 of 21 queries');

    // The hostile query: its text, gold names, categories and URLs show as text; nothing ran.
    const card = page.locator('#q-list details').first();
    await card.locator('summary').click();
    expect(await card.locator('.qtext').textContent()).toContain(EVIL_QUERY.trim());
    expect(await card.locator('ul.gold').textContent()).toContain(EVIL_NAME);
    expect(await card.locator('ul.gold').textContent()).toContain(EVIL_MAJOR);
    expect(await card.locator('.rawurl').textContent()).toContain(EVIL_URL);
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    expect(hrefs.filter((h) => !h.startsWith('#'))).toEqual([new URL(GOOD_URL).href]);
    expect(await card.locator('a.src').getAttribute('rel')).toBe('noopener noreferrer');
    expect(await card.locator('ol.ranked li.hit').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.locator('img, iframe, object, embed').count()).toBe(0);
    expect(await page.evaluate(() => document.querySelectorAll('[onerror], [onclick], [onmouseover]').length)).toBe(0);
    expect(await page.evaluate(() => document.scripts.length)).toBe(2);

    mkdirSync(ARTIFACTS, { recursive: true });
    await card.screenshot({ path: join(ARTIFACTS, 'report-hostile-query.png') });
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });
});
