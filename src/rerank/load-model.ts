/**
 * Loading a local reranker's tokenizer and ONNX model through transformers.js, on CPU with this
 * project's session options; both rerankers (cross-encoder.ts, qwen3.ts) load this way.
 */
import { AutoTokenizer, type PretrainedConfig, type PreTrainedModel, type PreTrainedTokenizer } from '@huggingface/transformers';
import { modelClassFor, type ModelClass } from './model-config.js';
import { sessionOptions } from './session-options.js';

/** Where a reranker model is and how to run it. */
export interface ModelLoadOptions {
  /** Folder or hub id, as `resolveModel` returned it (transformers.js env already configured). */
  location: string;
  revision?: string;
  dtype: string;
  threads: number;
  /** For error messages: the reranker id. */
  id: string;
}

const revisionOf = (o: ModelLoadOptions) => (o.revision !== undefined ? { revision: o.revision } : {});

export function loadTokenizer(o: ModelLoadOptions): Promise<PreTrainedTokenizer> {
  return AutoTokenizer.from_pretrained(o.location, revisionOf(o));
}

/** The model with `auto` (or the class its config names, see modelClassFor), on CPU with `o.threads` threads. */
export function loadModel(o: ModelLoadOptions, config: PretrainedConfig, auto: ModelClass): Promise<PreTrainedModel> {
  return modelClassFor(config, auto, o.id).from_pretrained(o.location, {
    ...revisionOf(o),
    config,
    dtype: o.dtype as never,
    device: 'cpu',
    session_options: sessionOptions(o.threads),
  });
}
