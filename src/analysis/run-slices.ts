/**
 * The slices of every run of an experiment (metrics/query-slices.ts cuts the queries; this folds each
 * run's per-query values into them) and, for a reranked run, the on/off comparison inside each
 * group: Δ of the primary metric, helped/hurt/unchanged counts and a paired randomisation test over
 * the group's queries (seed derived from the experiment's seed, the slice and the group).
 */
import type { Evaluation } from '../metrics/evaluate.js';
import type { GroupStats } from '../metrics/breakdown.js';
import { querySlices, sliceGroups, sliceMembers, type CategoryRule, type SliceName } from '../metrics/query-slices.js';
import { compareUtf8 } from '../metrics/rank.js';
import { pairedRandomizationTest } from '../stats/randomization.js';
import { deriveSeed } from '../stats/rng.js';
import { correctPValues } from '../stats/correction.js';
import { UNCHANGED_EPSILON } from '../significance/attribution.js';
import type { SliceData } from '../metrics/query-slices.js';

/** On − off inside one group, by the primary metric. */
export interface GroupComparison {
  /** treated mean − base mean over the group's queries. */
  delta: number;
  base: number;
  treated: number;
  helped: number;
  hurt: number;
  unchanged: number;
  /** Two-sided paired randomisation test over the group's queries. */
  pValue: number;
  /** `pValue` after Holm's correction over the groups of this slice (one family per run and slice). */
  pHolm: number;
}

export interface SliceGroup extends GroupStats {
  /** Reranked runs: on − off inside the group (against `<retriever>/none`). */
  vsNone?: GroupComparison;
}

export interface RunSlice {
  name: SliceName;
  note: string;
  overlapping: boolean;
  boundaries?: readonly [number, number];
  groups: Map<string, SliceGroup>;
}

export interface RunSlices {
  retriever: string;
  reranker: string;
  slices: RunSlice[];
}

export interface SliceOptions {
  rule: CategoryRule;
  keys: readonly string[];
  primaryKey: string;
  seed: number;
  iterations: number;
}

function compareInGroup(
  qids: readonly string[],
  base: Evaluation['perQuery'],
  treated: Evaluation['perQuery'],
  key: string,
  o: { seed: number; iterations: number; label: string },
): Omit<GroupComparison, 'pHolm'> {
  const ids = [...qids].sort(compareUtf8);
  const a = ids.map((q) => base.get(q)![key]!);
  const b = ids.map((q) => treated.get(q)![key]!);
  let helped = 0;
  let hurt = 0;
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < ids.length; i++) {
    const d = b[i]! - a[i]!;
    if (d > UNCHANGED_EPSILON) helped++;
    else if (d < -UNCHANGED_EPSILON) hurt++;
    sa += a[i]!;
    sb += b[i]!;
  }
  const p = pairedRandomizationTest(a, b, { seed: deriveSeed(o.seed, o.label), iterations: o.iterations });
  const n = ids.length;
  return { base: sa / n, treated: sb / n, delta: sb / n - sa / n, helped, hurt, unchanged: n - helped - hurt, pValue: p.pValue };
}

/**
 * Every run's slices, in run order. `runs[i].base` is the first stage's evaluation of a reranked run
 * (its on/off base), absent otherwise.
 */
export function runSlices(
  data: SliceData,
  runs: readonly { retriever: string; reranker: string; evaluation: Evaluation; base?: Evaluation }[],
  o: SliceOptions,
): RunSlices[] {
  const evaluated = runs[0] ? [...runs[0].evaluation.perQuery.keys()] : [];
  const defs = querySlices(data, evaluated, o.rule);
  return runs.map((r) => ({
    retriever: r.retriever,
    reranker: r.reranker,
    slices: defs.map((def) => {
      const stats = sliceGroups(def, r.evaluation.perQuery, o.keys);
      const members = r.base ? sliceMembers(def, r.evaluation.perQuery.keys()) : undefined;
      const groups = new Map<string, SliceGroup>();
      const tests = new Map<string, Omit<GroupComparison, 'pHolm'>>();
      for (const g of stats.keys()) {
        const qids = members?.get(g);
        if (r.base && qids)
          tests.set(g, compareInGroup(qids, r.base.perQuery, r.evaluation.perQuery, o.primaryKey, { seed: o.seed, iterations: o.iterations, label: `slice:${def.name}:${g}` }));
      }
      const holm = correctPValues([...tests.values()].map((t) => t.pValue), 'holm');
      const corrected = new Map([...tests.keys()].map((g, i) => [g, holm[i]!]));
      for (const [g, s] of stats) {
        const t = tests.get(g);
        groups.set(g, t ? { ...s, vsNone: { ...t, pHolm: corrected.get(g)! } } : s);
      }
      return { name: def.name, note: def.note, overlapping: def.overlapping, ...(def.boundaries ? { boundaries: def.boundaries } : {}), groups };
    }),
  }));
}
