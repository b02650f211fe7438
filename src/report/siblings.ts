/**
 * The sibling report (analysis/siblings.ts) rendered: summary.md's "Sibling families" section (the
 * families as a table, then per run and k the strict and family-level NDCG and Recall and the
 * misses a sibling took the place of) and siblings.json. Formatting only; nothing without
 * `analysis.siblings`.
 */
import type { Report } from '../analysis/report.js';
import type { SiblingReport } from '../analysis/siblings.js';
import { roundHalfEven } from '../util/python-round.js';
import { plural } from '../util/plural.js';
import { pct } from './cells.js';
import type { Medium } from './medium.js';

export const SIBLINGS_FILE = 'siblings.json';

/** Families listed in summary.md (all of them are in siblings.json). */
const SHOWN_FAMILIES = 30;

export function renderSiblingSection(report: Report, m: Medium): string {
  const s = report.siblings;
  if (!s) return '';
  const inFamilies = s.families.reduce((n, f) => n + f.members.length, 0);
  const out: string[] = [`\n${m.h2('Sibling families')}\n\n`];
  out.push(
    `Skills whose word ${s.shingle}-shingles of name, description and SKILL.md have Jaccard similarity ≥ ${s.threshold} are siblings; a family is a connected group of siblings (its id: the smallest member id). ` +
      `${plural(s.families.length, 'family', 'families')} of two or more hold ${plural(inFamilies, 'skill')} of ${s.skills} (${plural(s.pairs, 'sibling pair')}). ` +
      `Family metrics: each ranking mapped to families, the first occurrence of each kept (the rest moves up), gold mapped to its families; a sibling retrieved counts as its gold. Sibling misses@k: relevant gold skills outside the top k whose family has another skill in it. Strict metrics are the runs' own.\n\n`,
  );
  if (s.families.length > 0) {
    const shown = s.families.slice(0, SHOWN_FAMILIES);
    out.push(m.table(['Family', 'Size', 'Members'], shown.map((f) => [m.esc(f.id), String(f.members.length), f.members.map((id, i) => `${m.esc(f.names[i] || id)} (${m.esc(id)})`).join(', ')]), ['l', 'r', 'l']));
    if (s.families.length > shown.length) out.push(`\n${s.families.length - shown.length} more families in ${m.code(SIBLINGS_FILE)}.\n`);
    out.push('\n');
  }
  const header = ['Run', 'k', 'NDCG strict', 'NDCG family', 'Recall strict', 'Recall family', 'Misses', 'Sibling misses', 'Queries with one'];
  const body = s.runs.flatMap((r) =>
    r.atK.map((a, i) => [i === 0 ? `${m.esc(r.retriever)} / ${m.esc(r.reranker)}` : '', String(a.k), pct(a.strict.ndcg), pct(a.family.ndcg), pct(a.strict.recall), pct(a.family.recall), String(a.misses.misses), String(a.misses.siblingMisses.length), String(a.misses.queries)]),
  );
  out.push(m.table(header, body, ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r']));
  return out.join('');
}

const r5 = (x: number) => (Number.isFinite(x) ? roundHalfEven(x, 5) : null);

/** siblings.json: the settings, every family of two or more, and per run and k the metrics and each sibling miss. */
export function siblingsJson(s: SiblingReport): Record<string, unknown> {
  return {
    threshold: s.threshold,
    shingle: s.shingle,
    skills: s.skills,
    pairs: s.pairs,
    families: s.families.map((f) => ({ id: f.id, members: f.members.map((id, i) => ({ id, name: f.names[i] })) })),
    runs: s.runs.map((r) => ({
      retriever: r.retriever,
      reranker: r.reranker,
      at_k: r.atK.map((a) => ({
        k: a.k,
        strict: { [`NDCG@${a.k}`]: r5(a.strict.ndcg), [`Recall@${a.k}`]: r5(a.strict.recall) },
        family: { [`NDCG@${a.k}`]: r5(a.family.ndcg), [`Recall@${a.k}`]: r5(a.family.recall) },
        misses: a.misses.misses,
        sibling_misses: a.misses.siblingMisses.map((x) => ({ query: x.query, gold: x.gold, sibling: x.sibling, rank: x.rank })),
        queries_with_sibling_miss: a.misses.queries,
      })),
    })),
  };
}
