/**
 * The query slices of a report (src/analysis/run-slices.ts), as the `breakdown.json` object of a run
 * folder and as the "<metric> by slice" section of summary.md. Formatting only: every mean, count,
 * Δ and p-value comes from the Report.
 */
import type { Report } from '../analysis/report.js';
import type { RunSlice, RunSlices } from '../analysis/run-slices.js';
import { UNLABELLED } from '../metrics/breakdown.js';
import { formatPercentDelta } from '../metrics/official-percent.js';
import { roundHalfEven } from '../util/python-round.js';
import { pct } from './cells.js';
import { MARKDOWN, type Medium } from './medium.js';
import { runName } from './strategies.js';

/** Significance level of the marks in the slice tables (Holm-corrected p within a slice). */
export const SLICE_ALPHA = 0.05;

const r5 = (x: number) => roundHalfEven(x, 5);

function roundMetrics(m: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(m)) out[k] = r5(v);
  return out;
}

function sliceJson(s: RunSlice, primaryKey: string): Record<string, unknown> {
  const groups: Record<string, unknown> = {};
  for (const [g, st] of s.groups) {
    const v = st.vsNone;
    groups[g] = {
      queries: st.queries,
      metrics: roundMetrics(st.metrics),
      ...(v
        ? {
            vs_none: {
              metric: primaryKey,
              base: r5(v.base),
              treated: r5(v.treated),
              delta: r5(v.delta),
              helped: v.helped,
              hurt: v.hurt,
              unchanged: v.unchanged,
              p_value: r5(v.pValue),
              p_holm: r5(v.pHolm),
            },
          }
        : {}),
    };
  }
  return {
    note: s.note,
    overlapping: s.overlapping,
    ...(s.boundaries ? { boundaries: [...s.boundaries] } : {}),
    groups,
  };
}

/**
 * breakdown.json of one run: `{"category_rule", "slices": {name: {"note", "overlapping", "boundaries"?,
 * "groups": {group: {"queries", "metrics" (5 decimals), "vs_none"?}}}}}`.
 */
export function breakdownJson(report: Report, b: RunSlices): Record<string, unknown> {
  const slices: Record<string, unknown> = {};
  for (const s of b.slices) slices[s.name] = sliceJson(s, report.primaryKey);
  return { category_rule: report.categoryRule, slices };
}

const TITLES: Record<RunSlice['name'], string> = {
  major: 'major category',
  sub: 'sub-category',
  gold: 'number of gold skills',
  length: 'query length',
  generator: 'query generator',
};

/** A slice worth a table: at least two labelled groups. */
function shown(s: RunSlice): boolean {
  return [...s.groups.keys()].filter((g) => g !== UNLABELLED).length >= 2;
}

/**
 * "<NDCG@10> by slice": per slice, rows = runs and columns = its groups (query counts in the header)
 * and all queries; under it, for reranked runs, Δ on − off inside each group with a mark where the
 * Holm-corrected randomisation p (over the slice's groups) is below 0.05. Empty string when no slice
 * has two labelled groups.
 */
export function renderSliceSection(report: Report, m: Medium = MARKDOWN): string {
  const res = report.result;
  const key = report.primaryKey;
  const first = report.slices[0];
  if (!first) return '';
  const parts: string[] = [];
  first.slices.forEach((s0, si) => {
    if (!shown(s0)) return;
    const groups = [...s0.groups.keys()];
    const header = ['Run', ...groups.map((g) => `${m.esc(g)} (${s0.groups.get(g)!.queries})`), `All (${res.runs[0]!.evaluation.counts.evaluated})`];
    const cell = pct;
    const rows = report.slices.map((b, ri) => {
      const s = b.slices[si]!;
      return [runName(res, b, m), ...groups.map((g) => cell(s.groups.get(g)?.metrics[key])), cell(res.runs[ri]!.evaluation.aggregate[key])];
    });
    const out = [`${m.h3(`By ${TITLES[s0.name]}`)}\n`, m.table(header, rows, ['l', ...header.slice(1).map(() => 'r' as const)])];
    const notes = [m.esc(s0.note)];
    const reranked = report.slices.map((b, ri) => ({ b, r: res.runs[ri]! })).filter((x) => x.r.onOff);
    if (reranked.length > 0) {
      const dRows = reranked.map(({ b, r }) => {
        const s = b.slices[si]!;
        const all = r.onOff!.attribution.metrics[key];
        return [
          runName(res, b, m),
          ...groups.map((g) => {
            const v = s.groups.get(g)?.vsNone;
            if (!v) return '–';
            return `${formatPercentDelta(v.base, v.treated)}${v.pHolm < SLICE_ALPHA ? ' *' : ''} (${v.helped}/${v.hurt})`;
          }),
          all ? formatPercentDelta(all.base, all.treated) : '–',
        ];
      });
      out.push(`Reranker on − off inside each group (Δ ${m.esc(key)} ×100, helped/hurt queries):\n`);
      out.push(m.table(['Run', ...header.slice(1)], dRows, ['l', ...header.slice(1).map(() => 'r' as const)]));
      notes.push(
        `${m.star} p < ${SLICE_ALPHA} after Holm's correction over this slice's groups (two-sided paired randomisation test per group, seed ${res.config.stats.seed}, ${res.config.stats.iterations} iterations).`,
      );
    }
    out.push(`${notes.join(' ')}\n`);
    parts.push(out.join('\n'));
  });
  if (parts.length === 0) return '';
  return `${m.h2(`${m.esc(key)} by slice`)}\n\n×100. Category rule: ${report.categoryRule === 'each_gold' ? "each gold skill's category (the paper's)" : 'primary gold skill'} (${m.code('report.category_rule')}).\n\n${parts.join('\n')}`;
}

