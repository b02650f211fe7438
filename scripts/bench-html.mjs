#!/usr/bin/env node
/**
 * report.html in a real browser: its size, and how long it takes to become usable, with a check that
 * the per-query values it shows are the results files'. Prints one JSON line; exits 1 when a value
 * differs (or the page raised an error), 2 on bad arguments. Part of `npm run bench` (section html).
 *
 *   node scripts/bench-html.mjs --results DIR [--loads 5] [--check-queries 12] [--chromium /usr/bin/chromium]
 *   node scripts/bench-html.mjs --config FILE [...]   (runs `skillret-eval run FILE -q --offline` first;
 *                                                      `npm run build` before)
 *
 * DIR is a results folder of one experiment (report.html, queries.jsonl, skills.jsonl and one
 * `<retriever>/<reranker>/per-query.jsonl` per run, the run's label being that relative path).
 *
 * Interactive, measured per load in a fresh browser context (Debian's chromium through
 * playwright-core, headless): from navigation start (the page's performance.timeOrigin) until the
 * explorer has rendered its first query rows (`rowsMs`) and then, after a click on the first row's
 * summary, that query's details show a box per run with its ranked list (`interactiveMs`, the
 * target's figure). Both are read in the page with performance.now(); medians, min and max over
 * `--loads` loads.
 *
 * Values before speed: for `--check-queries` queries (the first, the last, evenly spread between),
 * the query is found with the explorer's search box (its id), opened, and what it shows is compared
 * with the results files: the query text (queries.jsonl); for each run, the badge and the main metric
 * (per-query.jsonl `metrics[mainKey]`, official rounding ×100 as src/metrics/official-percent.ts),
 * the on/off Δ (`vs_none`), whether it missed a gold skill in its top k, each gold skill's rank and
 * the names of the top k (skills.jsonl, the id when the name is empty), gold hits marked; and the
 * explorer's query count against per-query.jsonl's. SKILLRET_BENCH_TAMPER=html (for testing the
 * check) moves one expected value, which must make the check fail.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Check } from './bench-checks.mjs';
import { root, summary } from './bench-lib.mjs';

const argv = process.argv.slice(2);
const KNOWN = ['--results', '--config', '--loads', '--check-queries', '--chromium', '--help', '-h'];
if (argv.includes('--help') || argv.includes('-h')) {
  const head = readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0];
  process.stdout.write(`${head.split('\n').slice(2).map((l) => l.replace(/^ \* ?/, '')).join('\n').trim()}\n`);
  process.exit(0);
}
const bad = (msg) => {
  process.stderr.write(`bench-html: ${msg}\n`);
  process.exit(2);
};
const unknown = argv.find((a) => a.startsWith('-') && !KNOWN.includes(a));
if (unknown !== undefined) bad(`unknown option ${unknown} (--help lists the options)`);
const opt = (name, def) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : def;
};
const loads = Number(opt('--loads', '5'));
const tamper = (process.env.SKILLRET_BENCH_TAMPER ?? '').split(',').includes('html');
const nCheck = Number(opt('--check-queries', '12'));
const chromiumPath = opt('--chromium', '/usr/bin/chromium');
let results = opt('--results', undefined);
const config = opt('--config', undefined);
if ((results === undefined) === (config === undefined)) bad('give --results DIR or --config FILE');
if (!(loads >= 1) || !(nCheck >= 1)) bad('--loads and --check-queries are positive integers');
if (!existsSync(chromiumPath)) bad(`${chromiumPath} not found (apt-get install chromium)`);

const load0 = loadavg();
if (config !== undefined) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'skillret-eval.js'), 'run', resolve(config), '-q', '--offline'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) bad(`run ${config} failed (${r.status}): ${(r.stderr || '').slice(-2000)}`);
  const m = /^Report:\s+(.*)report\.html\s*$/m.exec(r.stdout);
  if (!m) bad(`run ${config}: no "Report:" line in its output`);
  results = m[1];
}
results = resolve(results);
const file = join(results, 'report.html');
if (!existsSync(file)) bad(`${file} not found`);

const { formatPercent, formatSignedPercent } = await import(pathToFileURL(join(root, 'dist', 'metrics', 'official-percent.js')).href);
const { chromium } = await import('playwright-core');

const jsonl = (p) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
const queriesInfo = new Map(jsonl(join(results, 'queries.jsonl')).map((q) => [String(q.id), q]));
const skillNames = new Map(jsonl(join(results, 'skills.jsonl')).map((s) => [String(s.id), String(s.name ?? '')]));
const perQueryCache = new Map();
/** per-query.jsonl of the run labelled `label` (its folder under the results folder), by query id. */
const perQuery = (label) => {
  if (!perQueryCache.has(label)) {
    const p = join(results, ...label.split('/'), 'per-query.jsonl');
    perQueryCache.set(label, existsSync(p) ? new Map(jsonl(p).filter((r) => r.metrics).map((r) => [String(r.id), r])) : null);
  }
  return perQueryCache.get(label);
};

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});
const url = pathToFileURL(file).href;
const problems = [];
const watch = (page) => {
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
};

/** One load: ms from navigation start to the first rows, and to the first row's details shown after a click. */
async function oneLoad() {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  watch(page);
  await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
  const rows = await page.waitForFunction(() => (document.querySelector('#q-list details.query summary') ? performance.now() : false), null, { polling: 'raf', timeout: 120_000 });
  const rowsMs = await rows.jsonValue();
  await page.locator('#q-list details.query summary').first().click({ timeout: 120_000 });
  const shown = await page.waitForFunction(
    () => {
      const d = document.querySelector('#q-list details.query[open]');
      if (!d) return false;
      const runs = d.querySelectorAll('summary .badge').length;
      return runs > 0 && d.querySelectorAll('.runs .run ol.ranked').length === runs ? performance.now() : false;
    },
    null,
    { polling: 'raf', timeout: 120_000 },
  );
  const interactiveMs = await shown.jsonValue();
  await ctx.close();
  const r1 = (x) => Math.round(x * 10) / 10;
  return { rowsMs: r1(rowsMs), interactiveMs: r1(interactiveMs) };
}

/** What the page shows of query `qid` (found by the search box, opened). */
async function shownQuery(page, qid) {
  await page.fill('#q-search', qid);
  const card = page.locator(`#q-list details.query[data-qid="${qid.replace(/["\\]/g, '\\$&')}"]`);
  await card.locator('summary').click();
  await page.waitForFunction(
    (id) => {
      const d = [...document.querySelectorAll('#q-list details.query[open]')].find((x) => x.dataset.qid === id);
      return !!d && d.querySelectorAll('.runs .run ol.ranked').length === d.querySelectorAll('summary .badge').length;
    },
    qid,
    { polling: 'raf', timeout: 60_000 },
  );
  return card.evaluate((d) => ({
    text: d.querySelector('.qtext')?.textContent ?? null,
    badges: [...d.querySelectorAll('summary .badge')].map((b) => ({ text: b.textContent, failed: b.classList.contains('failed') })),
    runs: [...d.querySelectorAll('.runs .run')].map((r) => ({
      label: r.querySelector('h4')?.textContent ?? '',
      line: r.querySelector('p')?.textContent ?? '',
      top: [...r.querySelectorAll('ol.ranked li')].map((li) => ({ name: li.firstChild?.textContent ?? '', hit: li.classList.contains('hit') })),
    })),
  }));
}

/** The value check: `nCheck` queries shown against the results files. */
async function valueChecks() {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  watch(page);
  await page.goto(url, { waitUntil: 'load', timeout: 120_000 });
  await page.waitForSelector('#q-list details.query summary', { timeout: 120_000 });
  const check = new Check(`report.html explorer: ${nCheck} queries' text and, per run, main metric, Δ vs none, missed flag, gold ranks and top-k names`, 'per-query.jsonl, queries.jsonl and skills.jsonl');
  const countText = (await page.locator('#q-count').textContent()) ?? '';
  const qids = [...queriesInfo.keys()];
  const sample = [...new Set(Array.from({ length: Math.min(nCheck, qids.length) }, (_, i) => qids[Math.round((i * (qids.length - 1)) / Math.max(1, Math.min(nCheck, qids.length) - 1))]))];
  let labels = null;
  let mainKey = null;
  for (const qid of sample) {
    const s = await shownQuery(page, qid);
    check.same(`${qid} text`, s.text, String(queriesInfo.get(qid).query));
    check.same(`${qid} runs shown`, s.runs.length, s.badges.length);
    labels ??= s.runs.map((r) => r.label);
    check.same(`${qid} run labels`, JSON.stringify(s.runs.map((r) => r.label)), JSON.stringify(labels));
    s.runs.forEach((r, i) => {
      const m = /^(\S+) (\S+)(?: \(Δ vs no reranker (\S+)\))?\. Gold: (.*)$/s.exec(r.line);
      if (!m) {
        check.differ(`${qid} ${r.label} line`, r.line, 'METRIC VALUE[ (Δ vs no reranker D)]. Gold: …');
        return;
      }
      mainKey ??= m[1];
      check.same(`${qid} ${r.label} metric`, m[1], mainKey);
      const rec = perQuery(r.label)?.get(qid);
      if (!rec) {
        check.differ(`${qid} ${r.label}`, 'shown', `no record in ${r.label}/per-query.jsonl`);
        return;
      }
      const k = Number(/@(\d+)$/.exec(mainKey)?.[1] ?? 10);
      const value = formatPercent((rec.metrics[mainKey] ?? NaN) + (tamper && qid === sample[0] && i === 0 ? 0.01 : 0));
      check.same(`${qid} ${r.label} ${mainKey}`, m[2], value);
      check.same(`${qid} ${r.label} badge`, s.badges[i]?.text, `${r.label} ${value}`);
      const vs = rec.vs_none?.[mainKey];
      check.same(`${qid} ${r.label} Δ vs none`, m[3] ?? null, vs === undefined ? null : formatSignedPercent(vs));
      const gold = (rec.gold ?? queriesInfo.get(qid).gold ?? []).map(String);
      const retrieved = (rec.retrieved ?? []).map(String);
      const name = (id) => skillNames.get(id) || id;
      const ranks = gold.map((g) => {
        const j = retrieved.indexOf(g);
        return j < 0 ? null : j + 1;
      });
      check.same(`${qid} ${r.label} gold ranks`, m[4], gold.map((g, j) => `${name(g)}: ${ranks[j] === null ? 'not retrieved' : `rank ${ranks[j]}`}`).join('; '));
      check.same(`${qid} ${r.label} missed a gold skill`, s.badges[i]?.failed, ranks.some((x) => x === null || x > k));
      const top = retrieved.slice(0, k);
      check.same(`${qid} ${r.label} top ${k}`, JSON.stringify(r.top), JSON.stringify(top.map((id) => ({ name: name(id), hit: gold.includes(id) }))));
    });
  }
  await page.fill('#q-search', '');
  const n = labels && labels.length ? perQuery(labels[0])?.size : undefined;
  check.same('explorer query count', (await page.locator('#q-count').textContent()) ?? countText, n === undefined ? '(no per-query.jsonl)' : `${n} of ${n} queries`);
  await ctx.close();
  return { check, mainKey, runs: labels?.length ?? 0, queries: n ?? null };
}

let out;
try {
  const { check, mainKey, runs, queries } = await valueChecks();
  const noErrors = new Check('page errors while checking and loading', 'none');
  if (!check.ok) {
    out = { file, bytes: statSync(file).size, runs, queries, checks: [check.toJSON()], failed: true };
  } else {
    const times = [];
    for (let i = 0; i < loads; i++) times.push(await oneLoad());
    for (const p of problems) noErrors.differ('page', p, 'no error');
    if (problems.length === 0) noErrors.same('page errors', 0, 0);
    const ok = noErrors.ok;
    out = {
      file,
      bytes: statSync(file).size,
      runs,
      queries,
      mainKey,
      interactiveMs: summary(times.map((t) => t.interactiveMs)),
      rowsMs: summary(times.map((t) => t.rowsMs)),
      loads: times,
      loadavg: { start: load0, end: loadavg() },
      checks: [check.toJSON(), noErrors.toJSON()],
      ...(ok ? {} : { failed: true }),
    };
  }
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exitCode = out.failed ? 1 : 0;
