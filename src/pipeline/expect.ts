/**
 * The regression gate's expectations: the `expect:` list of a config, or the same list in the file
 * of `run --expect FILE` / `score --expect FILE`. One entry names a run (`<retriever>/<reranker>`)
 * and a metric (any spelling `metrics/measures.ts` parses; kept as its canonical key) and one kind
 * of expectation, in the printed ×100 scale:
 *   - `value` (with `tolerance`, default 0): the printed value is `value` ± `tolerance` points;
 *   - `at_least` and/or `at_most`: the printed value is inside the bound(s);
 *   - `not_worse_than: <run>`: the run is not significantly worse than that run on the metric
 *     (the leaderboard's paired test, at its α after correction over every such entry).
 * Here: the schema of one entry and its checks against what an experiment measures (its run ids
 * and metric keys). The evaluation is analysis/gates.ts; loading an `--expect` file is config.ts.
 */
import { z } from 'zod';
import { measureKey, parseMeasure } from '../metrics/measures.js';
import { suggestion } from './kind-config/suggest.js';

/** A printed percentage: 0 to 100 points. */
const points = z.number().min(0).max(100);

const metricSchema = z
  .string()
  .superRefine((s, ctx) => {
    try {
      parseMeasure(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: e instanceof Error ? e.message : String(e) });
    }
  })
  .transform((s) => measureKey(parseMeasure(s)));

/** The kinds of an entry, by the keys that make them. */
const KINDS = [
  { kind: 'value', keys: ['value'] },
  { kind: 'range', keys: ['at_least', 'at_most'] },
  { kind: 'not_worse_than', keys: ['not_worse_than'] },
] as const;

export type ExpectKind = (typeof KINDS)[number]['kind'];

/** One entry of an `expect:` list, as written (the metric made canonical). */
export const expectEntrySchema = z
  .strictObject({
    run: z.string().min(1).optional(),
    metric: metricSchema,
    value: points.optional(),
    tolerance: z.number().min(0).optional(),
    at_least: points.optional(),
    at_most: points.optional(),
    not_worse_than: z.string().min(1).optional(),
  })
  .superRefine((e, ctx) => {
    const given = KINDS.map((k) => ({ ...k, key: k.keys.find((key) => e[key] !== undefined) })).filter((k) => k.key !== undefined);
    if (given.length === 0) ctx.addIssue({ code: 'custom', path: [], message: 'give one of value (with tolerance), at_least / at_most, or not_worse_than' });
    if (given.length > 1) ctx.addIssue({ code: 'custom', path: [given[1]!.key!], message: `cannot be combined with ${given[0]!.key} in one entry; write two entries` });
    if (e.tolerance !== undefined && e.value === undefined) ctx.addIssue({ code: 'custom', path: ['tolerance'], message: 'only with value' });
    if (e.at_least !== undefined && e.at_most !== undefined && e.at_most < e.at_least) ctx.addIssue({ code: 'custom', path: ['at_most'], message: `must be at least at_least (${e.at_least})` });
    if (e.not_worse_than !== undefined && e.not_worse_than === e.run) ctx.addIssue({ code: 'custom', path: ['not_worse_than'], message: 'a run cannot be compared with itself' });
  });

export type ExpectEntry = z.infer<typeof expectEntrySchema>;

/** The list of an `expect:` key or an `--expect` file. */
export const expectListSchema = z.array(expectEntrySchema).min(1);

/** The kind of a valid entry. */
export function expectKind(e: ExpectEntry): ExpectKind {
  return e.value !== undefined ? 'value' : e.not_worse_than !== undefined ? 'not_worse_than' : 'range';
}

/** An expectation of an experiment or a score, with where it was written. */
export interface Expectation extends ExpectEntry {
  run: string;
  /** Where it was written: `expect[2]` of the config, or `<file> expect[0]` of an `--expect` file. */
  from: string;
}

/** Entries of a list as expectations (each names its run: checked before), `from` saying where entry i was written. */
export function expectationsOf(list: readonly { index: number; entry: ExpectEntry }[], from: (index: number) => string): Expectation[] {
  return list.map(({ index, entry }) => ({ ...entry, run: entry.run ?? '', from: from(index) }));
}

/** What a set of runs measured: what an expectation may name. */
export interface ExpectTargets {
  /** Run ids (`bm25/none`), in run order. */
  runs: readonly string[];
  /** Metric keys (`NDCG@10`), in measure order. */
  metrics: readonly string[];
}

/** `a, b, c` — at most `max` of them, then how many more. */
function listed(xs: readonly string[], max = 24): string {
  return xs.length > max ? `${xs.slice(0, max).join(', ')}, … (${xs.length} in all)` : xs.join(', ');
}

/**
 * The problems of valid entries against what is measured, each at its key (`[index, key]`): an
 * unknown run or reference run (with the nearest run id), a metric that is not measured (with the
 * measured ones). `runRequired` false (score: one run): an entry may leave `run` out, and
 * `not_worse_than` has no second run to compare with.
 */
export function expectationProblems(
  entries: readonly { index: number; entry: ExpectEntry }[],
  t: Partial<ExpectTargets>,
  issue: (path: readonly (string | number)[], text: string) => void,
  o: { runRequired: boolean; runWord?: string; measuresHint?: string } = { runRequired: true },
): void {
  const runWord = o.runWord ?? 'runs';
  const hint = o.measuresHint ?? 'add its cutoff to k or the measure to measures';
  for (const { index, entry } of entries) {
    if (t.runs !== undefined) {
      if (entry.run === undefined && o.runRequired) issue([index, 'run'], `missing (expected the run it checks, one of ${listed(t.runs)})`);
      if (entry.run !== undefined && !t.runs.includes(entry.run)) issue([index, 'run'], `unknown run "${entry.run}"${suggestion(entry.run, t.runs).replace('allowed:', `${runWord}:`)}`);
      if (entry.not_worse_than !== undefined) {
        if (!o.runRequired) issue([index, 'not_worse_than'], 'score checks one run: there is no other run to compare it with (compare two results folders with `compare`, or run both in one config)');
        else if (!t.runs.includes(entry.not_worse_than)) issue([index, 'not_worse_than'], `unknown run "${entry.not_worse_than}"${suggestion(entry.not_worse_than, t.runs).replace('allowed:', `${runWord}:`)}`);
      }
    }
    if (t.metrics !== undefined && !t.metrics.includes(entry.metric)) {
      issue([index, 'metric'], `${entry.metric} is not measured (measured: ${listed(t.metrics)}); ${hint}`);
    }
  }
}
