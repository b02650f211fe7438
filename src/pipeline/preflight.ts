/**
 * Pre-flight checks of `run`: every path the run will write is checked before any work (a run
 * that would fail at the end after an hour of encoding fails in the first second instead), each
 * failure one line naming the config file and key (or the flag / environment variable):
 *  - `output`: not a file; if it exists, a results folder (holds manifest.json) or empty, since the
 *    finished run replaces it as a whole; its parent creatable and writable (the results are staged
 *    beside it), the folder itself writable (it is renamed);
 *  - the cache root (when the run uses a cache or downloads a dataset) and its subfolders;
 *  - the bundled-model folder, when a bundled model still has to be built there.
 * Path creation is bounded (util/dirs.ts): a path under /proc or under a file fails at once.
 */
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UserError } from '../core/errors.js';
import type { Config } from './config.js';
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
  /** How the cache root was given, for messages: `--cache-dir`, `<config>: cache_dir`, … */
  cacheDirSource: string;
}

/** Why the results folder `output` cannot be written, or null. */
export function outputProblem(output: string): string | null {
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
  return writableDirProblem(dirname(output));
}

function usesBundled(config: Config, name: string): boolean {
  return config.retrievers.some((r) => r.type === 'dense' && r.model === name) || config.rerankers.some((r) => 'model' in r && r.model === name);
}

/** Throws a one-line UserError for the first path the run could not write. */
export function preflight(config: Config, o: PreflightOptions): void {
  const out = outputProblem(config.output);
  if (out) throw new UserError(`${config.file}: output: ${out}`);

  const needsCache = o.useCache || config.dataset.hub !== undefined;
  if (needsCache) {
    const root = writableDirProblem(o.cacheDir);
    if (root) throw new UserError(`${o.cacheDirSource}: ${root}`);
    for (const sub of CACHE_SUBFOLDERS) {
      const p = join(o.cacheDir, sub);
      const problem = notADirProblem(p) ?? (existsSync(p) ? writableDirProblem(p) : null);
      if (problem) throw new UserError(`${o.cacheDirSource}: cache subfolder ${sub}: ${problem}`);
    }
  }

  const models = modelsDir();
  const pending = [
    [GLOVE_EMBEDDER_NAME, gloveEmbedderDir(models)],
    [GLOVE_RERANKER_NAME, gloveRerankerDir(models)],
  ].filter(([name, dir]) => usesBundled(config, name!) && !gloveModelComplete(dir!, name!));
  if (usesBundled(config, USE_LITE_NAME) && !useLiteModelComplete(useLiteDir(models))) pending.push([USE_LITE_NAME, useLiteDir(models)]);
  if (pending.length > 0) {
    const problem = writableDirProblem(models);
    const source = process.env.SKILLRET_MODELS_DIR !== undefined ? '$SKILLRET_MODELS_DIR' : 'models folder';
    if (problem) throw new UserError(`${source}: the bundled model ${pending[0]![0]} must be built there first: ${problem}`);
  }
}
