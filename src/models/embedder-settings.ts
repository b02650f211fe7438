/**
 * The settings an embedder runs with, and where each came from. Order, per setting:
 *   1. the config key (`query_prefix`, `doc_prefix`, `pooling`, `normalize`, `max_tokens`);
 *   2. the preset (the protocol's value), unless it defers to the model (`'model'`, an own prompt,
 *      the role's default prompt);
 *   3. the model folder's sentence-transformers files (st-config.ts): for a prompt the preset
 *      defers, the model's prompt (an own prompt by name, else the role's prompt followed by the
 *      preset's prefix, as sentence-transformers' `encode_query` / `encode_document` with a
 *      prefixed text give), with the preset's fallback text when the folder has none;
 *   4. for prefixes "" and for max tokens the model's own limit; for normalisation true when the
 *      pooling was given by hand (a model without sentence-transformers files says nothing).
 * Pooling has no fallback: when neither the config, a preset nor the model's files say how to pool,
 * the run is refused with one line naming the missing setting (never a silent mean pooling).
 */
import { UserError } from '../core/errors.js';
import type { EmbedderPreset, Pooling, PromptSetting } from './embedder-presets.js';
import { rolePrompt, type StConfig } from './st-config.js';

export type SettingSource = 'config' | 'preset' | 'model files' | 'default';

export interface EmbedderSettingsInput {
  queryPrefix?: string;
  docPrefix?: string;
  pooling?: Pooling;
  normalize?: boolean;
  maxTokens?: number;
}

export interface EmbedderSettings {
  queryPrefix: string;
  docPrefix: string;
  pooling: Pooling;
  normalize: boolean;
  /** null = the model's own maximum. */
  maxTokens: number | null;
  sources: { queryPrefix: SettingSource; docPrefix: SettingSource; pooling: SettingSource; normalize: SettingSource; maxTokens: SettingSource };
}

export interface ResolveSettingsArgs {
  spec: EmbedderSettingsInput;
  preset: EmbedderPreset | null;
  /** The model folder's sentence-transformers configuration, if it has one. */
  st: StConfig | undefined;
  /** Config key path of the retriever, e.g. `retrievers.dense`, for messages. */
  where: string;
  /** The model folder (for messages). */
  folder: string;
}

function prefixFor(a: ResolveSettingsArgs, role: 'query' | 'document'): { value: string; source: SettingSource } {
  const key = role === 'query' ? 'query_prefix' : 'doc_prefix';
  const explicit = role === 'query' ? a.spec.queryPrefix : a.spec.docPrefix;
  if (explicit !== undefined) return { value: explicit, source: 'config' };
  const setting: PromptSetting = a.preset ? (role === 'query' ? a.preset.queryPrefix : a.preset.docPrefix) : { roleDefault: true };
  if (typeof setting === 'string') return { value: setting, source: 'preset' };
  if ('ownPrompt' in setting) {
    const text = a.st?.prompts[setting.ownPrompt];
    if (text !== undefined) return { value: text, source: 'model files' };
    if (setting.fallback !== undefined) return { value: setting.fallback, source: 'preset' };
    throw new UserError(
      `${a.where}.${key}: preset ${a.preset!.name} uses the model's own "${setting.ownPrompt}" prompt, but ${a.folder} ` +
        `has no config_sentence_transformers.json prompt of that name; set ${key}`,
    );
  }
  // sentence-transformers' encode_query / encode_document: the model's role prompt, then the
  // benchmark's prefix (which the official code puts into the text itself).
  const found = a.st ? rolePrompt(a.st, role) : undefined;
  const prefix = setting.prefix ?? '';
  if (found) return { value: found.text + prefix, source: 'model files' };
  return prefix !== '' ? { value: prefix, source: 'preset' } : { value: '', source: 'default' };
}

/** Resolves every setting (see the module comment); throws a one-line UserError when one cannot be known. */
export function resolveEmbedderSettings(a: ResolveSettingsArgs): EmbedderSettings {
  const { spec, preset, st } = a;
  if (preset?.unsupported) throw new UserError(`${a.where}.model: ${preset.unsupported}`);
  if (st && st.unsupportedModules.length > 0 && spec.pooling === undefined) {
    throw new UserError(
      `${a.where}.model: ${a.folder}/modules.json lists ${st.unsupportedModules.join(', ')} after pooling, which this tool cannot apply`,
    );
  }
  const q = prefixFor(a, 'query');
  const d = prefixFor(a, 'document');

  let pooling: Pooling;
  let poolingSource: SettingSource;
  if (spec.pooling !== undefined) [pooling, poolingSource] = [spec.pooling, 'config'];
  else if (preset && preset.pooling !== 'model') [pooling, poolingSource] = [preset.pooling, 'preset'];
  else if (st?.pooling) {
    if (st.pooling.mode === undefined) throw new UserError(`${a.where}.pooling: ${st.pooling.file}: ${st.pooling.problem ?? 'unsupported'}; set pooling to override`);
    [pooling, poolingSource] = [st.pooling.mode, 'model files'];
  } else {
    const why = preset
      ? `preset ${preset.name} takes the model's own pooling, but`
      : 'the config sets no pooling, no preset names this model, and';
    throw new UserError(
      `${a.where}.pooling: missing: ${why} ${a.folder} has no sentence-transformers pooling module (modules.json → 1_Pooling/config.json); set pooling: cls | mean | last_token`,
    );
  }

  let normalize: boolean;
  let normalizeSource: SettingSource;
  if (spec.normalize !== undefined) [normalize, normalizeSource] = [spec.normalize, 'config'];
  else if (preset && preset.normalize !== 'model') [normalize, normalizeSource] = [preset.normalize, 'preset'];
  else if (st?.hasModulesFile) [normalize, normalizeSource] = [st.normalize, 'model files'];
  else if (preset) {
    throw new UserError(
      `${a.where}.normalize: missing: preset ${preset.name} takes the model's own normalisation, but ${a.folder} has no modules.json; set normalize: true | false`,
    );
  } else [normalize, normalizeSource] = [true, 'default'];

  let maxTokens: number | null;
  let maxSource: SettingSource;
  if (spec.maxTokens !== undefined) [maxTokens, maxSource] = [spec.maxTokens, 'config'];
  else if (preset && preset.maxTokens !== null) [maxTokens, maxSource] = [preset.maxTokens, 'preset'];
  else if (st?.maxSeqLength != null) [maxTokens, maxSource] = [st.maxSeqLength, 'model files'];
  else [maxTokens, maxSource] = [null, 'default'];

  return {
    queryPrefix: q.value,
    docPrefix: d.value,
    pooling,
    normalize,
    maxTokens,
    sources: { queryPrefix: q.source, docPrefix: d.source, pooling: poolingSource, normalize: normalizeSource, maxTokens: maxSource },
  };
}
