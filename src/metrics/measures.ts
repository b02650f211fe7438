/**
 * Measures as small values (ir_measures style): a name and a cutoff k. Holds their canonical keys
 * ("NDCG@10"), the parser for user spellings (including trec_eval's "ndcg_cut_10", "P_5", ...),
 * and the default list in the official key order.
 */
import { UserError } from '../core/errors.js';

export type MeasureName = 'NDCG' | 'MAP' | 'Recall' | 'Precision' | 'Completeness' | 'MRR' | 'Hit' | 'Judged';

/**
 * One measure: a name and the rank cutoff k (only the top k of the ranking count). `k` is
 * `Infinity` for trec_eval's `recip_rank`: MRR over the whole ranking, no cutoff (`UNCUT`).
 */
export interface Measure {
  readonly name: MeasureName;
  readonly k: number;
}

/** The cutoff of a measure over the whole ranking (trec_eval's `recip_rank`). */
export const UNCUT = Number.POSITIVE_INFINITY;

/**
 * trec_eval measures given without a cutoff that are accepted as such: `recip_rank`, the reciprocal
 * rank of the first relevant document anywhere in the ranking (m_recip_rank.c), keyed by its
 * trec_eval name. (Other trec_eval names are accepted with a cutoff only: `ndcg_cut_10`, `P_5`, ….)
 */
const UNCUT_MEASURES: ReadonlyMap<string, MeasureName> = new Map<string, MeasureName>([['recip_rank', 'MRR']]);

/**
 * The measures computed by default at every cutoff of `k`, in the official key order (MRR last: it
 * is not part of the official dict). What a results file holds when nothing else is asked for.
 */
export const DEFAULT_MEASURE_NAMES: readonly MeasureName[] = ['NDCG', 'MAP', 'Recall', 'Precision', 'Completeness', 'MRR'];

/**
 * All measure names: the defaults, then those computed only when asked for (`score --measures`,
 * a config's `measures:`): Hit (ir_measures Success, trec_eval success) and Judged (ir_measures).
 */
export const MEASURE_NAMES: readonly MeasureName[] = [...DEFAULT_MEASURE_NAMES, 'Hit', 'Judged'];

/**
 * Canonical key of a measure: `NDCG@10`, `MAP@5`, `Recall@15`, `Precision@5`, `Completeness@10`,
 * `MRR@10`, `Hit@1`, `Judged@10`; `recip_rank` for MRR without a cutoff.
 */
export function measureKey(m: Measure): string {
  if (m.k === UNCUT) {
    for (const [key, name] of UNCUT_MEASURES) if (name === m.name) return key;
    throw new Error(`measureKey: ${m.name} has no uncut form`);
  }
  return `${m.name}@${m.k}`;
}

/**
 * Accepted spellings of each name, lower-cased. trec_eval names (`ndcg_cut`, `map_cut`, `P`,
 * `recall`, `recip_rank`, `success`), ir_measures / ranx names (`nDCG`, `AP`, `R`, `RR`, `Success`,
 * `Judged`) and SkillRouter's `FullCoverage` (= Completeness) are included.
 */
const ALIASES: ReadonlyMap<string, MeasureName> = new Map<string, MeasureName>([
  ['ndcg', 'NDCG'],
  ['ndcg_cut', 'NDCG'],
  ['map', 'MAP'],
  ['map_cut', 'MAP'],
  ['ap', 'MAP'],
  ['recall', 'Recall'],
  ['r', 'Recall'],
  ['precision', 'Precision'],
  ['prec', 'Precision'],
  ['p', 'Precision'],
  ['completeness', 'Completeness'],
  ['comp', 'Completeness'],
  ['fullcoverage', 'Completeness'],
  ['full_coverage', 'Completeness'],
  ['mrr', 'MRR'],
  ['rr', 'MRR'],
  ['recip_rank', 'MRR'],
  ['hit', 'Hit'],
  ['success', 'Hit'],
  ['judged', 'Judged'],
]);

/** Largest accepted cutoff (a sanity bound: far above any run depth in use). */
export const MAX_K = 1_000_000;

/** Checks a cutoff: an integer in 1..MAX_K. `what` names it in the error. */
export function checkK(k: number, what: string): number {
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
    throw new UserError(`${what}: cutoff must be an integer from 1 to ${MAX_K}, got ${String(k)}`);
  }
  return k;
}

/**
 * Parses a measure spelling: `<name><sep><k>` with sep one of `@`, `_`, `.`, name case-insensitive
 * from the alias table. Examples: "NDCG@10", "nDCG@5", "ndcg_cut_5", "ndcg_cut.5", "P@5", "P_5",
 * "recall_5", "recall.50", "map_cut_5", "Comp@5", "MRR@10", "recip_rank@10", "Hit@1", "Success@1",
 * "success_1", "success.1", "Judged@10". Any cutoff from 1 to MAX_K. A cutoff is required, except for
 * trec_eval's "recip_rank" alone: MRR over the whole ranking (k = UNCUT, key `recip_rank`).
 * Throws UserError on anything else.
 */
export function parseMeasure(s: string): Measure {
  const t = s.trim();
  const uncut = UNCUT_MEASURES.get(t.toLowerCase());
  if (uncut !== undefined) return { name: uncut, k: UNCUT };
  const m = /^([A-Za-z][A-Za-z_]*?)[@._]([0-9]+)$/.exec(t);
  const shown = JSON.stringify(s);
  if (!m) {
    const bare = ALIASES.get(t.toLowerCase());
    if (bare !== undefined) {
      const whole = [...UNCUT_MEASURES].find(([, name]) => name === bare)?.[0];
      throw new UserError(`measure ${shown}: needs a cutoff, e.g. ${bare}@10${whole !== undefined ? ` (or ${whole}: the whole ranking, as trec_eval)` : ''}`);
    }
    throw new UserError(`measure ${shown}: expected NAME@K with NAME one of ${MEASURE_NAMES.join(', ')} (e.g. NDCG@10)`);
  }
  const name = ALIASES.get(m[1]!.toLowerCase());
  if (name === undefined) {
    throw new UserError(`measure ${shown}: unknown name ${JSON.stringify(m[1])} (known: ${MEASURE_NAMES.join(', ')})`);
  }
  const digits = m[2]!;
  const k = digits.length > 7 ? Number.NaN : Number(digits);
  return { name, k: checkK(k, `measure ${shown}`) };
}

/**
 * Parses a list of measure spellings, dropping repeats of the same measure (first one wins) and
 * keeping the given order.
 */
export function parseMeasures(specs: readonly string[]): Measure[] {
  const out: Measure[] = [];
  const seen = new Set<string>();
  for (const s of specs) {
    const m = parseMeasure(s);
    const key = measureKey(m);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(m);
    }
  }
  return out;
}

/**
 * The default measures for cutoffs `ks` (deduplicated, ascending) in the official key order:
 * NDCG@k..., MAP@k..., Recall@k..., Precision@k..., Completeness@k..., then MRR@k... (cheap extra,
 * not in the official dict). Throws UserError on a bad or missing cutoff.
 */
export function defaultMeasures(ks: readonly number[]): Measure[] {
  if (ks.length === 0) throw new UserError('k: at least one cutoff is needed');
  const sorted = [...new Set(ks.map((k) => checkK(k, 'k')))].sort((a, b) => a - b);
  const out: Measure[] = [];
  for (const name of DEFAULT_MEASURE_NAMES) for (const k of sorted) out.push({ name, k });
  return out;
}

/**
 * The measures of an experiment: the defaults at every cutoff of `ks` (`defaultMeasures`), then each
 * entry of `extra` not already there, in its order. An entry is a measure spelling (`Hit@1`,
 * `success_1`, `Recall@50`, `Judged@10`, `recip_rank`, …) or a bare name (`Hit`, `Judged`,
 * `Success`): that measure at every cutoff of `ks`. Throws UserError naming the entry. With no
 * extra entries this is exactly `defaultMeasures(ks)`, so results files stay as they were.
 */
export function experimentMeasures(ks: readonly number[], extra: readonly string[] = []): Measure[] {
  const out = defaultMeasures(ks);
  const seen = new Set(out.map(measureKey));
  const cutoffs = out.filter((m) => m.name === 'NDCG').map((m) => m.k);
  for (const s of extra) {
    const bare = ALIASES.get(s.trim().toLowerCase());
    const ms = bare !== undefined && !UNCUT_MEASURES.has(s.trim().toLowerCase()) ? cutoffs.map((k) => ({ name: bare, k })) : [parseMeasure(s)];
    for (const m of ms) {
      const key = measureKey(m);
      if (!seen.has(key)) {
        seen.add(key);
        out.push(m);
      }
    }
  }
  return out;
}

/**
 * The main metric of a list of keys (the one rule): `NDCG@10` when it is there, else NDCG at the
 * smallest k there, else the first key. What W/T/L, Δ columns, helped/hurt counts and the on/off
 * tables are counted on.
 */
export function mainKey(keys: readonly string[]): string {
  if (keys.length === 0) throw new Error('mainKey: no keys');
  if (keys.includes('NDCG@10')) return 'NDCG@10';
  let best: { key: string; k: number } | undefined;
  for (const key of keys) {
    const m = tryParse(key);
    if (m?.name === 'NDCG' && (best === undefined || m.k < best.k)) best = { key, k: m.k };
  }
  return best?.key ?? keys[0]!;
}

/** The keys compared by default (the one rule): NDCG, Recall and Completeness keys, by name then k; all keys when there are none. */
export function defaultComparedKeys(keys: readonly string[]): string[] {
  const MAIN: readonly MeasureName[] = ['NDCG', 'Recall', 'Completeness'];
  const parsed = keys.map((key) => ({ key, m: tryParse(key) })).filter((x) => x.m !== undefined && MAIN.includes(x.m.name) && measureKey(x.m) === x.key);
  if (parsed.length === 0) return [...keys];
  return parsed.sort((a, b) => MAIN.indexOf(a.m!.name) - MAIN.indexOf(b.m!.name) || a.m!.k - b.m!.k).map((x) => x.key);
}

/** The measure a results key names when the key is its canonical spelling (`measureKey`), else undefined. */
export function measureOfKey(key: string): Measure | undefined {
  const m = tryParse(key);
  return m !== undefined && measureKey(m) === key ? m : undefined;
}

function tryParse(key: string): Measure | undefined {
  try {
    return parseMeasure(key);
  } catch {
    return undefined;
  }
}
