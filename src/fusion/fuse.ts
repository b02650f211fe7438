/**
 * Hybrid fusion of first-stage runs (a `type: fusion` retriever): the method dispatch and the
 * defaults of its parameters. The methods live in rrf.ts and combsum.ts.
 */
import type { Run } from '../core/types.js';
import { combmnz, combsum } from './combsum.js';
import type { NormMethod } from './normalize.js';
import { rrf } from './rrf.js';

export const FUSION_METHODS = ['rrf', 'combsum', 'combmnz'] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];

export const DEFAULT_RRF_K = 60;
export const DEFAULT_NORM: NormMethod = 'min-max';

export type FusionSpec =
  | { method: 'rrf'; rrfK: number; weights: readonly number[]; topK: number }
  | { method: 'combsum' | 'combmnz'; norm: NormMethod; weights: readonly number[]; topK: number };

/** Fuses `runs` (one per input, in input order; `weights` has one entry per run). */
export function fuse(runs: readonly Run[], spec: FusionSpec): Run {
  switch (spec.method) {
    case 'rrf':
      return rrf(runs, { k: spec.rrfK, weights: spec.weights, topK: spec.topK });
    case 'combsum':
      return combsum(runs, { norm: spec.norm, weights: spec.weights, topK: spec.topK });
    case 'combmnz':
      return combmnz(runs, { norm: spec.norm, weights: spec.weights, topK: spec.topK });
  }
}
