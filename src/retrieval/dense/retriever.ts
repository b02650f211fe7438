/**
 * Dense first stage: resolve the model (preset, local folder or hub id), embed documents and
 * queries through the embedding cache, and take each query's top-k by inner product, exactly
 * or with an HNSW graph (then the exact top-k is computed too, for the overlap audit).
 * Scores in the Run are float32 values; lists are in trec order (score desc, id desc by bytes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Run } from '../../core/types.js';
import type { Doc, DocStore } from '../../core/stages.js';
import { UserError } from '../../core/errors.js';
import type { StageContext } from '../../core/context.js';
import { findEmbedderPreset, missingExportText, type EmbedderPreset, type Pooling } from '../../models/embedder-presets.js';
import { resolveEmbedderSettings, type EmbedderSettings } from '../../models/embedder-settings.js';
import { readStConfig } from '../../models/st-config.js';
import { fetchStFiles } from '../../models/st-fetch.js';
import { describeModel, resolveModel, type ModelLocationOptions, type ResolvedModel } from '../../models/resolve.js';
import { modelsDir, offlineFromEnv } from '../../util/paths.js';
import { sha256Hex } from '../../util/hash.js';
import type { EmbedderOptions } from './embedding/embedder.js';
import { openEmbedder } from './embedding/lazy-embedder.js';
import { encodeWithCache, rate, stageCacheInfo, type EncodeStats, type StageCacheInfo } from './embedding/encode-cached.js';
import { fileSha256 } from '../../cache/file-sha256.js';
import { CacheStore } from '../../cache/store.js';
import { modelFilesSha256 } from './embedding/model-hash.js';
import { toMatrix, type VectorMatrix } from './indexes/exact.js';
import { searchVectors, type IndexInfo, type IndexSpec } from './indexes/search.js';
import { folderVectorPrecision, roundVectors, vectorPrecisionOf, type VectorPrecision } from './embedding/vector-precision.js';
import { faultPoint } from '../../util/fault.js';
import { docStoreOf } from './embedding/text-source.js';

export interface DenseSpec {
  id: string;
  model: string;
  preset?: string;
  queryPrefix?: string;
  docPrefix?: string;
  pooling?: Pooling;
  normalize?: boolean;
  maxTokens?: number;
  dtype?: string;
  batchSize?: number;
  threads?: number;
  /** Vectors rounded to this format before the search (default: the preset's official one, else fp32). */
  vectorPrecision?: VectorPrecision;
  topK: number;
  index: IndexSpec;
}

export const DEFAULT_BATCH_SIZE = 16;

export interface DenseInfo {
  id: string;
  model: {
    ref: string;
    source: 'local' | 'hub';
    location: string;
    revision: string | null;
    folder: string;
    preset: string | null;
    paperModel: string | null;
    /** Set when a hub model runs without a preset: its prompts may not be the paper's. */
    warning: string | null;
  };
  options: {
    queryPrefix: string;
    docPrefix: string;
    pooling: Pooling;
    normalize: boolean;
    maxTokens: number | null;
    effectiveMaxTokens: number;
    modelMaxTokens: number;
    dtype: string;
    batchSize: number;
    threads: number | null;
    topK: number;
    paddingSide: 'left' | 'right';
    /** Where each of prefixes, pooling, normalisation and max tokens came from. */
    sources: EmbedderSettings['sources'];
    /** Format the vectors were rounded to before the inner-product search. */
    vectorPrecision: VectorPrecision;
    /** Token ids the tokenizer adds before / after every text (kept by truncation). */
    specialTokens: { prefix: number[]; suffix: number[] };
  };
  modelSha256: string;
  modelFiles: { name: string; sha256: string }[];
  tokenizerSha256: string;
  dims: number;
  cache: StageCacheInfo;
  /** Rates over texts actually encoded (null when all came from the cache). */
  throughput: { docsPerSec: number | null; tokensPerSec: number | null; queriesPerSec: number | null };
  /** Texts cut to the model's window (exact; the tokens cut off are not counted: texts are tokenised only as far as the window). */
  truncation: { documentsTruncated: number; documentsTotal: number; queriesTruncated: number };
  timings: Record<string, number>;
  index: IndexInfo;
}

interface Resolved {
  model: ResolvedModel;
  preset: EmbedderPreset | null;
  options: EmbedderOptions;
  sources: EmbedderSettings['sources'];
  /** The precision vectors are searched at (vector-precision.ts). */
  vectorPrecision: VectorPrecision;
}

function isLocalRef(ref: string, models: string): boolean {
  return existsSync(join(ref, 'config.json')) || existsSync(join(models, ref, 'config.json'));
}

/**
 * What a dense `model:` reference loads, decided from names and folders alone (nothing built,
 * fetched or read): the preset it names, if any, and the reference to resolve (a bundled preset's
 * folder, a preset's hub export, its exported folder, or the reference itself); or why it cannot
 * load (a preset this tool cannot run, a revision of another repository, an export not made yet).
 * `bundled`: a bundled model built on first use.
 */
export type EmbedderRef = { preset: EmbedderPreset | null; ref: string; bundled?: string } | { problem: string };

export function embedderRef(model: string, models: string): EmbedderRef {
  const byRef = findEmbedderPreset(model) ?? null;
  if (isLocalRef(model, models) || !byRef) return { preset: byRef, ref: model };
  if (byRef.unsupported) return { problem: byRef.unsupported };
  if (byRef.localFolder !== null) return { preset: byRef, ref: join(models, byRef.localFolder), bundled: byRef.name };
  if (byRef.hubId !== null) {
    // A revision pins one repository: keep it only when the reference names the export repo itself.
    const [base, rev] = model.trim().split('@') as [string, string | undefined];
    if (rev !== undefined && base.toLowerCase() !== byRef.hubId.toLowerCase() && base.toLowerCase() !== byRef.name.toLowerCase()) {
      return { problem: `"${model}" pins a revision of ${base}, but the preset loads the ONNX export ${byRef.hubId}; write ${byRef.hubId}@<revision>` };
    }
    return { preset: byRef, ref: rev !== undefined ? `${byRef.hubId}@${rev}` : byRef.hubId };
  }
  // No published export: the folder the export command writes, else say how to make it.
  const folder = join(models, byRef.name);
  if (!existsSync(join(folder, 'config.json'))) return { problem: missingExportText(byRef, folder) };
  return { preset: byRef, ref: folder };
}

/** Preset + model location + every option (spec overrides preset, preset and model files override defaults). */
export async function resolveSpec(ctx: StageContext, spec: DenseSpec, loc: ModelLocationOptions): Promise<Resolved> {
  let preset: EmbedderPreset | null = null;
  if (spec.preset !== undefined) {
    preset = findEmbedderPreset(spec.preset) ?? null;
    if (!preset) throw new UserError(`retrievers.${spec.id}.preset: unknown preset "${spec.preset}"`);
  }
  const r = embedderRef(spec.model, loc.modelsDir);
  if ('problem' in r) throw new UserError(`retrievers.${spec.id}.model: ${r.problem}`);
  preset ??= r.preset;
  if (r.bundled === 'glove-6b-100d-static') {
    const { ensureGloveModels } = await import('../../models/glove/convert.js');
    await ensureGloveModels(loc.modelsDir, { log: ctx.log });
  }
  if (r.bundled === 'use-lite-512') {
    const { ensureUseLiteModel } = await import('../../models/use-lite/convert.js');
    await ensureUseLiteModel(loc.modelsDir, { log: ctx.log });
  }
  const ref = r.ref;
  const model = resolveModel(ref, loc);
  if (model.source === 'hub') await fetchStFiles(model, loc);
  const st = readStConfig(model.folder);
  const settings = resolveEmbedderSettings({
    spec: {
      ...(spec.queryPrefix !== undefined ? { queryPrefix: spec.queryPrefix } : {}),
      ...(spec.docPrefix !== undefined ? { docPrefix: spec.docPrefix } : {}),
      ...(spec.pooling !== undefined ? { pooling: spec.pooling } : {}),
      ...(spec.normalize !== undefined ? { normalize: spec.normalize } : {}),
      ...(spec.maxTokens !== undefined ? { maxTokens: spec.maxTokens } : {}),
    },
    preset,
    st,
    where: `retrievers.${spec.id}`,
    folder: model.folder,
  });
  const options: EmbedderOptions = {
    queryPrefix: settings.queryPrefix,
    docPrefix: settings.docPrefix,
    pooling: settings.pooling,
    normalize: settings.normalize,
    maxTokens: settings.maxTokens,
    dtype: spec.dtype ?? preset?.defaultDtype ?? 'fp32',
    batchSize: spec.batchSize ?? DEFAULT_BATCH_SIZE,
  };
  if (spec.threads !== undefined) options.threads = spec.threads;
  return { model, preset, options, sources: settings.sources, vectorPrecision: vectorPrecisionOf(spec.vectorPrecision, preset, folderVectorPrecision(model.folder)) };
}

/** sha256 over the tokenizer files present in the model folder. */
export async function tokenizerSha256(folder: string, hashes?: CacheStore): Promise<string> {
  const lines: string[] = [];
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json']) {
    const p = join(folder, f);
    if (existsSync(p)) lines.push(`${f} ${await fileSha256(p, hashes)}\n`);
  }
  return sha256Hex(lines.join(''));
}

/** `docs`: a document store (texts streamed from the skills file while encoding, never held) or an array. */
export async function denseRetrieve(
  ctx: StageContext,
  spec: DenseSpec,
  docsIn: readonly Doc[] | DocStore,
  queries: { id: string; text: string }[],
): Promise<{ run: Run; exactRun?: Run; info: DenseInfo }> {
  if (!Number.isInteger(spec.topK) || spec.topK < 1) throw new UserError(`retrievers.${spec.id}.top_k: must be a positive integer`);
  const docs = docStoreOf(docsIn);
  const timings: Record<string, number> = {};
  const clock = (name: string, t0: number) => (timings[name] = (performance.now() - t0) / 1000);
  const loc: ModelLocationOptions = { offline: ctx.offline || offlineFromEnv(), cacheDir: ctx.cacheDir, modelsDir: modelsDir() };

  let t = performance.now();
  const { model, preset, options, sources, vectorPrecision } = await resolveSpec(ctx, spec, loc);
  const warning =
    model.source === 'hub' && !preset ? `hub model ${describeModel(model)} has no preset: prompt may not match the paper` : null;
  if (warning) ctx.log(`dense ${spec.id}: ${warning}`);
  // Loaded only when a vector is missing, once its facts are cached (lazy-embedder.ts).
  const embedder = await openEmbedder(model, options, loc, { cacheDir: ctx.cacheDir, useCache: ctx.useCache, log: ctx.log });
  clock('load', t);
  if (options.pooling === 'last_token' && embedder.frame.suffix.length === 0) {
    ctx.log(`dense ${spec.id}: last-token pooling, but the tokenizer appends no end token: the vector is the last text token's state`);
  }

  try {
    t = performance.now();
    const hashDir = ctx.useCache ? CacheStore.of(ctx) : undefined;
    const modelHash = await modelFilesSha256(embedder.modelFiles, hashDir);
    const tokHash = await tokenizerSha256(model.folder, hashDir);
    clock('hash', t);

    const encodeOpts = {
      cache: { cacheDir: ctx.cacheDir, useCache: ctx.useCache, log: ctx.log },
      modelSha256: modelHash.sha256,
      tokenizerSha256: tokHash,
      progress: ctx.progress,
    };
    const d = await encodeWithCache(embedder, docs, 'document', { ...encodeOpts, progressLabel: `${spec.id}: encode documents` });
    timings['encodeDocuments'] = d.stats.seconds;
    const q = await encodeWithCache(embedder, queries.map((x) => x.text), 'query', { ...encodeOpts, progressLabel: `${spec.id}: encode queries` });
    timings['encodeQueries'] = q.stats.seconds;

    const dim = d.vectors[0]?.length ?? q.vectors[0]?.length ?? embedder.dim ?? 0;
    // The cache keeps the model's own vectors; the official precision is applied on the way to the search.
    const D: VectorMatrix = toMatrix(roundVectors(d.vectors, vectorPrecision), dim);
    const Q: VectorMatrix = toMatrix(roundVectors(q.vectors, vectorPrecision), dim);
    const docIds = [...docs.ids];
    const queryIds = queries.map((x) => x.id);

    faultPoint('searching');
    const found = await searchVectors(
      ctx,
      { topK: spec.topK, index: spec.index, ...(options.threads !== undefined ? { threads: options.threads } : {}) },
      D,
      docIds,
      Q,
      queryIds,
    );
    Object.assign(timings, found.timings);
    const { run, exactRun } = found;
    const indexInfo = found.index;

    const info: DenseInfo = {
      id: spec.id,
      model: {
        ref: spec.model,
        source: model.source,
        location: model.location,
        revision: model.revision ?? null,
        folder: model.folder,
        preset: preset?.name ?? null,
        paperModel: preset?.paperModel ?? null,
        warning,
      },
      options: {
        queryPrefix: options.queryPrefix,
        docPrefix: options.docPrefix,
        pooling: options.pooling,
        normalize: options.normalize,
        maxTokens: options.maxTokens,
        effectiveMaxTokens: embedder.maxLength,
        modelMaxTokens: embedder.modelMaxLength,
        dtype: options.dtype,
        batchSize: options.batchSize,
        threads: options.threads ?? null,
        topK: spec.topK,
        paddingSide: embedder.paddingSide,
        sources,
        vectorPrecision,
        specialTokens: { prefix: embedder.frame.prefix, suffix: embedder.frame.suffix },
      },
      modelSha256: modelHash.sha256,
      modelFiles: modelHash.files,
      tokenizerSha256: tokHash,
      dims: dim,
      cache: stageCacheInfo(ctx.useCache, d.stats, q.stats),
      throughput: {
        docsPerSec: rate(d.stats.encoded, d.stats.run?.encodeSeconds),
        tokensPerSec: rate(d.stats.run?.tokens ?? 0, d.stats.run?.encodeSeconds),
        queriesPerSec: rate(q.stats.encoded, q.stats.run?.encodeSeconds),
      },
      truncation: {
        documentsTruncated: d.stats.truncatedTexts,
        documentsTotal: docs.size,
        queriesTruncated: q.stats.truncatedTexts,
      },
      timings,
      index: indexInfo,
    };
    return exactRun ? { run, exactRun, info } : { run, info };
  } finally {
    await embedder.dispose();
  }
}

export type { EncodeStats };
