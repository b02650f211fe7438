/**
 * CSV rendering of a SystemsComparison: one row per run × metric with the mean, Δ against the
 * baseline, p raw and corrected, the bootstrap CI of Δ, W/T/L and the marks, plus the method columns
 * (test, correction, α, seed, iterations, baseline) on every row. Fractions at full precision; an
 * undefined value is an empty field. RFC 4180 quoting; a text field that a spreadsheet would take for
 * a formula (leading = + - @ tab or CR) is prefixed with a quote mark.
 */
import type { SystemsComparison } from '../../significance/systems.js';

export function csvField(v: string | number | boolean | undefined): string {
  if (v === undefined || (typeof v === 'number' && !Number.isFinite(v))) return '';
  if (typeof v !== 'string') return String(v);
  const s = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const HEADER = [
  'run', 'metric', 'mean', 'delta', 'p_raw', 'p_corrected', 'significant', 'ci_low', 'ci_high', 'wins', 'ties', 'losses',
  'best', 'top_group', 'baseline', 'test', 'correction', 'alpha', 'seed', 'iterations', 'queries',
];

export function renderComparisonCsv(c: SystemsComparison): string {
  const s = c.settings;
  const base = c.rows[s.baseline]!.label;
  const lines = [HEADER.join(',')];
  for (const r of c.rows) {
    for (const k of s.keys) {
      const v = r.vsBaseline?.[k];
      lines.push(
        [
          r.label, k, r.means[k], v?.delta, v?.pRaw, v?.pCorrected, v?.significant, v?.ci.low, v?.ci.high, v?.wins, v?.ties, v?.losses,
          r.best[k], r.topGroup[k], base, s.test, s.correction, s.alpha, s.seed, s.iterations, c.queries,
        ].map(csvField).join(','),
      );
    }
  }
  return lines.join('\n') + '\n';
}
