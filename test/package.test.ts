/**
 * What `npm pack` puts in the published tarball: the compiled dist/ with its .d.ts files, bin/,
 * configs/, the bundled fixture, docs/ and the model README; never sources, tests, scripts, source maps,
 * generated models or results. (The pretest build made dist/; --ignore-scripts keeps the prepack
 * rebuild from touching dist/ while other test files use it.)
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../src/util/paths.js';

const root = packageRoot();
const pack = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString()) as [
  { files: { path: string }[]; entryCount: number },
];
const files = new Set(pack[0].files.map((f) => f.path));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown> & { scripts: Record<string, string> };

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('npm pack contents', () => {
  it('ships the compiled JavaScript and declarations of every source module', () => {
    const sources = walk(join(root, 'src')).map((p) => relative(join(root, 'src'), p).split('\\').join('/'));
    const ts = sources.filter((p) => p.endsWith('.ts'));
    expect(ts.length).toBeGreaterThan(50);
    const missing = ts.flatMap((p) => [`dist/${p.replace(/\.ts$/, '.js')}`, `dist/${p.replace(/\.ts$/, '.d.ts')}`]).filter((p) => !files.has(p));
    expect(missing).toEqual([]);
    for (const json of sources.filter((p) => p.endsWith('.json'))) expect(files.has(`dist/${json}`), json).toBe(true);
  });

  it('ships bin/, configs/, the bundled fixture, the READMEs and package.json', () => {
    for (const f of [
      'package.json',
      'README.md',
      'bin/skillret-eval.js',
      'configs/quickstart.yaml',
      'data/mini/README.md',
      'data/mini/skills/test.jsonl',
      'data/mini/queries/test.jsonl',
      'data/mini/qrels/test.jsonl',
      'models/README.md',
      'LICENSE',
    ]) {
      expect(files.has(f), f).toBe(true);
    }
    for (const c of readdirSync(join(root, 'configs'))) expect(files.has(`configs/${c}`), c).toBe(true);
  });

  it('ships every docs/ page the README links to (the reference moved out of the README)', () => {
    const links = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/\]\((docs\/[\w.-]+\.md)(?:#[\w-]*)?\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(5);
    for (const l of links) expect(files.has(l), l).toBe(true);
  });

  it('leaves out sources, tests, scripts, source maps, CI, generated models, results and caches', () => {
    const bad = [...files].filter(
      (p) =>
        /^(src|test|scripts|\.ci|results|\.cache|node_modules)\//.test(p) ||
        (p.startsWith('models/') && p !== 'models/README.md') ||
        p.endsWith('.map') ||
        (p.endsWith('.ts') && !p.endsWith('.d.ts')) ||
        /^(tsconfig.*\.json|vitest\.config\.ts|package-lock\.json)$/.test(p),
    );
    expect(bad).toEqual([]);
  });

  it('declares how it is built and what it needs', () => {
    expect(pkg.scripts.prepack).toMatch(/tsc -p tsconfig\.json/);
    expect(pkg.engines).toEqual({ node: '>=20' });
    expect(pkg.bin).toEqual({ 'skillret-eval': 'bin/skillret-eval.js' });
    expect(pkg.type).toBe('module');
    expect(pkg.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' });
    expect(files.has('dist/index.js') && files.has('dist/index.d.ts')).toBe(true);
  });
});
