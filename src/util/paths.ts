/**
 * Where skillret-eval finds its own files and where it writes models and caches by default.
 *
 * Two situations:
 *  - a **checkout** (the package root holds `src/`): models under `<checkout>/models`, caches under
 *    `<checkout>/.cache`, exactly as in development;
 *  - an **installed package** (`npm install`, `npm install -g`, `npx`): the package folder may be
 *    read-only and is never written; models and caches go to a user-level folder instead.
 *
 * The user-level folder is `$SKILLRET_HOME`, else `$XDG_CACHE_HOME/skillret-eval`, else
 * `~/.cache/skillret-eval`. An explicit `$SKILLRET_HOME` wins in a checkout too. `$SKILLRET_MODELS_DIR` and
 * `$SKILLRET_CACHE_DIR` override the two folders one by one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The folder holding skillret-eval's package.json (works from src/ under vitest, from dist/ and when installed). */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && isOurPackageJson(pkg)) return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('skillret-eval: cannot find the package root');
    dir = up;
  }
}

function isOurPackageJson(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown }).name === 'skillret-eval';
  } catch {
    return false;
  }
}

/** true when running from a source checkout (the package root holds the TypeScript sources), false when installed. */
export function isCheckout(): boolean {
  return existsSync(join(packageRoot(), 'src', 'cli.ts'));
}

/** A file shipped with the package (configs/, data/mini/, …), by its path relative to the package root. */
export function packageFile(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}

/** The user-level folder: $SKILLRET_HOME, else $XDG_CACHE_HOME/skillret-eval, else ~/.cache/skillret-eval. */
export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKILLRET_HOME) return resolve(env.SKILLRET_HOME);
  const xdg = env.XDG_CACHE_HOME;
  // The XDG spec ignores a relative XDG_CACHE_HOME.
  if (xdg && isAbsolute(xdg)) return join(xdg, 'skillret-eval');
  return join(homedir(), '.cache', 'skillret-eval');
}

export interface PathDefaults {
  /** Generated local models (the GloVe conversions) and local model references. */
  models: string;
  /** Cache root (indexes, embeddings, reranker scores, downloads). */
  cache: string;
}

/**
 * The default folders for an environment: `$SKILLRET_MODELS_DIR` / `$SKILLRET_CACHE_DIR` first, else
 * under `$SKILLRET_HOME`, else `<checkout>/models` and `<checkout>/.cache` in a checkout (`checkoutRoot`),
 * else under the user-level folder. Pure (for tests); modelsDir() and defaultCacheDir() apply it.
 */
export function pathDefaults(env: NodeJS.ProcessEnv, checkoutRoot: string | null): PathDefaults {
  const inCheckout = !env.SKILLRET_HOME && checkoutRoot !== null;
  const home = inCheckout ? null : userHome(env);
  return {
    models: env.SKILLRET_MODELS_DIR ? resolve(env.SKILLRET_MODELS_DIR) : home === null ? join(checkoutRoot!, 'models') : join(home, 'models'),
    cache: env.SKILLRET_CACHE_DIR ? resolve(env.SKILLRET_CACHE_DIR) : home === null ? join(checkoutRoot!, '.cache') : join(home, 'cache'),
  };
}

function defaults(): PathDefaults {
  return pathDefaults(process.env, isCheckout() ? packageRoot() : null);
}

/** Where generated local models live: $SKILLRET_MODELS_DIR, else $SKILLRET_HOME/models, else <checkout>/models, else <user-level folder>/models. */
export function modelsDir(): string {
  return defaults().models;
}

/** Default cache root: $SKILLRET_CACHE_DIR, else $SKILLRET_HOME/cache, else <checkout>/.cache, else <user-level folder>/cache. */
export function defaultCacheDir(): string {
  return defaults().cache;
}

/** true when `path` lies inside an installed (not checked-out) copy of this package, which must never be written. */
export function insideInstalledPackage(path: string): boolean {
  if (isCheckout()) return false;
  const rel = relative(packageRoot(), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** true when the environment forbids network access (SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1). */
export function offlineFromEnv(): boolean {
  const on = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v);
  return on(process.env.SKILLRET_OFFLINE) || on(process.env.HF_HUB_OFFLINE);
}

/**
 * A path as a shell would expand its home: a leading `~` or `~/`, `$HOME` or `${HOME}` (alone or
 * before a `/`) becomes the home folder (`$HOME`, else the OS's). Used for every path-valued config
 * key (`output`, `cache_dir`, `dataset.path`, …) and path flag (`--out`, `--cache-dir`, …), since a
 * quoted value or one in a YAML file never meets a shell. Anything else is left as it is: `~user`,
 * other variables, a `~` or `$HOME` inside the path.
 */
export function expandHome(p: string, env: NodeJS.ProcessEnv = process.env): string {
  const m = /^(~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(p);
  if (!m) return p;
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  return home + p.slice(m[0].length);
}
