/**
 * Family-level evaluation and the harmful-sibling view of a run, given each skill's family
 * (families.ts; a skill outside every family of two or more, or an id unknown to the corpus, is its
 * own family).
 *
 * Family-level metrics: each query's ranking (trec order) becomes a ranking of families: every
 * skill is replaced by its family id and only the first (best-ranked) occurrence of each family is
 * kept, the rest of the list moving up; the gold becomes the gold skills' families, each with the
 * highest grade of its gold members. Recall@k and NDCG@k are then the usual trec_eval measures on
 * those (metrics/evaluate.ts), so a sibling retrieved in place of its gold counts as the gold, and
 * two members of one gold family count once. With no family of two or more they equal the strict
 * metrics per query.
 *
 * Harmful siblings at k: a miss is a relevant gold skill (grade >= 1) not in the run's top k; it is
 * a sibling miss when some other skill of its family is in that top k (the sibling was retrieved
 * instead of it). Counted per run and k, with the first such sibling (rank order) of each.
 */
import type { Qrels, Run } from '../core/types.js';
import { evaluate } from '../metrics/evaluate.js';
import type { Measure } from '../metrics/measures.js';
import { trecOrder } from '../metrics/rank.js';

const fam = (familyOf: ReadonlyMap<string, string>, id: string) => familyOf.get(id) ?? id;

/** The gold as families: per query, each gold skill's family at the highest grade of its members. */
export function familyQrels(qrels: Qrels, familyOf: ReadonlyMap<string, string>): Qrels {
  const out: Qrels = new Map();
  for (const [q, js] of qrels) {
    const m = new Map<string, number>();
    for (const [d, g] of js) {
      const f = fam(familyOf, d);
      const prev = m.get(f);
      if (prev === undefined || g > prev) m.set(f, g);
    }
    out.set(q, m);
  }
  return out;
}

/** The run as families: trec order, each skill replaced by its family, first occurrence kept; scores n, n−1, … keep that order. */
export function familyRun(run: Run, familyOf: ReadonlyMap<string, string>): Run {
  const out: Run = new Map();
  for (const [q, docs] of run) {
    const seen = new Set<string>();
    const fams: string[] = [];
    for (const d of trecOrder(docs)) {
      const f = fam(familyOf, d.docId);
      if (!seen.has(f)) {
        seen.add(f);
        fams.push(f);
      }
    }
    out.set(q, fams.map((docId, i) => ({ docId, score: fams.length - i })));
  }
  return out;
}

/** Family-level evaluation of `run` on `measures` (per query and mean). */
export function evaluateFamilies(qrels: Qrels, run: Run, familyOf: ReadonlyMap<string, string>, measures: readonly Measure[]) {
  return evaluate(familyQrels(qrels, familyOf), familyRun(run, familyOf), measures);
}

export interface SiblingMiss {
  query: string;
  gold: string;
  /** The first skill of the gold's family in the top k. */
  sibling: string;
  /** Its rank (1-based). */
  rank: number;
}

export interface SiblingMisses {
  k: number;
  /** Relevant gold skills not in the top k, over the evaluated queries. */
  misses: number;
  /** Of them, those with a sibling in the top k. */
  siblingMisses: SiblingMiss[];
  /** Queries with at least one sibling miss. */
  queries: number;
}

/** The harmful-sibling view of `run` at `k` over the queries of `qrels` that the run has. */
export function siblingMisses(qrels: Qrels, run: Run, familyOf: ReadonlyMap<string, string>, k: number): SiblingMisses {
  let misses = 0;
  const list: SiblingMiss[] = [];
  const queries = new Set<string>();
  for (const [q, js] of qrels) {
    const docs = run.get(q);
    if (!docs) continue;
    const top = trecOrder(docs).slice(0, k);
    const inTop = new Set(top.map((d) => d.docId));
    for (const [g, grade] of js) {
      if (grade < 1 || inTop.has(g)) continue;
      misses++;
      const f = fam(familyOf, g);
      const i = top.findIndex((d) => d.docId !== g && fam(familyOf, d.docId) === f);
      if (i >= 0) {
        list.push({ query: q, gold: g, sibling: top[i]!.docId, rank: i + 1 });
        queries.add(q);
      }
    }
  }
  return { k, misses, siblingMisses: list, queries: queries.size };
}
