/**
 * The shape every text rendering of a SystemsComparison shares: header, rows of cells (text, bold,
 * marks), and the notes printed under the table. Shaping only: the numbers and decisions arrive in
 * the SystemsComparison; this module only picks what each cell shows.
 *
 * Percentages use the official rounding (metrics/official-percent.ts); a Δ is the difference of the printed
 * cells (formatPercentDelta), so it always agrees with the table.
 *
 * Marks: `*` the run differs from the baseline at α after correction; `†` the run is not separable
 * from the column's best (the best itself is bold). Percent values are fractions ×100, 2 decimals.
 */
import type { SystemsComparison } from '../../significance/systems.js';
import { formatPercentDelta } from '../../metrics/official-percent.js';
import { pct, pval, signedPct } from '../cells.js';
import { plural } from '../../util/plural.js';

export { pct, pval };

export type Mark = 'sig' | 'group';

export interface Cell {
  text: string;
  /** Untrusted text (a run label): the renderer escapes it. Numbers are safe. */
  untrusted?: boolean;
  bold?: boolean;
  marks?: Mark[];
}

export interface TableModel {
  header: Cell[];
  /** 'l' for text columns, 'r' for numbers. */
  align: ('l' | 'r')[];
  rows: Cell[][];
  notes: string[];
}


/** The family of the pairwise matrix: "all 3 pairs", "the 1 pair". */
export function allPairs(family: number): string {
  return family === 1 ? 'the 1 pair' : `all ${plural(family, 'pair')}`;
}

export function testName(c: SystemsComparison): string {
  const s = c.settings;
  return s.test === 't'
    ? 'paired t-test (two-sided)'
    : `paired randomization test (two-sided sign flips, ${s.iterations} iterations, seed ${s.seed})`;
}

/** The lines printed under every table: method, seed, iterations, correction, α, families. */
export function methodNotes(c: SystemsComparison, labelOf: (s: string) => string, best = 'bold'): string[] {
  const s = c.settings;
  const n = c.rows.length;
  const base = c.rows[s.baseline]!.label;
  const corr = s.correction === 'none' ? 'no correction' : `${s.correction === 'holm' ? 'Holm' : 'Bonferroni'} correction`;
  const dropped = c.dropped.missing + c.dropped.judgedDifferently;
  const notes = [
    `${plural(c.queries, 'query', 'queries')}${dropped ? ` (--common-queries: ${dropped} dropped, ${c.dropped.missing} not in every run, ${c.dropped.judgedDifferently} judged differently)` : ''}; fractions ×100, 2 decimals; ${best}: best of the column.`,
    `Method: ${testName(c)}; ${corr}; α = ${s.alpha}.` + (s.test === 't' ? ` (Bootstrap CIs: ${s.iterations} resamples, seed ${s.seed}.)` : ''),
    `*: differs from the baseline ${labelOf(base)} at α after ${corr} over the ${plural(n - 1, 'run')} compared with it, per metric. †: not separable from the column's best (${corr} over its ${plural(n - 1, 'comparison')}). Δ and W/T/L (per-query wins/ties/losses) against the baseline on ${s.mainKey}.`,
  ];
  return notes;
}

export function mainTable(c: SystemsComparison): TableModel {
  const s = c.settings;
  const header: Cell[] = [{ text: 'Run' }, ...s.keys.map((k) => ({ text: k })), { text: `Δ ${s.mainKey}` }, { text: 'W/T/L' }];
  const bestShown = Object.fromEntries(s.keys.map((k) => [k, pct(Math.max(...c.rows.map((r) => r.means[k]!)))]));
  const rows = c.rows.map((r, i) => {
    const cells: Cell[] = [{ text: i === s.baseline ? `${r.label} (baseline)` : r.label, untrusted: true }];
    for (const k of s.keys) {
      const text = pct(r.means[k]!);
      const marks: Mark[] = [];
      if (r.vsBaseline?.[k]?.significant) marks.push('sig');
      if (r.topGroup[k] && !r.best[k] && text !== bestShown[k]) marks.push('group');
      cells.push({ text, bold: text === bestShown[k], marks });
    }
    const v = r.vsBaseline?.[s.mainKey];
    const base = c.rows[s.baseline]!.means[s.mainKey]!;
    cells.push(v ? { text: formatPercentDelta(base, r.means[s.mainKey]!), marks: v.significant ? ['sig'] : [] } : { text: '–' });
    cells.push({ text: v ? `${v.wins}/${v.ties}/${v.losses}` : '–' });
    return cells;
  });
  return { header, align: ['l', ...s.keys.map(() => 'r' as const), 'r', 'r'], rows, notes: [] };
}

/** Δ of every metric against the baseline, with the corrected p. */
export function deltaTable(c: SystemsComparison): TableModel {
  const s = c.settings;
  const header: Cell[] = [{ text: 'Run' }, ...s.keys.map((k) => ({ text: `Δ ${k}` }))];
  const rows = c.rows
    .filter((_, i) => i !== s.baseline)
    .map((r) => [
      { text: r.label, untrusted: true },
      ...s.keys.map((k) => {
        const v = r.vsBaseline![k]!;
        return { text: `${formatPercentDelta(c.rows[s.baseline]!.means[k]!, r.means[k]!)} (p ${pval(v.pCorrected)})`, marks: v.significant ? (['sig'] as Mark[]) : [] };
      }),
    ]);
  return { header, align: ['l', ...s.keys.map(() => 'r' as const)], rows, notes: [] };
}

/** The pairwise matrix on the main metric: cell (i, j) = Δ row − column. */
export function pairsTable(c: SystemsComparison): TableModel | undefined {
  const p = c.pairs;
  if (!p) return undefined;
  const header: Cell[] = [{ text: `${p.key}: row − column` }, ...c.rows.map((r) => ({ text: r.label, untrusted: true }))];
  const rows = c.rows.map((r, i) => [
    { text: r.label, untrusted: true },
    ...c.rows.map((_, j) => (i === j ? { text: '–' } : { text: formatPercentDelta(c.rows[j]!.means[p.key]!, c.rows[i]!.means[p.key]!), marks: p.pCorrected[i]![j]! < c.settings.alpha ? (['sig'] as Mark[]) : [] })),
  ]);
  const s = c.settings;
  const corr = s.correction === 'none' ? 'no correction' : `${s.correction === 'holm' ? 'Holm' : 'Bonferroni'} correction`;
  return {
    header,
    align: ['l', ...c.rows.map(() => 'r' as const)],
    rows,
    notes: [`*: the pair differs at α = ${s.alpha} after ${corr} over ${allPairs(p.family)} (${testName(c)}).`],
  };
}

/**
 * Each run against the baseline, metric by metric (what the two-run view always showed): both
 * means, Δ (the difference of the printed cells), the raw p of the randomisation test and of the
 * t-test, the corrected p of the chosen test, the 95% bootstrap CI of Δ and W/T/L per query.
 */
export function detailTables(c: SystemsComparison): { label: string; table: TableModel; worst: Cell[][] }[] {
  const s = c.settings;
  const base = c.rows[s.baseline]!;
  return c.rows
    .filter((_, i) => i !== s.baseline)
    .map((r) => {
      const header: Cell[] = [{ text: 'Metric' }, { text: 'Baseline' }, { text: 'Run' }, { text: 'Δ' }, { text: 'p (rand.)' }, { text: 'p (t)' }, { text: 'p corr.' }, { text: '95% CI of Δ' }, { text: 'W/T/L' }];
      const rows = s.keys.map((k) => {
        const v = r.vsBaseline![k]!;
        return [
          { text: k },
          { text: pct(base.means[k]!) },
          { text: pct(r.means[k]!) },
          { text: formatPercentDelta(base.means[k]!, r.means[k]!), marks: v.significant ? (['sig'] as Mark[]) : [] },
          { text: pval(v.pRandomization) },
          { text: pval(v.pT) },
          { text: pval(v.pCorrected) },
          { text: `[${signedPct(v.ci.low)}, ${signedPct(v.ci.high)}]` },
          { text: `${v.wins}/${v.ties}/${v.losses}` },
        ];
      });
      const worst = (r.worst ?? []).map((q) => [{ text: q.qid, untrusted: true }, { text: pct(q.base) }, { text: '→' }, { text: pct(q.treated) }, { text: formatPercentDelta(q.base, q.treated) }]);
      return { label: r.label, table: { header, align: ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'], rows, notes: [] }, worst };
    });
}
