/**
 * A model folder's sentence-transformers configuration, as sentence-transformers itself reads it:
 * - `modules.json`: the module list; the `sentence_transformers.models.Pooling` module's folder holds
 *   `config.json` (`pooling_mode_cls_token`, `pooling_mode_mean_tokens`, `pooling_mode_lasttoken`, …,
 *   `include_prompt`); a `sentence_transformers.models.Normalize` module means L2 normalisation;
 * - `config_sentence_transformers.json`: `prompts` (name → text) and `default_prompt_name`;
 * - `sentence_bert_config.json`: `max_seq_length`.
 * Pure reading: no defaults are invented here (embedder-settings.ts decides what applies).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { Pooling } from './embedder-presets.js';

export const ST_FILES = ['modules.json', 'config_sentence_transformers.json', 'sentence_bert_config.json'] as const;

export interface StPooling {
  /** The supported pooling, or undefined when the module asks for one this tool does not have. */
  mode?: Pooling;
  /** Why the module cannot be used (unsupported mode, several modes, prompt tokens excluded). */
  problem?: string;
  /** The pooling config file (absolute). */
  file: string;
}

export interface StConfig {
  folder: string;
  /** Module types in order (`sentence_transformers.models.Transformer`, `…Pooling`, `…Normalize`, …); empty without modules.json. */
  modules: string[];
  hasModulesFile: boolean;
  pooling?: StPooling;
  /** A Normalize module is listed. */
  normalize: boolean;
  /** Modules after the transformer that this tool cannot apply (Dense, LayerNorm, …). */
  unsupportedModules: string[];
  prompts: Record<string, string>;
  defaultPromptName: string | null;
  maxSeqLength: number | null;
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new UserError(`${file}: malformed JSON (${e instanceof Error ? e.message.slice(0, 160) : String(e)})`);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const POOLING_KEYS: Readonly<Record<string, Pooling | null>> = {
  pooling_mode_cls_token: 'cls',
  pooling_mode_mean_tokens: 'mean',
  pooling_mode_lasttoken: 'last_token',
  pooling_mode_max_tokens: null,
  pooling_mode_mean_sqrt_len_tokens: null,
  pooling_mode_weightedmean_tokens: null,
};

const POOLING_MODE_NAMES: Readonly<Record<string, string>> = { cls: 'pooling_mode_cls_token', mean: 'pooling_mode_mean_tokens', lasttoken: 'pooling_mode_lasttoken' };

/** The pooling a sentence-transformers Pooling config asks for. */
export function parsePoolingConfig(file: string): StPooling {
  const cfg = readJson(file);
  if (!isObj(cfg)) throw new UserError(`${file}: expected a JSON object (sentence-transformers Pooling config)`);
  // Newer sentence-transformers also accept "pooling_mode": "cls" | "mean" | "lasttoken" | …
  const on = Object.keys(POOLING_KEYS).filter((k) => cfg[k] === true);
  if (typeof cfg['pooling_mode'] === 'string') {
    const named = POOLING_MODE_NAMES[cfg['pooling_mode']];
    if (named === undefined) return { file, problem: `pooling_mode "${cfg['pooling_mode']}" is not supported here (cls, mean, lasttoken)` };
    if (!on.includes(named)) on.push(named);
  }
  if (on.length === 0) return { file, problem: 'no pooling_mode_* key is true' };
  if (on.length > 1) return { file, problem: `several pooling modes at once (${on.join(', ')}: concatenated vectors are not supported)` };
  const mode = POOLING_KEYS[on[0]!];
  if (mode === null || mode === undefined) return { file, problem: `${on[0]} is not supported here (cls, mean and last-token pooling are)` };
  if (cfg['include_prompt'] === false) return { file, problem: 'include_prompt false (pooling that leaves out the prompt tokens) is not supported here' };
  return { file, mode };
}

/**
 * Reads the sentence-transformers files of `folder`; undefined when it has none of them (not a
 * sentence-transformers model, or its files were not exported with it).
 */
export function readStConfig(folder: string): StConfig | undefined {
  const has = (f: string) => existsSync(join(folder, f));
  if (!ST_FILES.some(has)) return undefined;
  const out: StConfig = {
    folder,
    modules: [],
    hasModulesFile: has('modules.json'),
    normalize: false,
    unsupportedModules: [],
    prompts: {},
    defaultPromptName: null,
    maxSeqLength: null,
  };
  if (out.hasModulesFile) {
    const file = join(folder, 'modules.json');
    const mods = readJson(file);
    if (!Array.isArray(mods)) throw new UserError(`${file}: expected a JSON array of modules`);
    mods.forEach((m: unknown, i: number) => {
      if (!isObj(m) || typeof m['type'] !== 'string') throw new UserError(`${file}: [${i}].type: expected a string`);
      const type = m['type'];
      const path = typeof m['path'] === 'string' ? m['path'] : '';
      out.modules.push(type);
      const short = type.split('.').pop() ?? type;
      if (short === 'Pooling') {
        const cfgFile = join(folder, path, 'config.json');
        if (!existsSync(cfgFile)) throw new UserError(`${file}: [${i}] names a Pooling module in "${path}", but ${cfgFile} is missing`);
        out.pooling = parsePoolingConfig(cfgFile);
      } else if (short === 'Normalize') out.normalize = true;
      else if (short !== 'Transformer' && i > 0) out.unsupportedModules.push(type);
    });
  }
  if (has('config_sentence_transformers.json')) {
    const file = join(folder, 'config_sentence_transformers.json');
    const cfg = readJson(file);
    if (!isObj(cfg)) throw new UserError(`${file}: expected a JSON object`);
    const prompts = cfg['prompts'];
    if (prompts !== undefined && prompts !== null) {
      if (!isObj(prompts)) throw new UserError(`${file}: prompts: expected an object {name: text}`);
      for (const [k, v] of Object.entries(prompts)) {
        if (typeof v !== 'string') throw new UserError(`${file}: prompts.${k}: expected a string`);
        out.prompts[k] = v;
      }
    }
    const d = cfg['default_prompt_name'];
    if (d !== undefined && d !== null) {
      if (typeof d !== 'string') throw new UserError(`${file}: default_prompt_name: expected a string or null`);
      if (!Object.hasOwn(out.prompts, d)) throw new UserError(`${file}: default_prompt_name "${d}" is not one of the prompts`);
      out.defaultPromptName = d;
    }
  }
  if (has('sentence_bert_config.json')) {
    const file = join(folder, 'sentence_bert_config.json');
    const cfg = readJson(file);
    if (!isObj(cfg)) throw new UserError(`${file}: expected a JSON object`);
    const m = cfg['max_seq_length'];
    if (m !== undefined && m !== null) {
      if (typeof m !== 'number' || !Number.isInteger(m) || m < 1) throw new UserError(`${file}: max_seq_length: expected a positive integer`);
      out.maxSeqLength = m;
    }
  }
  return out;
}

/** Prompt names sentence-transformers' encode_query / encode_document look for, in order. */
export const ROLE_PROMPT_NAMES: Readonly<Record<'query' | 'document', readonly string[]>> = {
  query: ['query'],
  document: ['document', 'passage', 'corpus'],
};

/**
 * What sentence-transformers adds to a text of `role` when the caller names no prompt: the role's
 * prompt if the model defines one, else the default prompt, else nothing.
 */
export function rolePrompt(st: StConfig, role: 'query' | 'document'): { text: string; name: string } | undefined {
  for (const n of ROLE_PROMPT_NAMES[role]) if (Object.hasOwn(st.prompts, n)) return { text: st.prompts[n]!, name: n };
  if (st.defaultPromptName !== null) return { text: st.prompts[st.defaultPromptName]!, name: st.defaultPromptName };
  return undefined;
}
