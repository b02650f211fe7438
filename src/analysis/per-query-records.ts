/**
 * Each run's per-query records as values: what its per-query.jsonl holds (metrics, gold with
 * grades, the ranking in trec_eval order, and for a reranked run on − off per metric), keyed by query
 * id in dataset order. `run` builds them once: the writer spells them (report/results-folder.ts),
 * the leaderboard compares them and report.html shows them, without reading the file back.
 */
import { join } from 'node:path';
import { PER_QUERY_FILE, type PerQueryRecord } from '../formats/per-query-jsonl.js';
import { SpelledRun } from '../formats/spelled-run.js';
import type { ExperimentResult, RunResult } from '../pipeline/experiment.js';
import type { ComparedRun } from '../significance/query-set.js';

export interface RunRecords extends ComparedRun {
  records: Map<string, PerQueryRecord>;
  line: Map<string, number>;
  /** Metric keys of the first record, in its order. */
  firstKeys: string[];
  /** The run's rankings in trec_eval order with each score spelled (shared with the writers of run.trec and official.json). */
  spelled: SpelledRun;
}

/** The label of a run of an experiment, as results-reader.ts gives it: `<retriever>/<reranker>`. */
export const runLabel = (r: { retriever: string; reranker: string }): string => `${r.retriever}/${r.reranker}`;

/** The per-query records of run `r` of `res`, whose per-query.jsonl is `<output>/<retriever>/<reranker>/per-query.jsonl`. */
export function perQueryRecords(res: ExperimentResult, r: RunResult, output: string): RunRecords {
  const spelled = new SpelledRun(r.run);
  const records = new Map<string, PerQueryRecord>();
  const line = new Map<string, number>();
  for (const q of res.dataset.queries) {
    const m = r.evaluation.perQuery.get(q.id);
    if (!m) continue;
    const off = r.onOff?.base.perQuery.get(q.id);
    const judged = res.dataset.qrels.get(q.id) ?? new Map<string, number>();
    const gold = [...judged].filter(([, rel]) => rel >= 1).map(([id]) => id);
    const graded = [...judged.values()].some((rel) => rel !== 1);
    const rec: PerQueryRecord = { metrics: m as Record<string, number>, gold };
    if (graded) rec.relevance = Object.fromEntries(judged);
    rec.retrieved = spelled.get(q.id).docs.map((d) => d.docId);
    if (off) rec.vsNone = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v - (off[k] ?? 0)]));
    records.set(q.id, rec);
    line.set(q.id, records.size);
  }
  const first = records.values().next();
  return {
    label: runLabel(r),
    file: join(output, r.retriever, r.reranker, PER_QUERY_FILE),
    records,
    line,
    firstKeys: first.done ? [] : Object.keys(first.value.metrics),
    spelled,
  };
}
