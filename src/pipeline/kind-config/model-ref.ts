/** Model references of a config: paths (./x, ../x, /x) resolve against the config folder; anything else is a preset or hub id. */
import { isAbsolute, resolve } from 'node:path';
import type { ResourceContext } from '../../core/stages.js';
import { localModelNames, locateModel } from '../../models/resolve.js';
import { closeMatch } from './suggest.js';

export function resolveModelRef(ref: string, configDir: string): string {
  if (ref.startsWith('./') || ref.startsWith('../') || isAbsolute(ref)) return resolve(configDir, ref);
  return ref;
}

/**
 * Why `ref` (a reference as the loader resolves it: after resolveModelRef and the kind's preset
 * mapping) names no model this machine has or may fetch, or null: the loader's own reason (a folder
 * without config.json, a hub model not in the cache offline), or, for a name that is nothing at
 * all, the nearest of `known` (the kind's presets) and the model folders under the models folder.
 * Existence checks only: nothing is fetched.
 */
export function modelLocationProblem(ref: string, rc: ResourceContext, known: readonly string[]): string | null {
  const r = locateModel(ref, rc);
  if (!('failure' in r)) return null;
  if (r.failure !== 'unknown') return r.message;
  const name = ref.trim();
  if (isAbsolute(name)) return `model folder ${name} not found (a model folder holds config.json, tokenizer files and onnx/)`;
  const near = closeMatch(name, [...new Set([...known, ...localModelNames(rc.modelsDir)])]);
  return (
    `unknown model "${name}": not a preset, not a folder with config.json, not a model under ${rc.modelsDir}, and not a hub id "org/name[@revision]"` +
    (near !== undefined ? ` (did you mean "${near}"?)` : ' (presets: skillret-eval models list)')
  );
}
