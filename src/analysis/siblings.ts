/**
 * The sibling report of an experiment (`analysis: {siblings: {threshold, shingle}}`): the corpus's
 * families of near-copy skills (siblings/families.ts) and, per run and k, the strict NDCG and
 * Recall beside their family-level twins and the misses a sibling took the place of
 * (siblings/family-metrics.ts). Computed once here; report/siblings.ts renders it and
 * results-folder.ts writes it to siblings.json. The strict metrics are the runs' own, untouched.
 */
import type { ExperimentResult } from '../pipeline/experiment.js';
import { siblingFamilies, type Family } from '../siblings/families.js';
import { evaluateFamilies, siblingMisses, type SiblingMisses } from '../siblings/family-metrics.js';
import { skillText } from '../siblings/shingles.js';
import type { Measure } from '../metrics/measures.js';

export interface SiblingRunAtK {
  k: number;
  strict: { ndcg: number; recall: number };
  family: { ndcg: number; recall: number };
  misses: SiblingMisses;
}

export interface SiblingReport {
  threshold: number;
  shingle: number;
  skills: number;
  pairs: number;
  /** Families of two or more (size descending, then id), with each member's name. */
  families: (Family & { names: string[] })[];
  /** Per skill in a family of two or more: its family id. */
  familyOf: Map<string, string>;
  runs: { retriever: string; reranker: string; atK: SiblingRunAtK[] }[];
}

export function siblingReport(res: ExperimentResult): SiblingReport | undefined {
  const o = res.config.analysis?.siblings;
  if (!o) return undefined;
  const skills = res.dataset.skills;
  const fams = siblingFamilies(
    skills.map((s) => ({ id: s.id, text: skillText(s) })),
    o.threshold,
    o.shingle,
  );
  const nameOf = new Map(skills.map((s) => [s.id, s.name]));
  const familyOf = new Map<string, string>();
  for (const f of fams.families) for (const m of f.members) familyOf.set(m, f.id);
  const ks = res.config.k;
  const measures: Measure[] = ks.flatMap((k) => [
    { name: 'NDCG', k },
    { name: 'Recall', k },
  ]);
  const runs = res.runs.map((r) => {
    const fe = evaluateFamilies(res.dataset.qrels, r.run, familyOf, measures).aggregate;
    return {
      retriever: r.retriever,
      reranker: r.reranker,
      atK: ks.map((k) => ({
        k,
        strict: { ndcg: r.evaluation.aggregate[`NDCG@${k}`] ?? NaN, recall: r.evaluation.aggregate[`Recall@${k}`] ?? NaN },
        family: { ndcg: fe[`NDCG@${k}`]!, recall: fe[`Recall@${k}`]! },
        misses: siblingMisses(res.dataset.qrels, r.run, familyOf, k),
      })),
    };
  });
  return {
    threshold: o.threshold,
    shingle: o.shingle,
    skills: skills.length,
    pairs: fams.pairs,
    families: fams.families.map((f) => ({ ...f, names: f.members.map((m) => nameOf.get(m) ?? '') })),
    familyOf,
    runs,
  };
}
