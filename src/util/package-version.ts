/** The version of an installed package, read from its package.json (the package itself is not loaded). */
import { existsSync, readFileSync } from 'node:fs';
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
