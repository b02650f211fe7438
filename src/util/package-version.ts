/** The version of an installed package, read from its package.json (the package itself is not loaded). */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packageRoot } from './paths.js';

const known = new Map<string, string>();

/** The version of `name` (its package.json, found above its entry point). */
export function packageVersion(name: string): string {
  const seen = known.get(name);
  if (seen !== undefined) return seen;
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const p = join(dir, 'package.json');
    if (existsSync(p)) {
      const pkg = JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && typeof pkg.version === 'string') {
        known.set(name, pkg.version);
        return pkg.version;
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the version of ${name}`);
    dir = up;
  }
}

let own: { name: string; version: string } | undefined;

/** This tool's own name and version (its package.json, read once). */
export function ownPackage(): { name: string; version: string } {
  return (own ??= JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name: string; version: string });
}

let code: string | undefined;

/**
 * SHA-256 of this tool's compiled code: every `.js` file under its dist/ folder, by relative path
 * (about 1.7 MB, read once per process). Caches of what the code renders (report pages,
 * comparisons) are keyed by it, so an edit to the code, released or not, is never answered from a
 * cache that an older build wrote.
 */
export function codeFingerprint(): string {
  return (code ??= jsFingerprint(join(packageRoot(), 'dist')));
}

/** SHA-256 over the relative path, length and bytes of every `.js` file under `dir` (none: the hash of nothing). */
export function jsFingerprint(dir: string): string {
  const h = createHash('sha256');
  const walk = (rel: string): void => {
    const names = readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of names) {
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && e.name.endsWith('.js')) {
        const bytes = readFileSync(join(dir, r));
        h.update(`${JSON.stringify(r)} ${bytes.length}\n`);
        h.update(bytes);
      }
    }
  };
  if (existsSync(dir)) walk('');
  return h.digest('hex');
}
