import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding skillret-eval's package.json (works from src/ under vitest and from dist/). */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src'))) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('skillret-eval: cannot find the package root');
    dir = up;
  }
}

/** Where generated local models live: $SKILLRET_MODELS_DIR or <package root>/models. */
export function modelsDir(): string {
  return resolve(process.env.SKILLRET_MODELS_DIR ?? join(packageRoot(), 'models'));
}

/** Default cache root: $SKILLRET_CACHE_DIR or <package root>/.cache. */
export function defaultCacheDir(): string {
  return resolve(process.env.SKILLRET_CACHE_DIR ?? join(packageRoot(), '.cache'));
}

/** true when the environment forbids network access (SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1). */
export function offlineFromEnv(): boolean {
  const on = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);
  return on(process.env.SKILLRET_OFFLINE) || on(process.env.HF_HUB_OFFLINE);
}
