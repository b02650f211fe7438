/**
 * Library verb behind `skillret-eval mine-negatives`: hard negatives for the next fine-tuning round,
 * mined from one first stage of a config over a named split (pipeline/split-first-stage.ts,
 * training/hard-negatives.ts), written as training triplets (formats/training-triplets.ts) with a
 * manifest beside them, `<out>.meta.json`: the config's fingerprint, the dataset files, the stage
 * and its parameters (its facts less cache outcomes, throughput and timings), the guards, the seed, the counts and the SHA-256 of the file written. Both
 * files are written atomically; neither holds a time, so a rerun writes the same bytes.
 *
 * Texts: the query's text as the dataset gives it; a skill's, the document text the config's
 * retrieval uses (`dataset.text`: fields and separator, data/text.ts `buildDocumentText`).
 */
import { resolve } from 'node:path';
import { writeSync } from 'node:fs';
import type { StageContext } from '../core/context.js';
import { UserError } from '../core/errors.js';
import { datasetFolderProblems } from '../data/dataset.js';
import { exampleLines, TRIPLET_FORMATS, type TripletFormat } from '../formats/training-triplets.js';
import { loadConfig } from '../pipeline/config.js';
import { toolInfo } from '../pipeline/manifest.js';
import { firstStageConfig, runSplitFirstStage } from '../pipeline/split-first-stage.js';
import { checkExperiment } from '../pipeline/validate.js';
import { mineHardNegatives, type MiningCounts, type NegativeGuards } from '../training/hard-negatives.js';
import { writeFileAtomicWith, writeJsonAtomic } from '../util/atomic.js';
import { sha256Hex, stableStringify } from '../util/hash.js';
import { checkOutFile } from '../util/out-file.js';
import { createProgressFactory, silentProgress } from '../util/progress.js';
import { createHash } from 'node:crypto';

export interface MineNegativesOptions {
  /** Experiment YAML file. */
  config: string;
  /** Retriever id (default: the config's only retriever). */
  retriever?: string;
  /** The split to mine (named: never a default). */
  split: string;
  /** The training file (JSONL); its manifest is `<out>.meta.json`. */
  out: string;
  /** Default `st`. */
  format?: TripletFormat;
  /** Negatives per query (default 3). */
  negatives?: number;
  /** Ranks 1 … skipTop are never negatives (default 0). */
  skipTop?: number;
  /** Ranks considered, `a:b` (1-based, inclusive) or `a:` (to the end); b also sets the depth retrieved. */
  range?: string;
  maxScoreRatio?: number;
  maxScore?: number;
  /** Default `random`. */
  sampling?: 'random' | 'top';
  /** Default 42. */
  seed?: number;
  cacheDir?: string;
  cache?: boolean;
  offline?: boolean;
  progress?: boolean;
  log?: (line: string) => void;
}

export interface MineNegativesResult {
  out: string;
  meta: string;
  format: TripletFormat;
  retriever: string;
  split: string;
  /** Lines written. */
  lines: number;
  counts: MiningCounts;
  guards: NegativeGuards;
  /** The depth each list was retrieved to (the retriever's top_k, raised to the range's end). */
  depth: number;
}

/** `a:b` or `a:` → 1-based inclusive ranks. */
export function parseRange(s: string): { from: number; to?: number } {
  const m = /^\s*(\d+)\s*:\s*(\d*)\s*$/.exec(s);
  const from = m ? Number(m[1]) : NaN;
  const to = m && m[2] !== '' ? Number(m[2]) : undefined;
  if (!m || from < 1 || (to !== undefined && to < from)) throw new UserError(`--range: expected a:b with 1 ≤ a ≤ b (ranks, 1-based, inclusive) or a: (to the end of the list), got ${JSON.stringify(s)}`);
  return to === undefined ? { from } : { from, to };
}

function guardsOf(o: MineNegativesOptions): NegativeGuards {
  const int = (flag: string, v: number | undefined, dflt: number, min: number): number => {
    const x = v ?? dflt;
    if (!Number.isSafeInteger(x) || x < min) throw new UserError(`${flag}: expected an integer ≥ ${min}, got ${String(v)}`);
    return x;
  };
  const negatives = int('--negatives', o.negatives, 3, 1);
  const skipTop = int('--skip-top', o.skipTop, 0, 0);
  const seed = int('--seed', o.seed, 42, 0);
  const range = o.range !== undefined ? parseRange(o.range) : { from: 1 };
  if (o.maxScoreRatio !== undefined && !(o.maxScoreRatio > 0 && Number.isFinite(o.maxScoreRatio))) throw new UserError(`--max-score-ratio: expected a positive number (e.g. 0.95), got ${String(o.maxScoreRatio)}`);
  if (o.maxScore !== undefined && !Number.isFinite(o.maxScore)) throw new UserError(`--max-score: expected a number, got ${String(o.maxScore)}`);
  const sampling = o.sampling ?? 'random';
  if (sampling !== 'random' && sampling !== 'top') throw new UserError(`--sampling: expected random or top, got ${JSON.stringify(sampling)}`);
  if (range.to !== undefined && range.to <= skipTop) throw new UserError(`--range ${o.range} lies within --skip-top ${skipTop}: no rank is left`);
  return {
    negatives,
    skipTop,
    range,
    ...(o.maxScoreRatio !== undefined ? { maxScoreRatio: o.maxScoreRatio } : {}),
    ...(o.maxScore !== undefined ? { maxScore: o.maxScore } : {}),
    sampling,
    seed,
  };
}

/** Keys of a stage's info that vary from run to run (cache outcomes, throughput, timings): left out of the manifest. */
const VOLATILE = new Set(['cache', 'runCache', 'throughput', 'timings', 'timings_ms', 'seconds']);

/** A stage's info without what varies from run to run, so that the manifest of a rerun is the same bytes. */
function stableInfo(info: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(info).filter(([k]) => !VOLATILE.has(k) && !/(_ms|Seconds|_seconds)$/.test(k)));
}

export function metaPathOf(out: string): string {
  return `${out}.meta.json`;
}

export async function mineNegatives(o: MineNegativesOptions): Promise<MineNegativesResult> {
  // Every flag and path first, then the config, then the work.
  const format = o.format ?? 'st';
  if (!TRIPLET_FORMATS.includes(format)) throw new UserError(`--format: expected ${TRIPLET_FORMATS.join(' or ')}, got ${JSON.stringify(format)}`);
  if (o.split.trim() === '') throw new UserError('--split: empty split name');
  const guards = guardsOf(o);
  if (o.cacheDir !== undefined && o.cacheDir.trim() === '') throw new UserError('--cache-dir: empty path');
  const out = resolve(o.out);
  const meta = metaPathOf(out);
  checkOutFile(o.out, { inputs: [o.config] });
  checkOutFile(meta, { flag: '--out (its manifest)', inputs: [o.config] });

  const full = loadConfig(o.config);
  let id = o.retriever;
  if (id === undefined) {
    if (full.retrievers.length !== 1) throw new UserError(`--retriever: ${full.file} has ${full.retrievers.length} retrievers (${full.retrievers.map((r) => r.id).join(', ')}); name the one to mine from`);
    id = full.retrievers[0]!.id;
  }
  const config = firstStageConfig(full, id, o.split, guards.range.to);
  if (config.dataset.path !== undefined) {
    const missing = datasetFolderProblems(config.dataset.path, o.split);
    if (missing.length > 0) throw new UserError(missing.map((p) => `--split ${o.split}: ${p}`));
  }
  if (config.dataset.path !== undefined) checkOutFile(o.out, { inputs: [o.config, config.dataset.path] });
  const useCache = o.cache !== false;
  const checked = checkExperiment(config, { ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}), useCache, offline: Boolean(o.offline), writes: false });
  const ctx: StageContext = {
    cacheDir: checked.cacheDir,
    useCache,
    offline: checked.offline,
    progress: o.progress ? createProgressFactory() : silentProgress,
    log: o.log ?? (() => {}),
  };
  if (o.split === full.dataset.split) ctx.log(`note: --split ${o.split} is the split ${full.file} evaluates: training on its negatives leaks that split into the model`);

  const stage = await runSplitFirstStage(ctx, checked.config);
  const { docs, dataset } = stage;
  const textOf = (docId: string): string => {
    const i = docs.indexOf(docId);
    return i === undefined ? '' : docs.text(i);
  };
  // Texts compared by their SHA-256, each skill's read and hashed once (the store re-reads texts from the file).
  const textHashes = new Map<string, string>();
  const textHash = (docId: string): string => {
    let h = textHashes.get(docId);
    if (h === undefined) textHashes.set(docId, (h = sha256Hex(textOf(docId))));
    return h;
  };
  const sameTextAsGold = (docId: string, gold: readonly string[]): boolean => {
    const h = textHash(docId);
    return gold.some((g) => docs.indexOf(g) !== undefined && textHash(g) === h);
  };
  const mined = mineHardNegatives(stage.run, dataset.qrels, dataset.queries.map((q) => q.id), guards, sameTextAsGold);
  const queryText = new Map(dataset.queries.map((q) => [q.id, q.text]));

  const hash = createHash('sha256');
  let lines = 0;
  writeFileAtomicWith(out, (fd) => {
    for (const m of mined.queries) {
      const pos = m.positives.filter((p) => docs.indexOf(p) !== undefined).map(textOf);
      if (pos.length === 0) continue;
      for (const line of exampleLines({ query: queryText.get(m.queryId)!, pos, neg: m.negatives.map((n) => textOf(n.docId)) }, format)) {
        const bytes = Buffer.from(line, 'utf8');
        writeSync(fd, bytes);
        hash.update(bytes);
        lines++;
      }
    }
  });
  const { text, file, ...resolved } = full;
  writeJsonAtomic(meta, {
    tool: toolInfo(),
    file: { path: out, format, lines, sha256: hash.digest('hex') },
    config: { file, sha256: sha256Hex(text), resolved_sha256: sha256Hex(stableStringify(resolved)) },
    dataset: { dir: dataset.dir, split: dataset.split, gold_source: dataset.goldSource, files: dataset.files.map((f) => ({ role: f.role, sha256: f.sha256, bytes: f.bytes, records: f.records })), text: config.dataset.text },
    stage: { retriever: stage.retriever.id, params: stage.retriever, info: stableInfo(stage.info) },
    guards: {
      negatives: guards.negatives,
      skip_top: guards.skipTop,
      range: { from: guards.range.from, to: guards.range.to ?? null },
      exclude: ['gold (relevance >= 1)', 'document text equal to a gold skill\'s'],
      max_score_ratio: guards.maxScoreRatio ?? null,
      max_score: guards.maxScore ?? null,
      ceiling_rule: 'kept when score <= max_score_ratio * (lowest score of the query\'s gold skills in the list) and score <= max_score',
      sampling: guards.sampling,
      seed: guards.seed,
    },
    counts: mined.counts,
  });
  return { out, meta, format, retriever: stage.retriever.id, split: dataset.split, lines, counts: mined.counts, guards, depth: stage.retriever.top_k };
}

