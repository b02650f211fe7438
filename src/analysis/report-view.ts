/**
 * The HTML report's value: built from the runs and files of one or more results folders (as values:
 * formats/report-input.ts reads them, report/results-folder.ts `resultsInput` holds those `run` has
 * just written, in memory) and their leaderboard (leaderboard.ts), rendered by report/html/ without
 * further analysis. Holds the many-system comparison (significance/systems.ts),
 * metric@k points, each reranked run's on/off record with its per-query Δ, the HNSW audits, the slices
 * of breakdown.json and the per-query explorer data.
 */
import type { SystemsComparison } from '../significance/systems.js';
import { measureOfKey } from '../metrics/measures.js';
import { formatPercent, formatSignedPercent } from '../metrics/official-percent.js';
import type { ReportInput, ReportRun } from '../formats/report-input.js';
import { explainViews, injectionViews, type ExplainView, type InjectionView } from './insight-views.js';
import type { Leaderboard } from './leaderboard.js';

export interface OnOffView {
  label: string;
  versus: string;
  depth: number;
  key: string;
  counts: { helped: number; hurt: number; unchanged: number };
  /** First-stage Recall@depth / Completeness@depth. */
  ceiling: Record<string, number>;
  metrics: { key: string; base: number; treated: number; pRandomization: number; pT: number }[];
  /** Per-query Δ (on − off) of `key`, query order of the comparison. */
  deltas: number[];
}

export interface AuditView {
  label: string;
  overlap: Record<string, number>;
  delta: Record<string, number>;
}

export interface SliceView {
  name: string;
  note: string;
  /** Groups in display order with their query counts. */
  groups: { name: string; queries: number }[];
  key: string;
  values: { run: string; group: string; value: number }[];
  /** Reranked runs: on − off inside each group (breakdown.json `vs_none`). */
  onOff: { run: string; group: string; base: number; treated: number; helped: number; hurt: number; pHolm: number }[];
}

export interface ExplorerRun {
  top: string[];
  /** Rank (1-based) of each gold skill in the whole retrieved list, null when not retrieved. */
  goldRanks: (number | null)[];
  /** The main metric as printed (official rounding, ×100). */
  valueText: string;
  /** Not every gold skill in the top k of the main metric. */
  failed: boolean;
  /** Reranked runs: on − off of the main metric. */
  vsNone: number | null;
  vsNoneText: string | null;
}

export interface ExplorerData {
  mainKey: string;
  k: number;
  runs: { label: string; reranked: boolean }[];
  queries: { id: string; text: string; generatorModel: string | null; gold: string[]; runs: ExplorerRun[] }[];
  /** `family`: only for a skill in a sibling family (analysis.siblings), so pages without it are unchanged. */
  skills: Record<string, { name: string; major: string | null; sub: string | null; url: string | null; rawUrl: string | null; family?: string }>;
}

export interface ReportModel {
  title: string;
  description: string;
  comparison: SystemsComparison;
  atK: { run: string; measure: string; k: number; value: number }[];
  onOff: OnOffView[];
  audits: AuditView[];
  slices: SliceView[];
  explorer: ExplorerData;
  /** Injection operating-point curves of the runs that have them. */
  injection: InjectionView[];
  /** Sentence erasure of the runs `explain` was run on. */
  explain: ExplainView[];
}

/** An http(s) URL that is safe to put in href, or null (javascript:, data:, relative, malformed …). */
export function safeHttpUrl(raw: string | undefined): string | null {
  if (raw === undefined || !/^https?:\/\//i.test(raw)) return null;
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const numbers = (v: unknown): Record<string, number> => Object.fromEntries(Object.entries(obj(v) ?? {}).filter(([, x]) => num(x) !== undefined)) as Record<string, number>;

function onOffOf(r: ReportRun, qids: readonly string[], key: string): OnOffView | undefined {
  const rr = obj(r.metricsJson?.reranking);
  const at = obj(rr?.attribution);
  if (!rr || !at) return undefined;
  const counts = obj(at.counts);
  const metrics = Object.entries(obj(at.metrics) ?? {}).map(([k, v]) => {
    const m = obj(v) ?? {};
    return { key: k, base: num(m.base) ?? NaN, treated: num(m.treated) ?? NaN, pRandomization: num(obj(m.randomization)?.pValue) ?? NaN, pT: num(obj(m.tTest)?.pValue) ?? NaN };
  });
  const deltas = qids.map((q) => r.records.get(q)?.vsNone?.[key]).filter((x): x is number => x !== undefined);
  return {
    label: r.label,
    versus: typeof rr.versus === 'string' ? rr.versus : '',
    depth: num(rr.depth) ?? 0,
    key: typeof at.primaryKey === 'string' ? at.primaryKey : key,
    counts: { helped: num(counts?.helped) ?? 0, hurt: num(counts?.hurt) ?? 0, unchanged: num(counts?.unchanged) ?? 0 },
    ceiling: numbers(rr.ceiling),
    metrics,
    deltas,
  };
}

/**
 * The slices of each run's breakdown.json: `{"slices": {name: {"note", "groups": {g: {queries, metrics}}}}}`,
 * or the older `{"by": name, "groups": {…}}`.
 */
function slicesOf(runs: readonly ReportRun[], key: string): SliceView[] {
  const perRun = runs.map((r) => {
    const b = r.breakdown;
    if (!b) return new Map<string, { note: string; groups: Record<string, unknown> }>();
    const slices = obj(b.slices);
    if (slices) return new Map(Object.entries(slices).map(([n, s]) => [n, { note: String(obj(s)?.note ?? ''), groups: obj(obj(s)?.groups) ?? {} }]));
    if (typeof b.by === 'string' && obj(b.groups)) return new Map([[b.by, { note: '', groups: obj(b.groups)! }]]);
    return new Map<string, { note: string; groups: Record<string, unknown> }>();
  });
  const first = perRun[0];
  if (!first) return [];
  const out: SliceView[] = [];
  for (const [name, s] of first) {
    const groups = Object.entries(s.groups).map(([g, v]) => ({ name: g, queries: num(obj(v)?.queries) ?? 0 }));
    if (groups.length < 2) continue;
    const values: SliceView['values'] = [];
    const onOff: SliceView['onOff'] = [];
    runs.forEach((r, i) => {
      const gs = perRun[i]!.get(name)?.groups ?? {};
      for (const g of groups) {
        const v = num(obj(obj(gs[g.name])?.metrics)?.[key]);
        if (v !== undefined) values.push({ run: r.label, group: g.name, value: v });
        const vs = obj(obj(gs[g.name])?.vs_none);
        const [base, treated, helped, hurt, pHolm] = [num(vs?.base), num(vs?.treated), num(vs?.helped), num(vs?.hurt), num(vs?.p_holm)];
        if (vs?.metric === key && base !== undefined && treated !== undefined && helped !== undefined && hurt !== undefined && pHolm !== undefined)
          onOff.push({ run: r.label, group: g.name, base, treated, helped, hurt, pHolm });
      }
    });
    out.push({ name, note: s.note, groups, key, values, onOff });
  }
  return out;
}

/** The report of `input`'s runs, whose leaderboard is `board` (leaderboard.ts, of the same runs in the same order). */
export function buildReportModel(input: ReportInput, board: Leaderboard): ReportModel {
  const runs = input.runs;
  const qs = board.querySet;
  const first = runs[0]!;
  const comparison = board.comparison;
  const useKeys = comparison.settings.keys;
  const mainKey = comparison.settings.mainKey;

  const atK: ReportModel['atK'] = [];
  for (const row of comparison.rows) {
    for (const k of useKeys) {
      const m = measureOfKey(k);
      if (m) atK.push({ run: row.label, measure: m.name, k: m.k, value: row.means[k]! });
    }
  }

  const onOff = runs.map((r) => onOffOf(r, qs.qids, mainKey)).filter((x): x is OnOffView => x !== undefined);
  const audits = runs.flatMap((r) => {
    const a = obj(r.metricsJson?.approximation);
    return a ? [{ label: r.label, overlap: numbers(a.overlap), delta: numbers(a.delta) }] : [];
  });
  const slices = slicesOf(runs, mainKey);

  const kMain = measureOfKey(mainKey)?.k ?? 10;
  const shown = new Set<string>();
  const queries = qs.qids.map((id) => {
    const info = input.queries.get(id);
    const gold = first.records.get(id)!.gold ?? info?.gold ?? [];
    for (const g of gold) shown.add(g);
    return {
      id,
      text: info?.query ?? '',
      generatorModel: info?.generatorModel ?? null,
      gold,
      runs: runs.map((r) => {
        const rec = r.records.get(id)!;
        const retrieved = rec.retrieved ?? [];
        const top = retrieved.slice(0, kMain);
        for (const d of top) shown.add(d);
        const goldRanks = gold.map((g) => {
          const i = retrieved.indexOf(g);
          return i < 0 ? null : i + 1;
        });
        return {
          top,
          goldRanks,
          valueText: formatPercent(rec.metrics[mainKey] ?? NaN),
          failed: goldRanks.some((x) => x === null || x > kMain),
          vsNone: rec.vsNone?.[mainKey] ?? null,
          vsNoneText: rec.vsNone?.[mainKey] !== undefined ? formatSignedPercent(rec.vsNone[mainKey]) : null,
        };
      }),
    };
  });
  const skills: ExplorerData['skills'] = Object.create(null) as ExplorerData['skills'];
  for (const id of [...shown].sort()) {
    const s = input.skills.get(id);
    skills[id] = { name: s?.name ?? '', major: s?.major ?? null, sub: s?.sub ?? null, url: safeHttpUrl(s?.sourceUrl), rawUrl: s?.sourceUrl ?? null, ...(s?.family !== undefined ? { family: s.family } : {}) };
  }
  const explorer: ExplorerData = {
    mainKey,
    k: kMain,
    runs: runs.map((r) => ({ label: r.label, reranked: [...r.records.values()].some((x) => x.vsNone !== undefined) })),
    queries,
    skills,
  };

  const names = input.folders.map((f) => f.name);
  const manifest = input.folders[0]?.manifest;
  const desc = (manifest?.config as { resolved?: { description?: unknown } } | undefined)?.resolved?.description;
  return {
    title: names.length ? names.join(' · ') : runs.map((r) => r.label).join(' · '),
    description: typeof desc === 'string' && input.folders.length === 1 ? desc : '',
    comparison,
    atK,
    onOff,
    audits,
    slices,
    explorer,
    injection: injectionViews(runs.flatMap((r) => (r.insight ? [r.insight] : []))),
    explain: explainViews(runs.flatMap((r) => (r.insight ? [r.insight] : []))),
  };
}
