/**
 * A reranker model's config.json: reading it through transformers.js, the dtype it asks for, and
 * the class to load the model with.
 */
import { existsSync } from 'node:fs';
import * as transformers from '@huggingface/transformers';
import { AutoConfig, type PretrainedConfig, type PreTrainedModel } from '@huggingface/transformers';
import { UserError } from '../core/errors.js';
import { assertJsonFilesParse } from '../util/json-files.js';

/** The `dtype` a model asks for in its config (`transformers.js_config.dtype`), if a plain string. */
export function configDtype(config: PretrainedConfig): string | undefined {
  const tj = (config as unknown as Record<string, unknown>)['transformers.js_config'];
  if (tj && typeof tj === 'object') {
    const d = (tj as Record<string, unknown>).dtype;
    if (typeof d === 'string') return d;
  }
  return undefined;
}

/** The model's config.json through transformers.js. */
export async function loadModelConfig(location: string, revision?: string): Promise<PretrainedConfig> {
  if (existsSync(location)) assertJsonFilesParse(location);
  return AutoConfig.from_pretrained(location, revision !== undefined ? { revision } : {});
}

export interface ModelClass {
  from_pretrained(location: string, options: Record<string, unknown>): Promise<PreTrainedModel>;
}

/**
 * The class to load a model with: the Auto class, or, for a config without `model_type`
 * (custom-code models such as jina-reranker-v2, whose Python config class supplies it), the
 * transformers.js class named by its first architecture (e.g. XLMRobertaForSequenceClassification).
 */
export function modelClassFor(config: PretrainedConfig, auto: ModelClass, id: string): ModelClass {
  const raw = config as unknown as Record<string, unknown>;
  if (typeof raw.model_type === 'string' && raw.model_type !== '') return auto;
  const arch = Array.isArray(raw.architectures) ? raw.architectures[0] : undefined;
  const cls = typeof arch === 'string' ? (transformers as Record<string, unknown>)[arch] : undefined;
  if (typeof cls === 'function' && typeof (cls as unknown as ModelClass).from_pretrained === 'function') return cls as unknown as ModelClass;
  throw new UserError(`reranker "${id}": config.json has no model_type and its architecture ${JSON.stringify(arch ?? null)} is not a transformers.js class`);
}
