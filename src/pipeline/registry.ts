/**
 * Every kind of first stage and reranker, by its config `type`. The config schema (config.ts),
 * the plan printer (plan.ts) and the orchestrator (first-stage.ts, experiment.ts) are built from
 * these lists: a new kind is one file in retrievers/ or rerankers/ plus one line here.
 */
import type { z } from 'zod';
import type { FirstStageKind, RerankerKind, StageConfig } from '../core/stages.js';
import type { Reranker } from '../rerank/types.js';
import { bm25Retriever } from './retrievers/bm25.js';
import { denseRetriever } from './retrievers/dense.js';
import { embeddingsRetriever } from './retrievers/embeddings.js';
import { fusionRetriever } from './retrievers/fusion.js';
import { runFileRetriever } from './retrievers/run-file.js';
import { crossEncoderReranker } from './rerankers/cross-encoder.js';
import { qwen3Reranker } from './rerankers/qwen3.js';
import { remoteReranker } from './rerankers/remote.js';

export const RETRIEVER_KINDS = [bm25Retriever, denseRetriever, embeddingsRetriever, runFileRetriever, fusionRetriever] as const;

export const RERANKER_KINDS = [crossEncoderReranker, qwen3Reranker, remoteReranker] as const;

type Schemas<T extends readonly { schema: z.ZodObject }[]> = { -readonly [I in keyof T]: T[I]['schema'] };

/** The kinds' schemas as a tuple (what z.discriminatedUnion takes). */
export function schemasOf<T extends readonly { schema: z.ZodObject }[]>(kinds: T): Schemas<T> {
  return kinds.map((k) => k.schema) as Schemas<T>;
}

/** One parsed `retrievers:` entry. */
export type RetrieverConfig = z.output<(typeof RETRIEVER_KINDS)[number]['schema']>;
/** One parsed `rerankers:` entry with a model (not `none`), before its depth list is expanded (config.ts). */
export type RawModelRerankerConfig = z.output<(typeof RERANKER_KINDS)[number]['schema']>;

/** The kind of a retriever entry. (The cast is the one place the entry's type and its kind meet.) */
export function retrieverKind(type: string): FirstStageKind<z.ZodObject, StageConfig & { top_k: number }> {
  const kind = RETRIEVER_KINDS.find((k) => k.type === type);
  if (!kind) throw new Error(`no retriever kind "${type}"`);
  return kind as unknown as FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>;
}

/** The kind of a reranker entry with a model. */
export function rerankerKind(type: string): RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }> {
  const kind = RERANKER_KINDS.find((k) => k.type === type);
  if (!kind) throw new Error(`no reranker kind "${type}"`);
  return kind as unknown as RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>;
}
