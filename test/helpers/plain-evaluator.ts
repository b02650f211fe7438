/**
 * The plain definition of scoring, written without any of the project's fast paths, for the
 * differential tests: files read whole and split on strings into Maps (no byte scanner, no
 * interner, no typed tables), each ranking sorted by trec_eval's rule with `Buffer.compare` on the
 * ids' UTF-8 bytes, and each measure written out as trec_eval 10.0 computes it (m_ndcg_cut.c,
 * m_map_cut.c, m_recall.c, m_P.c, m_recip_rank.c on the ranking cut at k; Completeness@k = 1 when
 * Recall@k is 1). Means are summed in trec_eval's order (query ids ascending by UTF-8 bytes) and
 * divided by the number of queries in both files. Judgements: relevant when grade >= 1; gains are
 * the grades > 0. A query of the qrels absent from the run is skipped; a run query absent from the
 * qrels is ignored.
 */
import { readFileSync } from 'node:fs';

export type PlainRun = Map<string, Map<string, number>>;
export type PlainQrels = Map<string, Map<string, number>>;

export const PLAIN_MEASURES = ['NDCG', 'MAP', 'Recall', 'Precision', 'Completeness', 'MRR'] as const;

/** `NDCG@5`, `MAP@5`, … in the order of the project's default measures (name-major, then k). */
export function plainKeys(ks: readonly number[]): string[] {
  return PLAIN_MEASURES.flatMap((m) => ks.map((k) => `${m}@${k}`));
}

function lines(path: string): string[][] {
  let text = readFileSync(path, 'utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text
    .split('\n')
    .map((l) => l.split(/[ \t\r\f\v]+/).filter((c) => c !== ''))
    .filter((c) => c.length > 0);
}

/** `qid Q0 docid rank score tag` lines. */
export function plainReadTrecRun(path: string): PlainRun {
  const run: PlainRun = new Map();
  for (const c of lines(path)) {
    let m = run.get(c[0]!);
    if (m === undefined) run.set(c[0]!, (m = new Map()));
    m.set(c[2]!, Number(c[4]!));
  }
  return run;
}

/** `qid 0 docid grade` lines. */
export function plainReadTrecQrels(path: string): PlainQrels {
  const q: PlainQrels = new Map();
  for (const c of lines(path)) {
    let m = q.get(c[0]!);
    if (m === undefined) q.set(c[0]!, (m = new Map()));
    m.set(c[2]!, Number(c[3]!));
  }
  return q;
}

/** Official JSON `{qid: {docid: score}}`. */
export function plainReadJsonRun(path: string): PlainRun {
  const o = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, number>>;
  return new Map(Object.entries(o).map(([q, docs]) => [q, new Map(Object.entries(docs))]));
}

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

/** trec_eval's order: score descending, then doc id descending by UTF-8 bytes. */
export function plainRank(docs: ReadonlyMap<string, number>): string[] {
  return [...docs.entries()]
    .sort((a, b) => (a[1] !== b[1] ? (a[1] > b[1] ? -1 : 1) : Buffer.compare(utf8(b[0]), utf8(a[0]))))
    .map(([id]) => id);
}

/** The six measures at `k` for one ranking (trec order) and its judgements. */
function plainQuery(ranked: readonly string[], judged: ReadonlyMap<string, number>, k: number): Record<string, number> {
  const grade = (id: string): number => judged.get(id) ?? 0;
  const numRel = [...judged.values()].filter((g) => g >= 1).length;
  const top = ranked.slice(0, k);
  let dcg = 0;
  top.forEach((id, i) => {
    const g = grade(id);
    if (g > 0) dcg += g / Math.log2(i + 2);
  });
  const ideal = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a).slice(0, k);
  let idcg = 0;
  ideal.forEach((g, i) => (idcg += g / Math.log2(i + 2)));
  let hits = 0;
  let apSum = 0;
  let rr = 0;
  top.forEach((id, i) => {
    if (grade(id) >= 1) {
      hits++;
      apSum += hits / (i + 1);
      if (rr === 0) rr = 1 / (i + 1);
    }
  });
  const recall = numRel === 0 ? 0 : hits / numRel;
  return {
    [`NDCG@${k}`]: idcg > 0 ? dcg / idcg : dcg,
    [`MAP@${k}`]: numRel === 0 ? 0 : apSum / numRel,
    [`Recall@${k}`]: recall,
    [`Precision@${k}`]: hits / k,
    [`Completeness@${k}`]: numRel > 0 && hits === numRel ? 1 : 0,
    [`MRR@${k}`]: rr,
  };
}

export interface PlainEvaluation {
  /** Query id → key → value, for queries in both files, in qrels order. */
  perQuery: Map<string, Record<string, number>>;
  /** Key → mean (unrounded). */
  means: Record<string, number>;
}

/** Scores `run` against `qrels` at every k of `ks` (see the module comment). */
export function plainEvaluate(qrels: PlainQrels, run: PlainRun, ks: readonly number[]): PlainEvaluation {
  const keys = plainKeys(ks);
  const perQuery = new Map<string, Record<string, number>>();
  for (const [qid, judged] of qrels) {
    const docs = run.get(qid);
    if (docs === undefined) continue;
    const ranked = plainRank(docs);
    const all: Record<string, number> = {};
    for (const k of ks) Object.assign(all, plainQuery(ranked, judged, k));
    perQuery.set(qid, Object.fromEntries(keys.map((key) => [key, all[key]!])));
  }
  const order = [...perQuery.keys()].sort((a, b) => Buffer.compare(utf8(a), utf8(b)));
  const means: Record<string, number> = {};
  for (const key of keys) {
    let s = 0;
    for (const q of order) s += perQuery.get(q)![key]!;
    means[key] = s / order.length;
  }
  return { perQuery, means };
}
