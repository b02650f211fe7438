/**
 * Model references -> where the files are (local folder or Hugging Face hub id), and the
 * transformers.js `env` settings that go with it. Shared by dense embedders and rerankers.
 *
 * A reference is, in this order:
 *   1. a folder (absolute, or relative to the working directory) holding `config.json`;
 *   2. a name under the models folder (`<modelsDir>/<ref>/config.json`);
 *   3. a hub id `org/name` or `org/name@revision`.
 *
 * transformers.js 4.3.2 file cache layout (its FileCache, rooted at `env.cacheDir`):
 *   revision `main` (the default): `<cacheDir>/hf/<org>/<name>/<file>`
 *   any other revision:           `<cacheDir>/hf/<org>/<name>/<revision>/<file>`
 * and files are fetched from `env.remoteHost + env.remotePathTemplate` =
 * `<host>/<org>/<name>/resolve/<revision>/<file>` (revision URI-encoded).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { UserError } from '../core/errors.js';
import { hubUrlProblem, urlCredentialProblem } from '../util/secrets.js';
import { offlineFromEnv } from '../util/paths.js';
import { closest, distance } from 'fastest-levenshtein';
import { EMBEDDER_PRESETS } from './embedder-presets.js';
import { RERANKER_PRESETS } from './reranker-presets.js';

export interface ModelLocationOptions {
  /** No network access (the --offline flag); SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1 also force it. */
  offline: boolean;
  /** skillret-eval cache root; hub downloads go to `<cacheDir>/hf`. */
  cacheDir: string;
  /** Folder of generated/bundled local models. */
  modelsDir: string;
  /**
   * Hub endpoint (default: $HF_ENDPOINT or https://huggingface.co). Tests point it at a local
   * HTTP server that serves `/<org>/<name>/resolve/<revision>/<file>`.
   */
  endpoint?: string;
}

export interface ResolvedModel {
  source: 'local' | 'hub';
  /** Absolute folder (local) or hub id `org/name` (hub, without the revision). */
  location: string;
  /** Hub revision when one was given (`org/name@rev`); undefined = `main`. */
  revision?: string;
  /** The folder holding (or that will hold) the model files: the local folder or the hub cache folder. */
  folder: string;
  /** The reference as the user wrote it. */
  ref: string;
}

/** A hub model reference: `org/name` or `org/name@revision`. */
export const HUB_ID = /^([A-Za-z0-9][\w.-]*)\/([\w.-]+)(?:@([\w./-]+))?$/;

export const DEFAULT_ENDPOINT = 'https://huggingface.co';

/** Where transformers.js keeps downloaded hub files of `id` at `revision` under skillret's cache root. */
export function hubCacheFolder(cacheDir: string, id: string, revision?: string): string {
  const base = join(resolvePath(cacheDir), 'hf', ...id.split('/'));
  return revision === undefined || revision === 'main' ? base : join(base, ...revision.split('/'));
}

/** The endpoint in effect: explicit option, else $HF_ENDPOINT, else the public hub. */
export function hubEndpoint(explicit?: string): string {
  const e = explicit ?? process.env.HF_ENDPOINT ?? DEFAULT_ENDPOINT;
  const problem = urlCredentialProblem(e);
  if (problem) throw new UserError(`${explicit !== undefined ? 'endpoint' : 'HF_ENDPOINT'}: ${problem}; give the bare hub URL and put a token in HF_TOKEN`);
  const notHttp = hubUrlProblem(e);
  if (notHttp) throw new UserError(`${explicit !== undefined ? 'endpoint' : 'HF_ENDPOINT'}: ${notHttp} (nothing downloaded, not retried)`);
  return e.endsWith('/') ? e : e + '/';
}

/**
 * Points transformers.js at skillret's folders: cache under `<cacheDir>/hf`, local models
 * under modelsDir, remote downloads allowed only when online, from the given endpoint.
 * transformers.js's `env` is process-global; every model load calls this first.
 */
export function isOffline(o: Pick<ModelLocationOptions, 'offline'>): boolean {
  return o.offline || offlineFromEnv();
}

/** The settings of transformers.js's `env` that loading a model here depends on. */
export interface TransformersEnv {
  cacheDir: string | null;
  useFSCache: boolean;
  useBrowserCache: boolean;
  allowLocalModels: boolean;
  localModelPath: string;
  allowRemoteModels: boolean;
  remoteHost: string;
  remotePathTemplate: string;
}

/** Points transformers.js (its `env`, passed by the loader that imports it) at the project's folders and hub. */
export function configureTransformersEnv(o: ModelLocationOptions, env: TransformersEnv): void {
  env.cacheDir = join(resolvePath(o.cacheDir), 'hf');
  env.useFSCache = true;
  env.useBrowserCache = false;
  env.allowLocalModels = true;
  env.localModelPath = resolvePath(o.modelsDir);
  env.allowRemoteModels = !isOffline(o);
  env.remoteHost = hubEndpoint(o.endpoint);
  env.remotePathTemplate = '{model}/resolve/{revision}/';
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Why a reference names no model: the kind of failure and the one-line message `resolveModel` throws. */
export interface ModelRefFailure {
  failure: 'empty' | 'offline' | 'no-config' | 'unknown';
  message: string;
}

/**
 * Where a model reference points, without loading or fetching anything (existence checks only):
 * the model, or why there is none. `resolveModel` throws the failure's message; the plan's checks
 * (src/pipeline/resources.ts) list it with the config key.
 */
export function locateModel(ref: string, o: ModelLocationOptions): ResolvedModel | ModelRefFailure {
  const trimmed = ref.trim();
  if (trimmed === '') return { failure: 'empty', message: 'model: empty model reference' };

  const asPath = resolvePath(trimmed);
  if (existsSync(join(asPath, 'config.json'))) {
    return { source: 'local', location: asPath, folder: asPath, ref };
  }
  const underModels = resolvePath(o.modelsDir, trimmed);
  if (existsSync(join(underModels, 'config.json'))) {
    return { source: 'local', location: underModels, folder: underModels, ref };
  }

  const m = HUB_ID.exec(trimmed);
  if (m && !trimmed.includes('..') && !trimmed.includes('--')) {
    const id = `${m[1]}/${m[2]}`;
    const revision = m[3];
    const folder = hubCacheFolder(o.cacheDir, id, revision);
    const resolved: ResolvedModel = { source: 'hub', location: id, folder, ref };
    if (revision !== undefined) resolved.revision = revision;
    if (isOffline(o) && !existsSync(join(folder, 'config.json'))) {
      return {
        failure: 'offline',
        message:
          `model "${trimmed}": offline and not in the cache; download it elsewhere and put its files ` +
          `(config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx) in ${folder}`,
      };
    }
    return resolved;
  }

  if (isDir(asPath)) return { failure: 'no-config', message: `model "${trimmed}": folder ${asPath} has no config.json` };
  const names = [...EMBEDDER_PRESETS.map((p) => p.name), ...RERANKER_PRESETS.map((p) => p.name)];
  const near = closest(trimmed, names);
  const hint = distance(trimmed.toLowerCase(), near.toLowerCase()) <= 3 ? ` (did you mean the preset "${near}"?)` : ' (presets: skillret-eval models list)';
  return {
    failure: 'unknown',
    message:
      `model "${trimmed}": not a preset, not a folder with config.json, not a model under ${resolvePath(o.modelsDir)}, ` +
      `and not a hub id "org/name[@revision]"${hint}`,
  };
}

/**
 * Resolves a model reference (the loaders configure transformers.js: `configureTransformersEnv`).
 * Offline with a hub model whose `config.json` is not in the cache: UserError naming the
 * model and the folder to fill (the remaining files are checked by the loader, see
 * `assertHubFilesPresent`).
 */
export function resolveModel(ref: string, o: ModelLocationOptions): ResolvedModel {
  const r = locateModel(ref, o);
  if ('failure' in r) throw new UserError(r.message);
  return r;
}

/** The model folders under the models folder (those holding config.json), by name: the local names a `model:` may use. */
export function localModelNames(modelsDir: string): string[] {
  try {
    return readdirSync(modelsDir, { withFileTypes: true })
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && existsSync(join(modelsDir, e.name, 'config.json')))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** `org/name@rev` or `org/name` (for messages and result files). */
export function describeModel(m: ResolvedModel): string {
  if (m.source === 'local') return m.location;
  return m.revision !== undefined ? `${m.location}@${m.revision}` : m.location;
}

/**
 * For an offline hub model: every file in `files` (paths relative to the model root) must be
 * in the cache folder, else UserError naming the model, the missing files and the folder.
 * For a local model: every file must exist in the folder.
 */
export function assertHubFilesPresent(m: ResolvedModel, files: string[], offline: boolean): void {
  if (m.source === 'hub' && !offline && !offlineFromEnv()) return;
  const missing = files.filter((f) => !existsSync(join(m.folder, f)));
  if (missing.length === 0) return;
  if (m.source === 'hub') {
    throw new UserError(
      `model "${describeModel(m)}": offline and ${missing.join(', ')} not in the cache; put the files in ${m.folder}`,
    );
  }
  throw new UserError(`model "${m.ref}": ${missing.join(', ')} missing in ${m.folder}`);
}
