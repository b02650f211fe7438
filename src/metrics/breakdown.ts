/**
 * Per-group means of per-query metrics (the paper's per-category tables), and the rule that puts a
 * query in a taxonomy category.
 *
 * - `breakdownBy`: partitions the evaluated queries by a group function and takes each group's mean
 *   with the same fold as the overall mean (`aggregate`), so the query-weighted mean of the group
 *   means equals the overall mean. A query whose group is undefined goes to `(unlabelled)`.
 *   `breakdownByMany` lets a query be in several groups (then the sizes sum to more).
 * - Category of a query, `primary_gold` rule (`queryCategories`): the `major` (or `sub`) of its primary
 *   gold skill; the default rule, the paper's, is `queryCategoriesAll` (every gold skill's). The primary gold skill is
 *   the first judgement with the query's highest relevance grade, in judgement order. Judgement order
 *   is the qrels file order (or the `labels` / `skill_ids` order without a qrels file); in the
 *   published data every grade is 1 and the qrels rows follow `skill_ids`, whose first entry is the
 *   primary skill (docs/protocol.md §1). With graded qrels the seed skill (grade 2) is the primary one.
 *   No relevant judgement, a skill outside the corpus, or a missing/blank label → `(unlabelled)`.
 */
import type { Qrels } from '../core/types.js';
import { aggregate } from './evaluate.js';
import { compareUtf8 } from './rank.js';

export const UNLABELLED = '(unlabelled)';

export interface GroupStats {
  /** Number of evaluated queries in the group. */
  queries: number;
  /** Mean of each key over the group's queries (unrounded), in `keys` order. */
  metrics: Record<string, number>;
}

/**
 * Per-group means of `keys` over the queries of `perQuery`. Groups come largest first, ties by name
 * (UTF-8 byte order), `(unlabelled)` last; empty groups do not appear.
 */
export function breakdownBy(
  perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>,
  groupOf: (qid: string) => string | undefined,
  keys: readonly string[],
): Map<string, GroupStats> {
  return breakdownByMany(perQuery, (qid) => {
    const g = groupOf(qid);
    return g === undefined ? [] : [g];
  }, keys);
}

/**
 * Like `breakdownBy`, for a query that may belong to several groups (the paper's rule: one count in
 * each distinct category of its gold skills): a query counts once in each distinct group `groupsOf`
 * names, and in `(unlabelled)` when it names none. The group sizes then sum to more than the queries.
 * `order`, when given, fixes the order of the groups it names (others follow, largest first).
 */
export function breakdownByMany(
  perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>,
  groupsOf: (qid: string) => readonly string[],
  keys: readonly string[],
  order?: readonly string[],
): Map<string, GroupStats> {
  const parts = new Map<string, Map<string, Readonly<Record<string, number>>>>();
  for (const [qid, rec] of perQuery) {
    const gs = groupsOf(qid);
    for (const g of gs.length === 0 ? [UNLABELLED] : new Set(gs)) {
      let part = parts.get(g);
      if (part === undefined) {
        part = new Map();
        parts.set(g, part);
      }
      part.set(qid, rec);
    }
  }
  const names = orderGroups([...parts.keys()], (g) => parts.get(g)!.size, order);
  const out = new Map<string, GroupStats>();
  for (const g of names) {
    const part = parts.get(g)!;
    out.set(g, { queries: part.size, metrics: aggregate(part, keys) });
  }
  return out;
}

/**
 * The order groups are shown in: those `order` names first (in its order), then the others largest
 * first, ties by name (UTF-8 byte order); `(unlabelled)` last.
 */
export function orderGroups(names: readonly string[], sizeOf: (g: string) => number, order?: readonly string[]): string[] {
  const rank = (g: string) => {
    const i = order ? order.indexOf(g) : -1;
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return [...names].sort((a, b) => {
    if ((a === UNLABELLED) !== (b === UNLABELLED)) return a === UNLABELLED ? 1 : -1;
    return rank(a) - rank(b) || sizeOf(b) - sizeOf(a) || compareUtf8(a, b);
  });
}

/** The primary gold skill of one query's judgements: the first with the highest grade (>= 1). */
export function primaryGold(judged: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined;
  let bestGrade = 0;
  for (const [id, grade] of judged) {
    if (grade >= 1 && grade > bestGrade) {
      best = id;
      bestGrade = grade;
    }
  }
  return best;
}

/** The `field` label of each skill that has a non-blank one. */
function labels(skills: Iterable<{ id: string; major?: string; sub?: string }>, field: 'major' | 'sub'): Map<string, string> {
  const label = new Map<string, string>();
  for (const s of skills) {
    const v = s[field];
    if (v !== undefined && v.trim() !== '') label.set(s.id, v);
  }
  return label;
}

/**
 * query id -> the distinct categories (the `field` labels) of all its relevant gold skills, in
 * judgement order: the paper's rule, under which a query counts once in each category of its gold
 * skills. Gold skills without a label add nothing; none at all → [] (unlabelled).
 */
export function queryCategoriesAll(
  qrels: Qrels,
  skills: Iterable<{ id: string; major?: string; sub?: string }>,
  field: 'major' | 'sub' = 'major',
): Map<string, string[]> {
  const label = labels(skills, field);
  const out = new Map<string, string[]>();
  for (const [qid, judged] of qrels) {
    const cats: string[] = [];
    for (const [id, grade] of judged) {
      const c = grade >= 1 ? label.get(id) : undefined;
      if (c !== undefined && !cats.includes(c)) cats.push(c);
    }
    out.set(qid, cats);
  }
  return out;
}

/**
 * query id -> category (the `field` label of its primary gold skill; undefined when there is none:
 * see the module comment). Covers every query of `qrels`.
 */
export function queryCategories(
  qrels: Qrels,
  skills: Iterable<{ id: string; major?: string; sub?: string }>,
  field: 'major' | 'sub' = 'major',
): Map<string, string | undefined> {
  const label = labels(skills, field);
  const out = new Map<string, string | undefined>();
  for (const [qid, judged] of qrels) {
    const p = primaryGold(judged);
    out.set(qid, p === undefined ? undefined : label.get(p));
  }
  return out;
}
