/**
 * `compare --slice`: the many-system comparison inside each group of a query slice
 * (metrics/query-slices.ts), from results files only. The slice data comes from the runs' per-query
 * records (gold ids and grades, in judgement order) and the results folders' queries.jsonl (text,
 * generator model) and skills.jsonl (taxonomy labels). Each group is compared exactly as the whole
 * set is (significance/systems.ts), over the group's queries; corrections are per group.
 */
import { UserError } from '../core/errors.js';
import type { Qrels } from '../core/types.js';
import type { ComparedRun, QuerySet } from '../significance/query-set.js';
import { compareSystems, type ComparisonSettings, type SystemsComparison } from '../significance/systems.js';
import { querySlices, sliceMembers, type CategoryRule, type SliceDefinition, type SliceName } from '../metrics/query-slices.js';
import { orderGroups } from '../metrics/breakdown.js';
import type { QueryInfo, SkillInfo } from '../formats/explorer-files.js';


export interface SliceGroupComparison {
  group: string;
  queries: number;
  comparison: SystemsComparison;
}

export interface SliceComparison {
  slice: SliceName;
  rule: CategoryRule;
  note: string;
  overlapping: boolean;
  boundaries?: readonly [number, number];
  groups: SliceGroupComparison[];
}

/** The judgements of the compared queries, from the first run's records (all runs agree: query-set.ts). */
function qrelsOf(run: ComparedRun, qids: readonly string[]): Qrels {
  const qrels: Qrels = new Map();
  for (const q of qids) {
    const r = run.records.get(q)!;
    qrels.set(q, new Map((r.gold ?? []).map((g) => [g, r.relevance?.[g] ?? 1])));
  }
  return qrels;
}

export function compareBySlice(
  runs: readonly ComparedRun[],
  qs: QuerySet,
  settings: ComparisonSettings,
  o: { slice: SliceName; rule: CategoryRule; queries: ReadonlyMap<string, QueryInfo>; skills: readonly SkillInfo[]; source: string },
): SliceComparison {
  const first = runs[0]!;
  if (qs.qids.some((q) => first.records.get(q)!.gold === undefined))
    throw new UserError(`--slice: ${first.file} has no gold ids per query (a per-query.jsonl from an older version); rerun the experiment`);
  if ((o.slice === 'length' || o.slice === 'generator') && o.queries.size === 0)
    throw new UserError(`--slice ${o.slice}: needs the query texts of queries.jsonl in a results folder (${o.source}); name whole results folders`);
  const data = {
    queries: qs.qids.map((q) => {
      const info = o.queries.get(q);
      return { id: q, text: info?.query ?? '', ...(info?.generatorModel !== undefined ? { generatorModel: info.generatorModel } : {}) };
    }),
    qrels: qrelsOf(first, qs.qids),
    skills: o.skills,
  };
  const def: SliceDefinition | undefined = querySlices(data, qs.qids, o.rule).find((d) => d.name === o.slice);
  if (!def) throw new UserError(`--slice ${o.slice}: no compared query has a generator model (generator_model in queries.jsonl)`);
  const members = sliceMembers(def, qs.qids);
  const names = orderGroups([...members.keys()], (g) => members.get(g)!.length, def.order);
  const groups = names.map((g) => {
    const qids = members.get(g)!; // already in UTF-8 order (qs.qids is)
    return { group: g, queries: qids.length, comparison: compareSystems(runs, { qids, dropped: qs.dropped }, settings) };
  });
  return { slice: def.name, rule: o.rule, note: def.note, overlapping: def.overlapping, ...(def.boundaries ? { boundaries: def.boundaries } : {}), groups };
}
