/**
 * Pre-flight checks of `run`: every path the run will write is checked before any work (a run
 * that would fail at the end after an hour of encoding fails in the first second instead), each
 * failure one problem naming the config key (or the flag / environment variable), listed with the
 * config's other problems and those of its models and files (validate.ts):
 *  - `output`: not a file; if it exists, a results folder (holds manifest.json) or empty, since the
 *    finished run replaces it as a whole; its parent creatable and writable (the results are staged
 *    beside it), the folder itself writable (it is renamed);
 *  - the cache root (when the run uses a cache or downloads a dataset) and its subfolders;
 *  - the bundled-model folder, when a bundled model still has to be built there;
 *  - (each stage's own input files are its kind's `resources`, checked in validate.ts with the config).
 * Path creation is bounded (util/dirs.ts): a path under /proc or under a file fails at once.
 */
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ConfigParts, ConfigProblem } from './config.js';
import { rerankerKind, retrieverKind } from './registry.js';
import { fsErrorText, notADirProblem, writableDirProblem } from '../util/dirs.js';
import { modelsDir } from '../util/paths.js';
import { cacheSubfolders } from '../cache/kinds.js';
import { GLOVE_EMBEDDER_NAME, GLOVE_RERANKER_NAME, gloveEmbedderDir, gloveModelComplete, gloveRerankerDir } from '../models/glove/names.js';
import { USE_LITE_NAME, useLiteDir, useLiteModelComplete } from '../models/use-lite/names.js';

/** Cache subfolders the run writes: every store kind's folder and the downloads' (cache/kinds.ts). */
export const CACHE_SUBFOLDERS: readonly string[] = cacheSubfolders();

export interface PreflightOptions {
  cacheDir: string;
  useCache: boolean;
  /** false: only look, create nothing (the folders' nearest existing parents must be writable); default true: create the folders and write a probe file. */
  probe?: boolean;
  /** How the cache root was given, for messages: `--cache-dir`, `$SKILLRET_CACHE_DIR`, …; undefined: the config's `cache_dir`. */
  cacheDirSource?: string;
}

/** Why the results folder `output` cannot be written, or null (`probe: false`: nothing created, see writableDirProblem). */
export function outputProblem(output: string, o: { probe?: boolean } = {}): string | null {
  if (existsSync(output)) {
    let st;
    try {
      st = statSync(output);
    } catch (e) {
      return `${output}: ${fsErrorText(e)}`;
    }
    if (!st.isDirectory()) return `${output} is a file, not a folder`;
    const entries = readdirSync(output).filter((e) => !e.startsWith('.'));
    if (entries.length > 0 && !existsSync(join(output, 'manifest.json'))) {
      return `${output} exists and is not a results folder (no manifest.json); the run replaces the whole folder, so give an empty or new folder`;
    }
    try {
      accessSync(output, constants.W_OK | constants.X_OK);
    } catch (e) {
      return `cannot replace ${output}: ${fsErrorText(e)}`;
    }
  }
  return writableDirProblem(dirname(output), o);
}

/** Whether an entry runs the model `name` locally (its kind's `localModel`). */
function usesBundled(parts: ConfigParts, name: string): boolean {
  return (
    parts.retrievers.some(({ entry: r }) => retrieverKind(r.type).localModel?.(r) === name) || parts.rerankers.some(({ entry: r }) => rerankerKind(r.type).localModel?.(r) === name)
  );
}

/** Every path the run could not write: the output (at the config's `output` key), the cache root and its subfolders, the models folder. */
export function preflightProblems(parts: ConfigParts, o: PreflightOptions): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const how = { probe: o.probe !== false };
  const out = parts.output !== undefined ? outputProblem(parts.output, how) : null;
  if (out) problems.push({ path: ['output'], text: out });

  const needsCache = o.useCache || parts.dataset?.hub !== undefined;
  if (needsCache) {
    const root = writableDirProblem(o.cacheDir, how);
    const cacheProblem = (text: string): ConfigProblem => (o.cacheDirSource === undefined ? { path: ['cache_dir'], text } : { text: `${o.cacheDirSource}: ${text}` });
    if (root) problems.push(cacheProblem(root));
    else {
      for (const sub of CACHE_SUBFOLDERS) {
        const p = join(o.cacheDir, sub);
        const problem = notADirProblem(p) ?? (existsSync(p) ? writableDirProblem(p, how) : null);
        if (problem) problems.push(cacheProblem(`cache subfolder ${sub}: ${problem}`));
      }
    }
  }

  const models = modelsDir();
  const pending = [
    [GLOVE_EMBEDDER_NAME, gloveEmbedderDir(models)],
    [GLOVE_RERANKER_NAME, gloveRerankerDir(models)],
  ].filter(([name, dir]) => usesBundled(parts, name!) && !gloveModelComplete(dir!, name!));
  if (usesBundled(parts, USE_LITE_NAME) && !useLiteModelComplete(useLiteDir(models))) pending.push([USE_LITE_NAME, useLiteDir(models)]);
  if (pending.length > 0) {
    const problem = writableDirProblem(models, how);
    const source = process.env.SKILLRET_MODELS_DIR !== undefined ? '$SKILLRET_MODELS_DIR' : 'models folder';
    if (problem) problems.push({ text: `${source}: the bundled model ${pending[0]![0]} must be built there first: ${problem}` });
  }
  return problems;
}
