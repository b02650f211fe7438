/**
 * Names of the bundled offline models generated from GloVe 6B 100-d (folders under modelsDir()), kept apart
 * from the converter so retrieval code can refer to them without loading conversion code.
 */
import { join } from 'node:path';
import { markedComplete } from '../completion-marker.js';

/** Static SIF-weighted GloVe word-vector embedder (not a transformer). */
export const GLOVE_EMBEDDER_NAME = 'glove-6b-100d-static';
/** GloVe MaxSim (untrained late-interaction scorer), not a trained reranker. */
export const GLOVE_RERANKER_NAME = 'glove-6b-100d-maxsim';
/** File written last into each model folder; its presence (with the current converter version) marks it complete. */
export const GLOVE_COMPLETE_MARKER = 'skillret-model.json';
/** Bump when the conversion changes, so existing folders are rebuilt. */
export const GLOVE_CONVERTER_VERSION = 2;

export function gloveEmbedderDir(modelsDir: string): string {
  return join(modelsDir, GLOVE_EMBEDDER_NAME);
}

export function gloveRerankerDir(modelsDir: string): string {
  return join(modelsDir, GLOVE_RERANKER_NAME);
}

/** true when `dir` holds a complete model named `name` from the current converter version. */
export function gloveModelComplete(dir: string, name: string): boolean {
  return markedComplete(dir, GLOVE_COMPLETE_MARKER, name, GLOVE_CONVERTER_VERSION);
}
