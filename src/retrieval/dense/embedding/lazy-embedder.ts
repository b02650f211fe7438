/**
 * A local embedder that loads its model only when a text has to be encoded. The embedding cache
 * key and the run's manifest need a few facts about the model (its token limit, padding side,
 * special-token frame, hidden size: embedder-facts.ts); once a load has recorded them for these
 * exact model files, `openEmbedder` hands out a `LazyEmbedder` that answers from the facts and
 * loads the model (transformers.js tokenizer and ONNX session) on the first `embed`, so a warm run
 * whose vectors are all cached never loads it. The facts a lazy load finds are checked against the
 * cached ones (a disagreement rewrites them and stops the run). Without the cache (`--no-cache`),
 * or when the facts are not cached yet, the model is loaded at once, as before.
 */
import type { ModelLocationOptions, ResolvedModel } from '../../../models/resolve.js';
import type { Embedder, EmbedRunStats, OnBatch } from './embedder.js';
import { checkEmbedderInputs, effectiveMaxLength, modelFilePaths, type EmbedderOptions, type Role } from './embedder-inputs.js';
import { embedderFactsKey, readEmbedderFacts, sameFacts, writeEmbedderFacts, type EmbedderFacts } from './embedder-facts.js';
import type { Frame } from '../tokenizers/token-frame.js';
import { CacheStore } from '../../../cache/store.js';
import type { TextSource } from './text-source.js';

/** Loads the model; embedder.ts (and with it transformers.js) is imported only now. */
async function loadEmbedder(model: ResolvedModel, options: EmbedderOptions, loc: ModelLocationOptions): Promise<Embedder> {
  const { Embedder } = await import('./embedder.js');
  return Embedder.load(model, options, loc);
}

/** What the dense stage uses of a local embedder (a loaded `Embedder` is one). */
export interface LocalEmbedder {
  readonly model: ResolvedModel;
  readonly options: Readonly<EmbedderOptions>;
  readonly maxLength: number;
  readonly modelMaxLength: number;
  readonly modelFiles: string[];
  readonly paddingSide: 'left' | 'right';
  readonly frame: Frame;
  readonly dim: number | null;
  readonly lastRun: EmbedRunStats | null;
  prefixFor(role: Role): string;
  embed(texts: readonly string[] | TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export interface OpenEmbedderOptions {
  cacheDir: string;
  useCache: boolean;
  log: (line: string) => void;
}

/** The facts of a loaded embedder, as the facts cache keeps them. */
export function factsOf(e: Embedder): EmbedderFacts {
  return { modelMaxLength: e.modelMaxLength, paddingSide: e.paddingSide, frame: { prefix: [...e.frame.prefix], suffix: [...e.frame.suffix] }, dim: e.dim };
}

export class LazyEmbedder implements LocalEmbedder {
  readonly maxLength: number;
  readonly modelFiles: string[];
  private loaded: Embedder | null = null;
  private loading: Promise<Embedder> | null = null;

  constructor(
    readonly model: ResolvedModel,
    readonly options: Readonly<EmbedderOptions>,
    private readonly facts: EmbedderFacts,
    private readonly load: () => Promise<Embedder>,
  ) {
    this.maxLength = effectiveMaxLength(options.maxTokens, facts.modelMaxLength);
    this.modelFiles = modelFilePaths(model.folder, options.dtype);
  }

  get modelMaxLength(): number {
    return this.facts.modelMaxLength;
  }
  get paddingSide(): 'left' | 'right' {
    return this.facts.paddingSide;
  }
  get frame(): Frame {
    return this.facts.frame;
  }
  get dim(): number | null {
    return this.loaded?.dim ?? this.facts.dim;
  }
  get lastRun(): EmbedRunStats | null {
    return this.loaded?.lastRun ?? null;
  }
  /** Whether the model has been loaded (a text had to be encoded). */
  get isLoaded(): boolean {
    return this.loaded !== null;
  }

  prefixFor(role: Role): string {
    return role === 'query' ? this.options.queryPrefix : this.options.docPrefix;
  }

  async embed(texts: readonly string[] | TextSource, role: Role, onBatch?: OnBatch): Promise<Float32Array[]> {
    this.loading ??= this.load().then((e) => (this.loaded = e));
    return (await this.loading).embed(texts, role, onBatch);
  }

  async dispose(): Promise<void> {
    const e = this.loading ? await this.loading.catch(() => null) : null;
    if (e) await e.dispose();
  }
}

/** A lazy embedder of `model` when its facts are cached, else null (nothing is loaded either way). */
export async function peekEmbedder(model: ResolvedModel, options: EmbedderOptions, loc: ModelLocationOptions, o: OpenEmbedderOptions): Promise<LazyEmbedder | null> {
  checkEmbedderInputs(model, options, loc);
  if (!o.useCache) return null;
  const key = await embedderFactsKey(model.folder, modelFilePaths(model.folder, options.dtype), options.dtype, CacheStore.of(o));
  const facts = key === null ? null : readEmbedderFacts(o.cacheDir, key, o.log);
  return facts === null ? null : new LazyEmbedder(model, options, facts, () => loadEmbedder(model, options, loc));
}

/**
 * The local embedder of `model`: lazy when its facts are cached, else loaded now (and its facts
 * stored). The checks that need no load (options, model files present) run first either way.
 */
export async function openEmbedder(model: ResolvedModel, options: EmbedderOptions, loc: ModelLocationOptions, o: OpenEmbedderOptions): Promise<LocalEmbedder> {
  checkEmbedderInputs(model, options, loc);
  if (!o.useCache) return loadEmbedder(model, options, loc);
  const key = await embedderFactsKey(model.folder, modelFilePaths(model.folder, options.dtype), options.dtype, CacheStore.of(o));
  if (key === null) return loadEmbedder(model, options, loc);
  const facts = readEmbedderFacts(o.cacheDir, key, o.log);
  if (facts === null) {
    const e = await loadEmbedder(model, options, loc);
    writeEmbedderFacts(o.cacheDir, key, factsOf(e), o.log);
    return e;
  }
  return new LazyEmbedder(model, options, facts, async () => {
    const e = await loadEmbedder(model, options, loc);
    const found = factsOf(e);
    if (!sameFacts(found, facts)) {
      writeEmbedderFacts(o.cacheDir, key, found, o.log);
      await e.dispose();
      throw new Error(`dense: the cached facts of model ${model.ref} disagree with the loaded model (rewritten); run again`);
    }
    return e;
  });
}
