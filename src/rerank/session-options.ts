/** onnxruntime settings of a local reranker: its thread count and session options. */
import { availableParallelism } from 'node:os';

/** Default onnxruntime intra-op thread count: every core this process may use. */
export function defaultThreads(): number {
  return Math.max(1, availableParallelism());
}

/** onnxruntime session options for a CPU reranker. */
export function sessionOptions(threads: number): Record<string, unknown> {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
}
