/**
 * The history entries of a results folder, from the folder as values (formats/report-input.ts):
 * what `run` has just written (in memory) or what `leaderboard --rebuild` reads back. One entry per
 * run: its metrics.json and per-query records, the dataset fingerprint that says which runs are
 * comparable, the experiment's facts from manifest.json and the models of its stages.
 */
import { resolve } from 'node:path';
import type { ReportInput, ReportRun } from '../formats/report-input.js';
import { mainKey } from '../metrics/measures.js';
import { sha256Hex, stableStringify } from '../util/hash.js';
import type { NewEntry } from './store.js';

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The dataset fingerprint of a run's metrics.json: SHA-256 of its dataset files (role and SHA-256,
 * in role order) and its evaluation policy. Undefined when metrics.json does not name its files.
 */
export function datasetFingerprint(metricsJson: Record<string, unknown> | undefined): string | undefined {
  const files = obj(metricsJson?.dataset)?.files;
  if (!Array.isArray(files) || files.length === 0) return undefined;
  const pins = files.map((f) => ({ role: str(obj(f)?.role) ?? '', sha256: str(obj(f)?.sha256) ?? '' })).sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0));
  const policy = str(obj(metricsJson?.evaluation)?.policy) ?? 'trec_eval';
  return sha256Hex(stableStringify({ files: pins, policy, split: str(metricsJson?.split) ?? '' }));
}

/** What the manifest says of the model behind a stage: type, model and the facts that identify it. */
function stageModel(manifest: Record<string, unknown> | undefined, kind: 'retrieval' | 'rerank', id: string, over?: string): Record<string, unknown> | undefined {
  const stages = Array.isArray(manifest?.stages) ? (manifest.stages as unknown[]) : [];
  const s = stages.map(obj).find((x) => x?.kind === kind && x.id === id && (over === undefined || x.over === over));
  if (!s) return undefined;
  const params = obj(s.params) ?? {};
  const info = obj(s.info) ?? {};
  const model = obj(info.model);
  const options = obj(info.options);
  const out: Record<string, unknown> = { type: params.type ?? info.type };
  const put = (k: string, v: unknown) => {
    if (v !== undefined && v !== null) out[k] = v;
  };
  put('model', params.model);
  put('preset', model?.preset ?? info.preset);
  put('revision', model?.revision ?? info.revision);
  put('dims', info.dims);
  put('max_tokens', options?.effectiveMaxTokens ?? info.maxTokens);
  put('precision', options?.vectorPrecision ?? info.scorePrecision);
  put('dtype', options?.dtype ?? info.dtype);
  put('model_sha256', info.modelSha256);
  return out;
}

/** Main metric per group of the major slice of a run's breakdown.json. */
function categoriesOf(r: ReportRun): Record<string, number> {
  const major = obj(obj(obj(r.breakdown)?.slices)?.major)?.groups;
  const groups = obj(major) ?? {};
  const key = mainKey(r.firstKeys.length ? r.firstKeys : ['NDCG@10']);
  const out: Record<string, number> = {};
  for (const [g, v] of Object.entries(groups)) {
    const x = obj(obj(v)?.metrics)?.[key];
    if (typeof x === 'number') out[g] = x;
  }
  return out;
}

/**
 * The entries of `input`'s runs that can be compared later (a run without dataset files in its
 * metrics.json cannot and is left out; `skipped` names them), with the tags of their manifest.
 */
export function historyEntries(input: ReportInput): { entries: NewEntry[]; skipped: string[] } {
  const entries: NewEntry[] = [];
  const skipped: string[] = [];
  for (const r of input.runs) {
    const dataset = datasetFingerprint(r.metricsJson);
    const folder = input.folders.find((f) => f.dir === r.resultsDir);
    const manifest = folder?.manifest;
    if (dataset === undefined || r.retriever === undefined || r.reranker === undefined || r.metricsJson === undefined) {
      skipped.push(r.label);
      continue;
    }
    const config = obj(manifest?.config);
    const first = stageModel(manifest, 'retrieval', r.retriever);
    const rerank = r.reranker === 'none' ? undefined : stageModel(manifest, 'rerank', r.reranker, r.retriever);
    entries.push({
      finishedAt: str(manifest?.finished_at) ?? '',
      experiment: r.experiment ?? folder?.name ?? '',
      retriever: r.retriever,
      reranker: r.reranker,
      resultsDir: resolve(r.resultsDir ?? r.dir),
      dataset,
      config: str(config?.resolved_sha256) ?? '',
      tool: str(obj(manifest?.tool)?.version) ?? '',
      models: { ...(first ? { first_stage: first } : {}), ...(rerank ? { reranker: rerank } : {}) },
      tags: Array.isArray(manifest?.tags) ? manifest.tags.filter((t): t is string => typeof t === 'string') : [],
      metricsJson: r.metricsJson,
      categories: categoriesOf(r),
      records: r.records,
    });
  }
  return { entries, skipped };
}
