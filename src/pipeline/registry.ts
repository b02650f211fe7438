/**
 * Every kind of first stage and reranker, by its config `type`. The config schema (config.ts),
 * the plan printer (plan.ts) and the orchestrator (first-stage.ts, experiment.ts) are built from
 * these lists: a new kind is one file in retrievers/ or rerankers/ plus one line here. A kind
 * defined outside this package (a plugin, a test) is added at run time with `registerRetrieverKind`
 * / `registerRerankerKind` and is then a kind like the others everywhere.
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

const registered: { retrievers: FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>[]; rerankers: RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>[]; version: number } = {
  retrievers: [],
  rerankers: [],
  version: 0,
};

function checkNew(type: string, taken: readonly { type: string }[]): void {
  if (type === 'none' || taken.some((k) => k.type === type)) throw new Error(`a stage kind "${type}" is already registered`);
}

/** Adds a first-stage kind (its `type` must be new); the config schema, plan, run, explain and reports then know it. */
export function registerRetrieverKind<S extends z.ZodObject>(kind: FirstStageKind<S>): void {
  checkNew(kind.type, allRetrieverKinds());
  registered.retrievers.push(kind as unknown as FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>);
  registered.version++;
}

/** Adds a reranker kind (its `type` must be new). */
export function registerRerankerKind<S extends z.ZodObject>(kind: RerankerKind<S, Reranker>): void {
  checkNew(kind.type, allRerankerKinds());
  registered.rerankers.push(kind as unknown as RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>);
  registered.version++;
}

/** Changes whenever a kind is registered (config.ts rebuilds its schema then). */
export const registryVersion = (): number => registered.version;

/** Every first-stage kind: the built-in ones, then those registered. */
export function allRetrieverKinds(): readonly FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>[] {
  return [...(RETRIEVER_KINDS as unknown as FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>[]), ...registered.retrievers];
}

/** Every reranker kind: the built-in ones, then those registered. */
export function allRerankerKinds(): readonly RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>[] {
  return [...(RERANKER_KINDS as unknown as RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>[]), ...registered.rerankers];
}

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
  const kind = allRetrieverKinds().find((k) => k.type === type);
  if (!kind) throw new Error(`no retriever kind "${type}"`);
  return kind as unknown as FirstStageKind<z.ZodObject, StageConfig & { top_k: number }>;
}

/** The kind of a reranker entry with a model. */
export function rerankerKind(type: string): RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }> {
  const kind = allRerankerKinds().find((k) => k.type === type);
  if (!kind) throw new Error(`no reranker kind "${type}"`);
  return kind as unknown as RerankerKind<z.ZodObject, Reranker, StageConfig & { depth: number }>;
}
