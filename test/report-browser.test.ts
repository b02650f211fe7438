/**
 * The HTML report in a real browser (Debian's chromium through playwright-core, one launch).
 *
 * A copy of data/mini is made hostile: skill names and categories carrying <script> and
 * <img onerror>, a `javascript:` source_url, a query text with markup; one skill keeps an https
 * source_url. `skillret-eval run` on it (BM25 and GloVe with HNSW, each with and without the GloVe
 * MaxSim scorer) writes report.html; the page is opened from disk and must render the comparison
 * table, the charts, the on/off and audit sections, the slices and the explorer; filtering and search
 * must work; the hostile text must show as text and run nothing; no console error and no request
 * other than the file itself. A screenshot is saved to test-artifacts/report.png. The explorer reads
 * its per-query data from compressed columns (src/report/html/explorer-data.ts): every query of
 * every run, opened through the search box, must show per-query.jsonl's main metric and Δ, its gold
 * ranks and top-k names (skills.jsonl) and its text (queries.jsonl); without DecompressionStream the
 * explorer says it cannot read its data and the rest of the page still works.
 *
 * The layout, at 1400 and 900 px wide, on a hand-made results folder whose run labels share a long
 * prefix and differ late (test/helpers/long-label-results.ts): the page never scrolls sideways; Δ and
 * W/T/L of the main metric in the comparison table are on screen, inside the table's scroll box and
 * not under its sticky run column; every chart fits its column and every legend label is on screen,
 * inside its chart, distinct from the others and part of its run's full label (shown on hover); the
 * group axis of the slices shows group sizes; the first click on a header sorts best first.
 * Screenshots: test-artifacts/report-layout-<width>.png.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { formatPercent, formatSignedPercent } from '../src/metrics/official-percent.js';
import { runCli } from './helpers/cli.js';
import { reportCommand } from '../src/commands/report.js';
import { LONG_LABELS, SHARED_PREFIX, writeLongLabelResults, ZERO_GROUP } from './helpers/long-label-results.js';

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
  if (haveChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});
afterAll(async () => {
  await browser?.close();
  rmSync(root, { recursive: true, force: true });
});

/** `skillret-eval run` on the hostile copy of data/mini. */
async function hostileRun(): Promise<void> {
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
}

describe.skipIf(!haveChromium)('report.html in chromium', () => {
  beforeAll(async () => {
    if (!out) await hostileRun();
  });

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
    await page.waitForSelector('#q-list details.query'); // the explorer fills in once its columns are inflated

    // Comparison table: one row per run, sortable.
    const labels = await page.locator('#comparison-table tbody th').allTextContents();
    expect(labels).toEqual(['bm25/none (baseline)', 'bm25/glove-maxsim', 'glove/none', 'glove/glove-maxsim']);
    await page.locator('#comparison-table thead th button', { hasText: /^NDCG@10$/ }).click();
    const col = await page.locator('#comparison-table thead th').allTextContents();
    const j = col.findIndex((t) => t.startsWith('NDCG@10'));
    const sorted = await page.locator(`#comparison-table tbody td:nth-child(${j + 1})`).evaluateAll((tds) => tds.map((td) => Number((td as HTMLElement).dataset.v)));
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a)); // best first: the first click sorts a metric descending

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

/** What the page shows of query `qid`: found by the search box, opened. */
async function shownQuery(page: Page, qid: string) {
  await page.fill('#q-search', qid);
  const card = page.locator(`#q-list details.query[data-qid="${qid}"]`);
  await card.locator('summary').click();
  await card.locator('.runs .run').first().waitFor();
  return card.evaluate((d) => ({
    text: d.querySelector('.qtext')?.textContent ?? null,
    badges: [...d.querySelectorAll('summary .badge')].map((b) => ({ text: b.textContent ?? '', failed: b.classList.contains('failed') })),
    gold: [...d.querySelectorAll('ul.gold li .sid')].map((x) => (x.textContent ?? '').trim()),
    runs: [...d.querySelectorAll('.runs .run')].map((r) => ({
      label: r.querySelector('h4')?.textContent ?? '',
      line: r.querySelector('p')?.textContent ?? '',
      top: [...r.querySelectorAll('ol.ranked li')].map((li) => ({ name: li.firstChild?.textContent ?? '', hit: li.classList.contains('hit') })),
    })),
  }));
}

describe.skipIf(!haveChromium)('report.html explorer values in chromium', () => {
  beforeAll(async () => {
    if (!out) await hostileRun();
  });

  it('every query of every run shows the values of per-query.jsonl, queries.jsonl and skills.jsonl (read from the compressed columns)', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    await page.waitForSelector('#q-list details.query');
    const jsonl = <T,>(p: string) => readFileSync(p, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
    const queries = jsonl<{ id: string; query: string; gold: string[] }>(join(out, 'queries.jsonl'));
    const names = new Map(jsonl<{ id: string; name: string }>(join(out, 'skills.jsonl')).map((x) => [x.id, x.name]));
    const labels = ['bm25/none', 'bm25/glove-maxsim', 'glove/none', 'glove/glove-maxsim'];
    const records = new Map(labels.map((l) => [l, new Map(jsonl<{ id: string; metrics: Record<string, number>; gold: string[]; retrieved: string[]; vs_none?: Record<string, number> }>(join(out, l, 'per-query.jsonl')).map((r) => [r.id, r]))]));
    expect(queries).toHaveLength(21);
    for (const q of queries) {
      const s = await shownQuery(page, q.id);
      expect(s.text).toBe(q.query);
      expect(s.gold).toEqual(q.gold);
      expect(s.runs.map((r) => r.label)).toEqual(labels);
      s.runs.forEach((r, i) => {
        const rec = records.get(r.label)!.get(q.id)!;
        const value = formatPercent(rec.metrics['NDCG@10']!);
        const ranks = rec.gold.map((g) => (rec.retrieved.includes(g) ? rec.retrieved.indexOf(g) + 1 : null));
        const name = (id: string) => names.get(id) || id;
        const vs = rec.vs_none ? ` (Δ vs no reranker ${formatSignedPercent(rec.vs_none['NDCG@10']!)})` : '';
        expect(s.badges[i]).toEqual({ text: `${r.label} ${value}`, failed: ranks.some((x) => x === null || x > 10) });
        expect(r.line).toBe(`NDCG@10 ${value}${vs}. Gold: ${rec.gold.map((g, j) => `${name(g)}: ${ranks[j] === null ? 'not retrieved' : `rank ${ranks[j]}`}`).join('; ')}`);
        expect(r.top).toEqual(rec.retrieved.slice(0, 10).map((id) => ({ name: name(id), hit: rec.gold.includes(id) })));
      });
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('without DecompressionStream the explorer says so and the rest of the page works', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.addInitScript(() => {
      delete (window as unknown as { DecompressionStream?: unknown }).DecompressionStream;
    });
    await page.goto(pathToFileURL(join(out, 'report.html')).href);
    await expect.poll(() => page.locator('#q-count').textContent()).toContain('The query list could not be read: this browser has no DecompressionStream');
    expect(await page.locator('#q-list details').count()).toBe(0);
    expect(await page.locator('#q-filter option').count()).toBeGreaterThan(1);
    await page.locator('#comparison-table thead th button', { hasText: /^NDCG@10$/ }).click();
    expect(await page.locator('#comparison-table thead th[aria-sort]').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** What the layout test measures in the page (computed in the browser). */
interface Layout {
  viewport: number;
  pageScrollWidth: number;
  /** Cells of a comparison column: its header text, then per cell its box, the box it may show in, and the run-label cell's right edge. */
  columns: Record<string, { found: boolean; cells: { text: string; left: number; right: number; clipLeft: number; clipRight: number; labelRight: number }[] }>;
  charts: { id: string; scrollWidth: number; clientWidth: number; legend: { text: string; full: string; left: number; right: number; width: number; clipLeft: number; clipRight: number }[] }[];
  axisTexts: string;
}

/** The page's layout at its viewport width: run in the page. */
function measure(): Layout {
  const W = document.documentElement.clientWidth;
  /** The horizontal band an element can show in: the viewport cut by every ancestor that clips overflow. */
  const clip = (el: Element): [number, number] => {
    let lo = 0;
    let hi = W;
    for (let a = el.parentElement; a; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o !== 'visible') {
        const r = a.getBoundingClientRect();
        lo = Math.max(lo, r.left + a.clientLeft);
        hi = Math.min(hi, r.left + a.clientLeft + a.clientWidth);
      }
    }
    return [lo, hi];
  };
  const table = document.getElementById('comparison-table')!;
  const heads = Array.from(table.querySelectorAll('thead th'));
  const columns: Layout['columns'] = {};
  for (const name of ['Δ NDCG@10', 'W/T/L']) {
    const j = heads.findIndex((th) => (th.textContent ?? '').trim().startsWith(name));
    const cells = j < 0 ? [] : Array.from(table.querySelectorAll('tr')).map((tr) => tr.children[j]!);
    columns[name] = {
      found: j >= 0,
      cells: cells.map((c) => {
        const r = c.getBoundingClientRect();
        const [clipLeft, clipRight] = clip(c);
        const first = c.parentElement!.children[0]!;
        return { text: (c.textContent ?? '').trim(), left: r.left, right: r.right, clipLeft, clipRight, labelRight: first === c ? -Infinity : first.getBoundingClientRect().right };
      }),
    };
  }
  const charts = Array.from(document.querySelectorAll('figure.chart')).map((f, i) => ({
    id: f.id || `${f.closest('section')?.id ?? '?'} figure ${i}`,
    scrollWidth: f.scrollWidth,
    clientWidth: f.clientWidth,
    legend: Array.from(f.querySelectorAll('.legend li, g.role-legend-label text')).map((l) => {
      const r = l.getBoundingClientRect();
      const [clipLeft, clipRight] = clip(l);
      const full = l.getAttribute('title') ?? l.querySelector('title')?.textContent ?? (l.textContent ?? '');
      return { text: (l.textContent ?? '').trim(), full, left: r.left, right: r.right, width: r.width, clipLeft, clipRight };
    }),
  }));
  const axisTexts = Array.from(document.querySelectorAll('#slices svg text')).map((t) => t.textContent).join('\n');
  return { viewport: W, pageScrollWidth: document.documentElement.scrollWidth, columns, charts, axisTexts };
}

describe.skipIf(!haveChromium)('report.html layout at 1400 and 900 px', () => {
  let file: string;
  beforeAll(async () => {
    const dir = join(root, 'long-labels');
    writeLongLabelResults(dir);
    await reportCommand({ paths: [dir], iterations: 200 });
    file = join(dir, 'report.html');
  });

  it.each([1400, 900])('at %i px: Δ and W/T/L of the comparison on screen, every legend label on screen, complete and distinct', async (width) => {
    const page = await browser!.newPage({ viewport: { width, height: 900 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(pathToFileURL(file).href);
    const L = await page.evaluate(measure);
    const inside = (b: { left: number; right: number; clipLeft: number; clipRight: number }) => b.left >= b.clipLeft - 0.5 && b.right <= b.clipRight + 0.5 && b.clipLeft >= -0.5 && b.clipRight <= L.viewport + 0.5;

    // The page itself never scrolls sideways.
    expect(L.pageScrollWidth, 'page wider than the viewport').toBeLessThanOrEqual(L.viewport);

    // The two columns one compares with: header and every row inside the viewport and the table's scroll box, not under the run label.
    for (const [name, col] of Object.entries(L.columns)) {
      expect(col.found, `${name} column`).toBe(true);
      expect(col.cells).toHaveLength(1 + LONG_LABELS.length);
      for (const c of col.cells) {
        expect(inside(c), `${name} cell "${c.text}" at [${c.left}, ${c.right}] outside [${c.clipLeft}, ${c.clipRight}]`).toBe(true);
        expect(c.left, `${name} cell "${c.text}" under the run label`).toBeGreaterThanOrEqual(c.labelRight - 0.5);
      }
    }

    // Every chart that colours by run has one legend label per run: on screen, inside its chart, distinct, each naming its run in full on hover.
    const legends = L.charts.filter((c) => c.legend.length > 0);
    expect(legends.map((c) => c.id)).toEqual(expect.arrayContaining(['chart-at-k', 'chart-injection-k', 'chart-injection-budget', 'chart-injection-threshold']));
    expect(legends.filter((c) => c.id.startsWith('slices')).length, 'slice charts with a legend').toBe(2);
    for (const c of legends) {
      expect(c.scrollWidth, `${c.id} wider than its column`).toBeLessThanOrEqual(c.clientWidth);
      expect(c.legend.map((l) => l.full).sort(), `${c.id}: full labels`).toEqual([...LONG_LABELS].sort());
      expect(new Set(c.legend.map((l) => l.text)).size, `${c.id}: legend labels ${JSON.stringify(c.legend.map((l) => l.text))} not distinct`).toBe(LONG_LABELS.length);
      for (const l of c.legend) {
        expect(l.width, `${c.id}: "${l.text}" has no width`).toBeGreaterThan(0);
        expect(inside(l), `${c.id}: legend label "${l.text}" at [${l.left}, ${l.right}] outside [${l.clipLeft}, ${l.clipRight}]`).toBe(true);
        expect(l.full.includes(l.text.replace(/^…\s*/, '')), `${c.id}: "${l.text}" is not part of "${l.full}"`).toBe(true);
        expect(l.text.length, `${c.id}: "${l.text}" keeps the shared prefix`).toBeLessThan(l.full.length - SHARED_PREFIX.length + 2);
      }
    }
    // Group sizes on the group axis, the one-query group among them.
    expect(L.axisTexts).toContain(`${ZERO_GROUP} (n=1)`);

    // Sorting by the Δ column: best first on the first click.
    await page.locator('#comparison-table thead th', { hasText: 'Δ NDCG@10' }).locator('button').click();
    const j = (await page.locator('#comparison-table thead th').allTextContents()).findIndex((t) => t.startsWith('Δ NDCG@10'));
    const deltas = await page.locator(`#comparison-table tbody td:nth-child(${j + 1})`).evaluateAll((tds) => tds.map((td) => (td as HTMLElement).dataset.v ?? ''));
    const nums = deltas.filter((v) => v !== '').map(Number);
    expect(nums).toHaveLength(LONG_LABELS.length - 1);
    expect(nums).toEqual([...nums].sort((a, b) => b - a));
    expect(deltas[deltas.length - 1], 'the baseline (no Δ) last').toBe('');

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, `report-layout-${width}.png`), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
