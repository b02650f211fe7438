/**
 * Query slices: the ways a report cuts the evaluated queries into groups, each a pure function of
 * the data (never of a run), so every run of an experiment is cut the same way.
 *
 * - `major`, `sub`: the taxonomy categories of the query's gold skills. Default rule `each_gold`
 *   (the paper's): a query counts once in each distinct category of its relevant gold skills, so the
 *   group sizes can sum to more than the queries. Rule `primary_gold`: the category of the primary
 *   gold skill only (breakdown.ts `primaryGold`), a partition. No labelled gold → `(unlabelled)`.
 * - `gold`: the number of relevant gold skills (grade ≥ 1), groups `1 gold`, `2 gold`, … ascending.
 * - `length`: the query's length in words (maximal runs of non-whitespace, JavaScript's `\s`, which
 *   covers Unicode spaces), cut into tertiles of the evaluated queries: with the word counts sorted
 *   ascending (w₁ ≤ … ≤ wₙ), b₁ = w at rank ⌈n/3⌉ and b₂ = w at rank ⌈2n/3⌉; groups `≤ b₁ words`,
 *   `b₁+1–b₂ words`, `> b₂ words` (a group left empty by ties does not appear). Boundaries are printed.
 * - `generator`: the query's `generator_model`, when at least one query has one (others unlabelled).
 *
 * A slice is a partition (or, for each_gold categories, a cover) of the evaluated queries; the group
 * means are breakdown.ts folds, so a partition's query-weighted group means equal the overall mean.
 */
import type { Qrels } from '../core/types.js';
import { breakdownByMany, queryCategories, queryCategoriesAll, UNLABELLED, type GroupStats } from './breakdown.js';
import { plural } from '../util/plural.js';

export type CategoryRule = 'each_gold' | 'primary_gold';
export const CATEGORY_RULES: readonly CategoryRule[] = ['each_gold', 'primary_gold'];
export const DEFAULT_CATEGORY_RULE: CategoryRule = 'each_gold';

export type SliceName = 'major' | 'sub' | 'gold' | 'length' | 'generator';
export const SLICE_NAMES: readonly SliceName[] = ['major', 'sub', 'gold', 'length', 'generator'];

/** What slicing reads of a dataset (or of a results folder's queries.jsonl and skills.jsonl). */
export interface SliceData {
  queries: readonly { id: string; text: string; generatorModel?: string }[];
  qrels: Qrels;
  /** An array, not any iterable: every category slice walks it (an iterator would be used up by the first). */
  skills: readonly { id: string; major?: string; sub?: string }[];
}

/** One way of cutting the queries: which groups each query belongs to. */
export interface SliceDefinition {
  name: SliceName;
  /** One sentence for under a table: the rule, and for `length` the boundaries. */
  note: string;
  /** Whether a query can be in several groups (group sizes may sum to more than the queries). */
  overlapping: boolean;
  /** The groups of one query ([] → unlabelled). */
  groupsOf: (qid: string) => readonly string[];
  /** Group order (others after, largest first). */
  order?: readonly string[];
  /** `length` only: the two tertile boundaries, in words. */
  boundaries?: readonly [number, number];
}

/** Words of a query: maximal runs of non-whitespace. */
export function wordCount(text: string): number {
  const m = text.match(/\S+/g);
  return m ? m.length : 0;
}

/** Word counts of query objects already counted (each run of an experiment slices the same queries). */
const counted = new WeakMap<object, { text: string; words: number }>();
function queryWords(q: { text: string }): number {
  const seen = counted.get(q);
  if (seen !== undefined && seen.text === q.text) return seen.words;
  const words = wordCount(q.text);
  counted.set(q, { text: q.text, words });
  return words;
}

/** The tertile boundaries (b₁, b₂) of a list of counts (module comment); undefined when empty. */
export function tertileBoundaries(counts: readonly number[]): [number, number] | undefined {
  const n = counts.length;
  if (n === 0) return undefined;
  const sorted = [...counts].sort((a, b) => a - b);
  return [sorted[Math.ceil(n / 3) - 1]!, sorted[Math.ceil((2 * n) / 3) - 1]!];
}

/** The group name of a word count for boundaries (b₁, b₂). */
export function lengthGroup(words: number, [b1, b2]: readonly [number, number]): string {
  if (words <= b1) return `≤ ${b1} words`;
  if (words <= b2) return b1 + 1 === b2 ? `${b2} words` : `${b1 + 1}–${b2} words`;
  return `> ${b2} words`;
}

function categorySlice(field: 'major' | 'sub', data: SliceData, rule: CategoryRule): SliceDefinition {
  if (rule === 'primary_gold') {
    const cats = queryCategories(data.qrels, data.skills, field);
    return {
      name: field,
      overlapping: false,
      note: `Each query in the ${field} of its primary gold skill (the first judgement with the highest grade).`,
      groupsOf: (q) => {
        const c = cats.get(q);
        return c === undefined ? [] : [c];
      },
    };
  }
  const cats = queryCategoriesAll(data.qrels, data.skills, field);
  return {
    name: field,
    overlapping: true,
    note: `Each query counts once in each distinct ${field} of its gold skills (the paper's rule), so the group sizes can sum to more than the queries.`,
    groupsOf: (q) => cats.get(q) ?? [],
  };
}

/**
 * The slices of `evaluated` queries (the ids a run was scored on; tertiles are taken over them).
 * `generator` is left out when no evaluated query has a generator model.
 */
export function querySlices(data: SliceData, evaluated: Iterable<string>, rule: CategoryRule = DEFAULT_CATEGORY_RULE): SliceDefinition[] {
  const ids = new Set(evaluated);
  const queries = data.queries.filter((q) => ids.has(q.id));
  const out: SliceDefinition[] = [categorySlice('major', data, rule), categorySlice('sub', data, rule)];

  const gold = new Map<string, number>();
  for (const [qid, judged] of data.qrels) gold.set(qid, [...judged.values()].filter((g) => g >= 1).length);
  const counts = [...new Set(queries.map((q) => gold.get(q.id) ?? 0))].sort((a, b) => a - b);
  out.push({
    name: 'gold',
    overlapping: false,
    note: 'Queries by their number of relevant gold skills.',
    groupsOf: (q) => [`${gold.get(q) ?? 0} gold`],
    order: counts.map((c) => `${c} gold`),
  });

  const words = new Map(queries.map((q) => [q.id, queryWords(q)]));
  const b = tertileBoundaries([...words.values()]);
  if (b) {
    const order = [lengthGroup(b[0], b), lengthGroup(b[1], b), lengthGroup(b[1] + 1, b)];
    out.push({
      name: 'length',
      overlapping: false,
      note: `Query length in words (runs of non-whitespace), tertiles of the ${plural(queries.length, 'evaluated query', 'evaluated queries')}: boundaries ${b[0]} and ${b[1]} words.`,
      groupsOf: (q) => [lengthGroup(words.get(q) ?? 0, b)],
      order: [...new Set(order)],
      boundaries: b,
    });
  }

  const generator = new Map(queries.filter((q) => q.generatorModel !== undefined && q.generatorModel.trim() !== '').map((q) => [q.id, q.generatorModel!]));
  if (generator.size > 0) {
    out.push({
      name: 'generator',
      overlapping: false,
      note: 'Queries by the model that wrote them (`generator_model`).',
      groupsOf: (q) => {
        const g = generator.get(q);
        return g === undefined ? [] : [g];
      },
    });
  }
  return out;
}

/** The groups of one slice for one run's per-query values. */
export function sliceGroups(slice: SliceDefinition, perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>, keys: readonly string[]): Map<string, GroupStats> {
  return breakdownByMany(perQuery, slice.groupsOf, keys, slice.order);
}

/** group → its queries (in the order of `qids`); a query with no group is in `(unlabelled)`. */
export function sliceMembers(slice: SliceDefinition, qids: Iterable<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const q of qids) {
    const gs = slice.groupsOf(q);
    for (const g of gs.length === 0 ? [UNLABELLED] : new Set(gs)) {
      const list = out.get(g);
      if (list) list.push(q);
      else out.set(g, [q]);
    }
  }
  return out;
}
