/** Model references of a config: paths (./x, ../x, /x) resolve against the config folder; anything else is a preset or hub id. */
import { isAbsolute, resolve } from 'node:path';

export function resolveModelRef(ref: string, configDir: string): string {
  if (ref.startsWith('./') || ref.startsWith('../') || isAbsolute(ref)) return resolve(configDir, ref);
  return ref;
}
