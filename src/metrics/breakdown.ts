/**
 * Per-group means of per-query metrics (the paper's per-category tables), and the rule that puts a
 * query in a taxonomy category.
 *
 * - `breakdownBy`: partitions the evaluated queries by a group function and takes each group's mean
 *   with the same fold as the overall mean (`aggregate`), so the query-weighted mean of the group
 *   means equals the overall mean. A query whose group is undefined goes to `(unlabelled)`.
 * - Category of a query: the `major` (or `sub`) of its primary gold skill. The primary gold skill is
 *   the first judgement with the query's highest relevance grade, in judgement order. Judgement order
 *   is the qrels file order (or the `labels` / `skill_ids` order without a qrels file); in the
 *   published data every grade is 1 and the qrels rows follow `skill_ids`, whose first entry is the
 *   primary skill (docs/protocol.md §1). With graded qrels the seed skill (grade 2) is the primary one.
 *   No relevant judgement, a skill outside the corpus, or a missing/blank label → `(unlabelled)`.
 *   (The paper's own multi-gold attribution rule is not stated; this is one rule, applied consistently.)
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
  const parts = new Map<string, Map<string, Readonly<Record<string, number>>>>();
  for (const [qid, rec] of perQuery) {
    const g = groupOf(qid) ?? UNLABELLED;
    let part = parts.get(g);
    if (part === undefined) {
      part = new Map();
      parts.set(g, part);
    }
    part.set(qid, rec);
  }
  const names = [...parts.keys()].sort((a, b) => {
    if ((a === UNLABELLED) !== (b === UNLABELLED)) return a === UNLABELLED ? 1 : -1;
    return parts.get(b)!.size - parts.get(a)!.size || compareUtf8(a, b);
  });
  const out = new Map<string, GroupStats>();
  for (const g of names) {
    const part = parts.get(g)!;
    out.set(g, { queries: part.size, metrics: aggregate(part, keys) });
  }
  return out;
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

/**
 * query id -> category (the `field` label of its primary gold skill; undefined when there is none:
 * see the module comment). Covers every query of `qrels`.
 */
export function queryCategories(
  qrels: Qrels,
  skills: Iterable<{ id: string; major?: string; sub?: string }>,
  field: 'major' | 'sub' = 'major',
): Map<string, string | undefined> {
  const label = new Map<string, string>();
  for (const s of skills) {
    const v = s[field];
    if (v !== undefined && v.trim() !== '') label.set(s.id, v);
  }
  const out = new Map<string, string | undefined>();
  for (const [qid, judged] of qrels) {
    const p = primaryGold(judged);
    out.set(qid, p === undefined ? undefined : label.get(p));
  }
  return out;
}
