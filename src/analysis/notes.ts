/**
 * The notes of an experiment's summary: what a reader must know to read its numbers (saved-run
 * documents outside the corpus, queries never complete at a k, empty rankings, the evaluation
 * policy, filtered skills, disagreeing gold, dropped pairs, SKILL.md fallbacks, stage warnings).
 * Decided here, once; renderers format each note, escaping its untrusted parts for their medium.
 */
import type { ExperimentResult } from '../pipeline/experiment.js';
import { plural } from '../util/plural.js';
import { mainKey, measureKey } from '../metrics/measures.js';
import { formatPercent } from '../metrics/official-percent.js';

/** Text from the data or the user (ids, model warnings): every renderer escapes it. */
export interface Untrusted {
  readonly untrusted: string;
}

/** A line of text: trusted words and untrusted parts. */
export type Text = readonly (string | Untrusted)[];

const u = (s: string): Untrusted => ({ untrusted: s });


export interface NoteOptions {
  /** The dataset is a pinned SkillRet release (paper/release-match.ts): graded gold gets the Hub path's numbers. */
  pinnedRelease?: boolean;
}

export function experimentNotes(res: ExperimentResult, o: NoteOptions = {}): Text[] {
  const { dataset } = res;
  const notes: Text[] = [];
  for (const st of res.stages) {
    const n = st.kind === 'retrieval' ? st.info['docs_not_in_corpus'] : undefined;
    if (typeof n === 'number' && n > 0)
      notes.push([u(st.id), `: ${plural(n, 'retrieved document')} of the saved run ${n === 1 ? 'is' : 'are'} not in the corpus (scored as non-relevant; never reranked).`]);
  }
  const first = res.runs[0]?.evaluation.counts;
  if (first) {
    for (const [k, n] of Object.entries(first.moreGoldThanK)) if (n > 0) notes.push([`${plural(n, 'query', 'queries')} with more gold skills than ${k}: never complete at @${k}.`]);
  }
  for (const r of res.runs)
    if (r.evaluation.counts.emptyRankings > 0) notes.push([u(r.retriever), ' / ', u(r.reranker), `: ${plural(r.evaluation.counts.emptyRankings, 'query', 'queries')} retrieved nothing (scored 0).`]);
  const st = dataset.stats;
  if (dataset.evaluation === 'official')
    notes.push([
      `Evaluation policy official: gold from the query records, every query counted${st.queriesWithoutGold.length ? ` (${plural(st.queriesWithoutGold.length, 'query', 'queries')} without gold scored 0)` : ''}${st.unknownGoldKept ? `, ${plural(st.unknownGoldKept, 'gold pair')} outside the corpus kept (never retrievable)` : ''}.`,
    ]);
  else if (st.queriesWithoutGold.length) notes.push([`${plural(st.queriesWithoutGold.length, 'query', 'queries')} without gold skipped (trec_eval policy).`]);
  if (st.queriesWithoutRelevant.length) notes.push([`${plural(st.queriesWithoutRelevant.length, 'query', 'queries')} judged with no relevant skill: scored 0, as trec_eval does.`]);
  if (st.skillsFilteredOut) notes.push([`skill_filter: ${plural(st.skillsFilteredOut, 'skill')} left out of the searched corpus (${dataset.skills.length} searched).`]);
  if (st.goldDisagreement?.length)
    notes.push([
      `The qrels file and the queries' skill_ids disagree on ${plural(st.goldDisagreement.length, 'query', 'queries')} (e.g. `,
      u(st.goldDisagreement[0]!),
      `); gold used: ${dataset.goldSource === 'qrels' ? 'qrels' : 'skill_ids'}.`,
    ]);
  if (st.grades.aboveOne > 0 && o.pinnedRelease) {
    const key = mainKey(res.measures.map(measureKey));
    const runs = res.runs.flatMap((r, i): Text => [i > 0 ? '; ' : '', u(r.retriever), ' / ', u(r.reranker), ` ${r.binaryGold?.[key] === undefined ? '–' : formatPercent(r.binaryGold[key]!)}`]);
    notes.push([
      `Graded gold: ${plural(st.grades.aboveOne, 'judgement')} of ${st.grades.judgements} above grade 1 (max ${st.grades.maxGrade}). The official Hub path judges every gold skill at 1 (skill_ids); with that gold ${key} is: `,
      ...runs,
      ' (metrics.json hub_path_metrics).',
    ]);
  }
  if (st.droppedGoldPairs) notes.push([`${plural(st.droppedGoldPairs, 'gold pair')} naming skills outside the corpus dropped.`]);
  if (st.skillMdFallbacks) notes.push([`${plural(st.skillMdFallbacks, 'skill')} had no SKILL.md text; the description stands in (official fallback).`]);
  for (const s of res.stages) {
    const info = s.info as Record<string, unknown>;
    const model = (info.model ?? {}) as Record<string, unknown>;
    for (const w of [info.warning, model.warning]) if (typeof w === 'string' && w !== '') notes.push([u(s.id), ': ', u(w)]);
  }
  return notes;
}
