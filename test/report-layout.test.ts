/**
 * The report's layout rules that need no browser (test/report-browser.test.ts measures the page):
 *
 * - shortLabels (src/report/html/labels.ts), the chart legends' run labels: distinct labels give
 *   distinct short labels, and each short label is its label, or `…` and what follows the one prefix
 *   dropped from all of them (which all labels share, ends at a separator and is long enough to be
 *   worth dropping). Drawn with labels that share long prefixes and differ late, as run labels do.
 * - Sorting (src/report/html/client.ts): the first click on a header sorts in its best-first
 *   direction, each further click reverses; numbers by value, rows without a value last either way,
 *   ties in table order. The page declares descending (best first) for means, Δ and W/T/L, and puts
 *   Δ and W/T/L right after the run label.
 * - Slices: the group axis says each group's size, distinct groups keep distinct axis labels, a 0
 *   value is drawn (tick and label), and the chart's width does not grow with the groups.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { droppedPrefix, ELLIPSIS, MIN_DROPPED, shortLabels } from '../src/report/html/labels.js';
import { nextSortDirection, sortOrder } from '../src/report/html/client.js';
import { GROUP_LABEL_MAX, groupAxisLabels, renderSvg, sliceSpec } from '../src/report/html/charts.js';
import { comparisonColumnOrder } from '../src/report/html/page.js';
import { reportCommand } from '../src/commands/report.js';
import { LONG_LABELS, SHARED_PREFIX, writeLongLabelResults, ZERO_GROUP } from './helpers/long-label-results.js';

/** Labels as runs name themselves: a shared start (experiment, model family), then what differs. */
const piece = fc.stringMatching(/^[a-z0-9]{0,6}$/);
const sep = fc.constantFrom('-', '/', ': ', '_', '.', ' ');
const word = fc.tuple(piece, sep).map(([p, s]) => p + s);
const labelSets = fc.oneof(
  fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 12 }), { minLength: 1, maxLength: 6 }),
  fc
    .tuple(fc.array(word, { maxLength: 8 }), fc.uniqueArray(fc.array(fc.oneof(word, piece), { maxLength: 4 }).map((ws) => ws.join('')), { minLength: 1, maxLength: 6 }))
    .map(([shared, rests]) => rests.map((r) => shared.join('') + r)),
);
/** The same labels, some repeated, in any order. */
const withRepeats = labelSets.chain((ls) => fc.shuffledSubarray([...ls, ...ls.slice(0, 2)], { minLength: ls.length + Math.min(2, ls.length) }));

describe('shortLabels: the legend labels', () => {
  test.prop([labelSets])('distinct labels give distinct short labels', (labels) => {
    expect(new Set(shortLabels(labels)).size).toBe(labels.length);
  });

  test.prop([withRepeats])('each short label is its label, or … and the rest of it after the one dropped prefix', (labels) => {
    const short = shortLabels(labels);
    const prefix = droppedPrefix(labels);
    expect(short).toHaveLength(labels.length);
    short.forEach((s, i) => {
      if (prefix === '') expect(s).toBe(labels[i]);
      else {
        expect(s.startsWith(ELLIPSIS)).toBe(true);
        expect(prefix + s.slice(ELLIPSIS.length)).toBe(labels[i]); // recoverable: the prefix and the rest
        expect(s.length).toBeGreaterThan(ELLIPSIS.length); // something of every label is left
      }
    });
    // Equal labels, equal short labels.
    labels.forEach((l, i) => labels.forEach((m, j) => (l === m ? expect(short[i]).toBe(short[j]) : undefined)));
  });

  test.prop([labelSets])('the dropped prefix is shared by all, ends at a separator and is long enough to be worth it', (labels) => {
    const prefix = droppedPrefix(labels);
    if (prefix === '') return;
    for (const l of labels) expect(l.startsWith(prefix)).toBe(true);
    expect(Array.from(prefix).length).toBeGreaterThanOrEqual(MIN_DROPPED);
    expect(Array.from(prefix).at(-1)).toMatch(/^[^\p{L}\p{N}]$/u);
  });

  test.prop([
    fc.array(word, { minLength: 1, maxLength: 8 }).filter((ws) => ws.join('').length >= MIN_DROPPED),
    fc.uniqueArray(fc.array(fc.oneof(word, piece), { minLength: 1, maxLength: 4 }).map((ws) => ws.join('')).filter((r) => r !== ''), { minLength: 2, maxLength: 6 }),
  ])('labels that share a long start ending at a separator lose at least that start', (shared, rests) => {
    const labels = rests.map((r) => shared.join('') + r);
    expect(droppedPrefix(labels).length).toBeGreaterThanOrEqual(shared.join('').length);
    expect(shortLabels(labels).every((s) => s.startsWith(ELLIPSIS))).toBe(true);
  });

  it('drops the long shared start of the runs, keeps short ones whole', () => {
    expect(shortLabels(LONG_LABELS)).toEqual(['…exact/none', '…hnsw/none', '…exact/cross-encoder-ms-marco-MiniLM-L-12-v2', '…hnsw/cross-encoder-ms-marco-MiniLM-L-12-v2']);
    expect(droppedPrefix(LONG_LABELS)).toBe(`${SHARED_PREFIX}-mpnet-base-v2-`);
    expect(shortLabels(['sample-embedders: glove/none', 'sample-embedders: bm25/none'])).toEqual(['…glove/none', '…bm25/none']);
    expect(shortLabels(['bm25/none', 'bm25/rr', 'glove/none'])).toEqual(['bm25/none', 'bm25/rr', 'glove/none']);
    expect(shortLabels(['bm25/none', 'bm25/rr'])).toEqual(['bm25/none', 'bm25/rr']); // 'bm25/' is too short to drop
    // One label the start of another: each keeps something.
    expect(shortLabels(['experiment-one: a', 'experiment-one: a/b'])).toEqual(['…a', '…a/b']);
    expect(shortLabels(['experiment-one/', 'experiment-one/x'])).toEqual(['…one/', '…one/x']);
    // No word is split: the cut goes back to the last separator.
    expect(shortLabels(['experiment-alpha-1', 'experiment-alpha-2'])).toEqual(['…1', '…2']);
    expect(shortLabels(['experiment-alphabet-x', 'experiment-alphanumeric-y'])).toEqual(['…alphabet-x', '…alphanumeric-y']);
    expect(shortLabels(['only one'])).toEqual(['only one']);
    expect(shortLabels([])).toEqual([]);
  });
});

describe('sorting: best first', () => {
  it('the first click sorts in the column’s best-first direction, the next ones reverse', () => {
    expect(nextSortDirection(null, 'descending')).toBe('descending');
    expect(nextSortDirection(null, 'ascending')).toBe('ascending');
    expect(nextSortDirection(null, null)).toBe('ascending');
    expect(nextSortDirection('descending', 'descending')).toBe('ascending');
    expect(nextSortDirection('ascending', 'descending')).toBe('descending');
  });

  it('numbers by value, rows without a value last either way, ties in table order', () => {
    const keys = [0.25, null, 0.75, 0.5, null, 0.75];
    expect(sortOrder(keys, 'descending')).toEqual([2, 5, 3, 0, 1, 4]);
    expect(sortOrder(keys, 'ascending')).toEqual([0, 3, 2, 5, 1, 4]);
    expect(sortOrder(['b', 'a', 'c'], 'ascending')).toEqual([1, 0, 2]);
  });

  test.prop([fc.array(fc.option(fc.double({ noNaN: true }), { nil: null }), { maxLength: 30 }), fc.constantFrom('ascending' as const, 'descending' as const)])(
    'a permutation in order, values before missing ones',
    (keys, dir) => {
      const order = sortOrder(keys, dir);
      expect([...order].sort((a, b) => a - b)).toEqual(keys.map((_, i) => i));
      const vals = order.map((i) => keys[i]!);
      const present = vals.filter((v): v is number => v !== null);
      expect(vals.slice(0, present.length)).toEqual(present);
      for (let i = 1; i < present.length; i++) expect(dir === 'descending' ? present[i - 1]! >= present[i]! : present[i - 1]! <= present[i]!).toBe(true);
    },
  );
});

describe('the page: comparison columns, sort directions, legends and slices', () => {
  let root: string;
  let html: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'report-layout-'));
    writeLongLabelResults(join(root, 'exp'));
    await reportCommand({ paths: [join(root, 'exp')], iterations: 200 });
    html = readFileSync(join(root, 'exp', 'report.html'), 'utf8');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('Δ and W/T/L come right after the run; the first click sorts them and the means best first', () => {
    expect(comparisonColumnOrder(2)).toEqual([0, 3, 4, 1, 2]);
    const head = /<table class="sortable" id="comparison-table"><thead><tr>([\s\S]*?)<\/tr><\/thead>/.exec(html)![1]!;
    const cols = [...head.matchAll(/<th scope="col" data-first="(\w+)"[^>]*>([^<]*)<\/th>/g)].map((m) => [m[2], m[1]]);
    expect(cols.slice(0, 4)).toEqual([
      ['Run', 'ascending'],
      ['Δ NDCG@10', 'descending'],
      ['W/T/L', 'descending'],
      ['NDCG@1', 'descending'],
    ]);
    expect(cols).toHaveLength(3 + 21);
    expect(cols.slice(1).every(([, d]) => d === 'descending')).toBe(true);
    // The first body row: the baseline, no Δ, then its means.
    const row = /<tbody><tr>([\s\S]*?)<\/tr>/.exec(html)![1]!;
    expect(row).toMatch(/^<th scope="row">[^<]*\(baseline\)<\/th><td>–<\/td><td>–<\/td><td data-v=/);
  });

  it('every chart with runs has an HTML legend: short distinct labels, full ones on hover, escaped', () => {
    const legends = [...html.matchAll(/<ul class="legend"[^>]*>([\s\S]*?)<\/ul>/g)].map((m) => [...m[1]!.matchAll(/<li title="([^"]*)">[\s\S]*?<\/svg>([^<]*)<\/li>/g)].map((x) => [x[1], x[2]]));
    expect(legends).toHaveLength(1 + 2 + 3); // at k, two slices, three injection curves
    for (const l of legends) expect(l).toEqual(LONG_LABELS.map((full, i) => [full, shortLabels(LONG_LABELS)[i]]));
    expect(html).not.toContain('role-legend'); // no legend drawn inside a chart, where it could be cut
  });

  it('slices: group sizes on the axis, a 0 drawn, the width bounded', async () => {
    expect(html).toContain(`${ZERO_GROUP} (n=1)`);
    const groups = [
      { name: 'a', queries: 3 },
      { name: ZERO_GROUP, queries: 1 },
      ...Array.from({ length: 60 }, (_, i) => ({ name: `group ${i}`, queries: 2 })),
    ];
    const runs = ['r1', 'r2', 'r3'];
    const values = groups.flatMap((g) => runs.map((run, i) => ({ run, group: g.name, value: g.name === ZERO_GROUP ? 0 : (i + 1) / 4 })));
    const svg = await renderSvg(sliceSpec({ name: 'sub', note: '', groups, key: 'NDCG@10', values, onOff: [] }, runs));
    expect(svg).toContain('>a (n=3)</text>');
    expect(svg).toContain(`>${ZERO_GROUP} (n=1)</text>`);
    // The zero marks: one tick and one "0" label per run with a 0 value.
    const zeroLabels = /<g class="mark-text role-mark layer_2_marks"[^>]*>([\s\S]*?)<\/g>/.exec(svg)![1]!;
    expect([...zeroLabels.matchAll(/<text[^>]*>0<\/text>/g)]).toHaveLength(runs.length);
    const ticks = /<g class="mark-rect role-mark layer_1_marks"[^>]*>([\s\S]*?)<\/g>/.exec(svg)![1]!;
    expect([...ticks.matchAll(/<path /g)]).toHaveLength(runs.length);
    // 62 groups × 3 runs: it grows down, not sideways.
    const [, w, h] = /^<svg[^>]*width="([\d.]+)" height="([\d.]+)"/.exec(svg)!.map(Number);
    expect(w).toBeLessThan(800);
    expect(h).toBeGreaterThan(800);
  });

  it('legend labels and their hover text are escaped', async () => {
    const evil = `<img src=x onerror="alert(1)">&'`;
    const dir = join(root, 'evil');
    writeLongLabelResults(dir, [
      [`${SHARED_PREFIX}-a`, 'none'],
      [`${SHARED_PREFIX}-b`, evil],
    ]);
    await reportCommand({ paths: [dir], iterations: 200 });
    const page = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(page).not.toContain('<img');
    const esc = '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;';
    expect(page).toContain(`<li title="${SHARED_PREFIX}-b/${esc}">`);
    expect(page).toContain(`</svg>…b/${esc}</li>`);
    expect(page).toContain(`… stands for <code>${SHARED_PREFIX}-</code>`);
  });

  test.prop([fc.uniqueArray(fc.string({ maxLength: 70 }), { minLength: 1, maxLength: 8 }), fc.nat(50)])('group axis labels: distinct, with the size, names cut only past the limit', (names, n) => {
    const groups = names.map((name, i) => ({ name, queries: n + i }));
    const labels = groupAxisLabels(groups);
    expect(new Set(labels).size).toBe(groups.length);
    labels.forEach((l, i) => {
      const g = groups[i]!;
      expect(l.endsWith(` (n=${g.queries})`)).toBe(true);
      const shown = l.slice(0, l.length - ` (n=${g.queries})`.length);
      if (Array.from(g.name).length <= GROUP_LABEL_MAX) expect(shown).toBe(g.name);
      else expect(shown === g.name || (shown.endsWith('…') && g.name.startsWith(shown.slice(0, -1)))).toBe(true);
    });
  });
});
