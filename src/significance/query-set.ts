/**
 * The queries several runs are compared on. Runs are comparable only when they were scored on the
 * same queries with the same judgements; otherwise the comparison is refused, naming the first
 * difference, unless the caller asks for the common queries (those every run has, with identical
 * judgements), which is then stated with the number dropped.
 */
import { UserError } from '../core/errors.js';
import type { PerQueryRecord } from '../formats/per-query-jsonl.js';
import { compareUtf8 } from '../metrics/rank.js';

export interface ComparedRun {
  label: string;
  file: string;
  records: ReadonlyMap<string, PerQueryRecord>;
  line: ReadonlyMap<string, number>;
}

export interface QuerySet {
  /** The compared query ids, UTF-8 order. */
  qids: string[];
  /** Queries left out by --common-queries: not in every run / judged differently. */
  dropped: { missing: number; judgedDifferently: number };
}

/** The judgements of a record as one comparable string (gold ids with grades, order-free). */
function judgements(r: PerQueryRecord): string | undefined {
  if (r.gold === undefined) return undefined;
  const graded = r.gold.map((g) => `${g}\u0000${r.relevance?.[g] ?? 1}`);
  return graded.sort(compareUtf8).join('\u0001');
}

const at = (r: ComparedRun, q: string) => `${r.file}:${r.line.get(q)}`;

export function resolveQuerySet(runs: readonly ComparedRun[], common: boolean): QuerySet {
  const ref = runs[0];
  if (!ref) throw new Error('resolveQuerySet: no runs');
  const all = new Set<string>();
  for (const r of runs) for (const q of r.records.keys()) all.add(q);
  const qids: string[] = [];
  let missing = 0;
  let judgedDifferently = 0;
  for (const q of [...all].sort(compareUtf8)) {
    const has = runs.filter((r) => r.records.has(q));
    if (has.length < runs.length) {
      if (!common) {
        const lacking = runs.find((r) => !r.records.has(q))!;
        const holder = has[0]!;
        throw new UserError(
          `the runs cover different queries: ${lacking.label} (${lacking.file}) lacks query ${JSON.stringify(q)} that ${holder.label} has (${at(holder, q)}); --common-queries compares on the queries all runs share`,
        );
      }
      missing++;
      continue;
    }
    const j0 = judgements(has[0]!.records.get(q)!);
    const other = has.find((r) => judgements(r.records.get(q)!) !== j0);
    if (other) {
      if (!common) {
        const show = (r: ComparedRun) => JSON.stringify(r.records.get(q)!.gold ?? null);
        throw new UserError(
          `the runs were scored against different qrels: query ${JSON.stringify(q)} has gold ${show(has[0]!)} in ${has[0]!.label} (${at(has[0]!, q)}) but ${show(other)} in ${other.label} (${at(other, q)}); --common-queries drops such queries`,
        );
      }
      judgedDifferently++;
      continue;
    }
    qids.push(q);
  }
  if (qids.length === 0) throw new UserError(`--common-queries: the runs share no query with the same judgements (${missing} not in every run, ${judgedDifferently} judged differently)`);
  return { qids, dropped: { missing, judgedDifferently } };
}
