/**
 * The sentence-transformers files of a converted embedder folder (modules.json, the pooling and
 * normalisation modules, config_sentence_transformers.json), so a loader that reads them (and
 * models/st-config.ts) finds the pooling the model needs and L2 normalisation after it.
 */
import { join } from 'node:path';
import { writeJsonAtomic } from '../util/atomic.js';
import { makeDirs } from '../util/dirs.js';

/** Writes the files into `dir`: Transformer → Pooling (`pooling`, over `dim`-wide states) → Normalize. */
export function writeStFiles(dir: string, dim: number, pooling: 'cls' | 'mean'): void {
  writeJsonAtomic(join(dir, 'modules.json'), [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
  ]);
  writeJsonAtomic(join(dir, '1_Pooling', 'config.json'), {
    word_embedding_dimension: dim,
    pooling_mode_cls_token: pooling === 'cls',
    pooling_mode_mean_tokens: pooling === 'mean',
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
    pooling_mode_weightedmean_tokens: false,
    pooling_mode_lasttoken: false,
    include_prompt: true,
  });
  makeDirs(join(dir, '2_Normalize'));
  writeJsonAtomic(join(dir, 'config_sentence_transformers.json'), { prompts: {}, default_prompt_name: null, similarity_fn_name: 'cosine' });
}
