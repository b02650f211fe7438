/**
 * What `npm run tarball` (scripts/pack.mjs) puts in the published tarball: the compiled dist/ with
 * its .d.ts files, bin/, configs/, the bundled fixture, docs/ and the model README; never sources, tests,
 * scripts, source maps, generated models or results; and a package.json without the checkout's
 * scripts (no lifecycle script npm would run, or warn about, for whoever installs it). Plain
 * `npm pack` in the checkout is refused (it would ship the checkout's package.json as it is). (The
 * pretest build made dist/; --no-build packs it as it is while other test files use it.)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../src/util/paths.js';

const root = packageRoot();
const out = mkdtempSync(join(tmpdir(), 'skillret-pack-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const pack = JSON.parse(
  execFileSync(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--no-build', '--json', '--pack-destination', out], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString(),
) as [{ files: { path: string }[]; entryCount: number; filename: string }];
const files = new Set(pack[0].files.map((f) => f.path));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown> & { scripts: Record<string, string> };

/** The files of a .tgz (ustar, as npm writes it): path → contents. */
function untar(file: string): Map<string, Buffer> {
  const data = gunzipSync(readFileSync(file));
  const entries = new Map<string, Buffer>();
  for (let at = 0; at + 512 <= data.length; ) {
    const header = data.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const text = (from: number, to: number) => header.subarray(from, to).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(text(124, 136).trim() || '0', 8);
    const prefix = text(345, 500);
    const name = prefix !== '' ? `${prefix}/${text(0, 100)}` : text(0, 100);
    if (header[156] === 48 || header[156] === 0) entries.set(name, data.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

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
    expect(pack[0].entryCount).toBe(files.size);
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

  it("the packed package.json carries no lifecycle script (nor any of the checkout's development scripts)", () => {
    const shipped = JSON.parse(untar(join(out, pack[0].filename)).get('package/package.json')!.toString('utf8')) as Record<string, unknown>;
    const scripts = (shipped.scripts ?? {}) as Record<string, string>;
    for (const s of ['prepare', 'prepack', 'postpack', 'pretest', 'install', 'postinstall', 'preinstall', 'prepublish', 'prepublishOnly']) expect(scripts[s], s).toBeUndefined();
    expect(shipped.scripts).toBeUndefined();
    // Everything else as in the checkout: the bin, the entry points, the dependencies, allowScripts.
    const { scripts: _scripts, ...rest } = pkg;
    expect(shipped).toEqual(rest);
  });

  it('plain npm pack in the checkout is refused, pointing at npm run tarball', () => {
    const r = spawnSync('npm', ['pack', '--dry-run'], { cwd: root, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('skillret-eval: pack with `npm run tarball`');
  });

  it('declares how it is built and what it needs', () => {
    expect(pkg.scripts.tarball).toBe('node scripts/pack.mjs');
    expect(readFileSync(join(root, 'scripts', 'pack.mjs'), 'utf8')).toMatch(/rmSync\(join\(root, 'dist'\)[\s\S]*'run', 'build'/);
    expect(pkg.scripts.build).toBe('tsc -p tsconfig.json');
    expect(pkg.scripts.pretest).toMatch(/^tsc -p tsconfig\.json && /); // npm ci && npm test (CI) builds what the tests run
    expect(pkg.allowScripts).toEqual({ 'hnswlib-node': true, 'onnxruntime-node': false, protobufjs: true });
    expect(pkg.engines).toEqual({ node: '>=20' });
    expect(pkg.bin).toEqual({ 'skillret-eval': 'bin/skillret-eval.js' });
    expect(pkg.type).toBe('module');
    expect(pkg.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' }, './package.json': './package.json' });
    expect(files.has('dist/index.js') && files.has('dist/index.d.ts')).toBe(true);
  });
});
