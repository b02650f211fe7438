/**
 * The library example of the README: the first ```ts block of its "## Library API" section, and a
 * strict tsconfig to compile it with as a user's ESM project would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/paths.js';

export function readmeLibraryExample(): string {
  const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('Library API\n'));
  if (!section) throw new Error('README.md has no "## Library API" section');
  const m = /^```ts\n([\s\S]*?)^```$/m.exec(section);
  if (!m) throw new Error('README.md "## Library API" has no ```ts block');
  return m[1]!;
}

/** tsconfig.json of a user's project: strict, NodeNext ESM; types of Node from `typeRoots`. */
export function strictTsconfig(o: { typeRoots: string; outDir?: string }): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2022'],
      types: ['node'],
      typeRoots: [o.typeRoots],
      skipLibCheck: false,
      ...(o.outDir ? { outDir: o.outDir } : { noEmit: true }),
    },
    files: ['example.ts'],
  });
}
