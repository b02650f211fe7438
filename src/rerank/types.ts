/**
 * The nouns of the second stage: what a reranker is asked to be (`RerankerSpec`, from the
 * config; `RemoteRerankerSpec` for a served one) and what it does once loaded (`Reranker`:
 * score (query, document) pairs).
 */
import type { z } from 'zod';
import type { RerankerKind } from '../core/stages.js';
import type { EndpointConfig, RerankApi } from '../remote/endpoint.js';
import type { ScorePrecision } from './score-precision.js';

/** One reranker as the experiment config asks for it. */
export interface RerankerSpec {
  /** Results folder name. */
  id: string;
  /** The kind (src/pipeline/rerankers/): a preset of another kind is refused. */
  type: string;
  /** A preset name (src/models/reranker-presets.ts), a hub id `org/name[@rev]` or a local folder. */
  model: string;
  /** Preset to take defaults from; when absent, `model` is looked up among the presets. */
  preset?: string;
  /** Token budget of one model input (pair with special tokens / prefix+body+suffix). */
  maxTokens?: number;
  /** Pairs per forward pass. */
  batchSize?: number;
  /** transformers.js dtype (fp32, fp16, q8, q4, …): which ONNX file of the model folder. */
  dtype?: string;
  /** onnxruntime intra-op threads (default: the machine's cores). */
  threads?: number;
  /** Pool size N: how many first-stage candidates per query are reranked (default 20). */
  depth: number;
  /** Scores rounded to this precision before ranking (score-precision.ts); default: the preset's official one, else fp32. */
  scorePrecision?: ScorePrecision;
}

/**
 * A reranker served by a remote server (TEI /rerank or a Cohere-style /rerank): no local model;
 * `model` is sent where the API has a model field and keys the score cache.
 */
export interface RemoteRerankerSpec {
  id: string;
  type: 'remote';
  model: string;
  endpoint: EndpointConfig<RerankApi>;
  /** Pool size N (default 20). */
  depth: number;
  /** Scores rounded to this precision before ranking (default fp32). */
  scorePrecision?: ScorePrecision;
}

/** One (query, document) pair to score. */
export interface RerankPair {
  query: string;
  doc: string;
}

/** Counters a reranker keeps over its lifetime (all `score` calls together). */
export interface RerankStats {
  /** Pairs sent through the model. */
  pairs: number;
  /** Pairs whose input was cut to the token budget. */
  truncatedPairs: number;
  /** Pairs answered from the score cache (no model call). */
  cachedPairs: number;
}

/** A loaded reranker. */
export interface Reranker {
  /** Everything that identifies the scorer (model, revision, dtype, template, limits); goes into results. */
  describe(): Record<string, unknown>;
  /**
   * One score per pair, in input order; higher = more relevant. Deterministic for a given
   * model and settings, whatever the batch size. `onProgress(n)` is called with the number
   * of pairs just finished.
   */
  score(pairs: RerankPair[], onProgress?: (n: number) => void): Promise<number[]>;
  /** Lifetime counters (optional). */
  stats?(): RerankStats;
  /** Releases the onnxruntime sessions (optional). */
  dispose?(): Promise<void>;
}

/** Identity, for type inference of a reranker kind's config from its schema (kinds: src/pipeline/rerankers/). */
export function defineReranker<S extends z.ZodObject>(kind: RerankerKind<S, Reranker>): RerankerKind<S, Reranker> {
  return kind;
}
