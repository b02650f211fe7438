/**
 * The packed tarball (scripts/pack.mjs, as `npm run tarball` makes it), installed into an empty project
 * offline, works from there: `npx skillret-eval init` (whose next command, `npx --no-install skillret-eval
 * run …`, never goes to the registry) + `npx skillret-eval run skillret-eval.yaml --offline` write the results in that project, build
 * the GloVe models in the user-level folder ($XDG_CACHE_HOME/skillret-eval here), and write nothing inside
 * node_modules. The results equal, byte for byte, a run of the same config from this checkout. The
 * README's library example compiles against the installed package (exports map, shipped .d.ts) and runs.
 *
 * The install is `npm ci --offline` against a lockfile derived from this checkout's (the same pinned
 * versions; `npm ci` of the checkout left every tarball in the npm cache), with ONNXRUNTIME_NODE_INSTALL=skip
 * as the README says for offline installs; hnswlib-node compiles its addon as it does for any user.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../src/api/init.js';
import { runCommand } from '../src/commands/run.js';
import { packageRoot } from '../src/util/paths.js';
import { readmeLibraryExample, strictTsconfig } from './helpers/readme-example.js';

const run = promisify(execFile);
const root = packageRoot();
const tmp = mkdtempSync(join(tmpdir(), 'skillret-install-'));
const project = join(tmp, 'project');
const xdg = join(tmp, 'xdg');
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The environment of a user's shell: no npm-script variables, no checkout bin folder, no skillret overrides. */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(npm_lifecycle_|npm_package_|SKILLRET_|VITEST|INIT_CWD$|XDG_CACHE_HOME$)/.test(k)) continue;
    env[k] = v;
  }
  env.PATH = (process.env.PATH ?? '').split(delimiter).filter((p) => !p.startsWith(root)).join(delimiter);
  env.XDG_CACHE_HOME = xdg;
  env.ONNXRUNTIME_NODE_INSTALL = 'skip';
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  env.npm_config_audit = 'false';
  env.npm_config_fund = 'false';
  env.npm_config_update_notifier = 'false';
  return env;
}

/** A project depending on the tarball only, locked to this checkout's versions of its dependencies. */
function writeProject(tarball: string): void {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    '': { name: 'project', dependencies: { 'skillret-eval': spec } },
    'node_modules/skillret-eval': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [k, e] of Object.entries(lock.packages)) if (k !== '' && !e.dev) packages[k] = e;
  mkdirSync(project, { recursive: true });
  const manifest = { name: 'project', private: true, dependencies: { 'skillret-eval': spec }, allowScripts: pkg.allowScripts };
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: 'project', lockfileVersion: 3, requires: true, packages }, null, 2) + '\n');
}

/** path -> size and mtime of every file under `dir`. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = statSync(p, { throwIfNoEntry: false });
        out.set(relative(dir, p), st ? `${st.size}:${st.mtimeMs}` : 'link');
      }
    }
  };
  walk(dir);
  return out;
}

async function npx(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run('npx', ['--no', 'skillret-eval', ...args], { cwd: project, env: userEnv(), maxBuffer: 64 << 20 });
}

describe('the packed tarball installed in an empty project', () => {
  let before: Map<string, string>;

  beforeAll(async () => {
    // As `npm run tarball` packs (the package.json without the checkout's scripts), from the dist/ the pretest build made.
    const packed = await run(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--no-build', '--json', '--pack-destination', tmp], { cwd: root, env: userEnv() });
    const tarball = join(tmp, (JSON.parse(packed.stdout) as [{ filename: string }])[0].filename);
    writeProject(tarball);
    await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: project, env: userEnv(), maxBuffer: 64 << 20 });
    before = snapshot(join(project, 'node_modules'));
  }, 600_000);

  it('init + run write results in the project, models and caches in the user-level folder, nothing in node_modules', async () => {
    const init = await npx(['init']);
    // The project depends on it: npx --no-install finds it and never goes to the registry.
    expect(init.stdout).toContain('Next: npx --no-install skillret-eval run skillret-eval.yaml\n');
    const res = await npx(['run', 'skillret-eval.yaml', '--offline', '--quiet']);
    expect(res.stdout).toContain(`Summary: ${join('results', 'starter', 'summary.md')}`);
    expect(res.stdout).toContain(`Report:  ${join('results', 'starter', 'report.html')}`);
    for (const r of ['bm25/none', 'dense/none']) expect(existsSync(join(project, 'results', 'starter', r, 'metrics.json'))).toBe(true);

    const home = join(xdg, 'skillret-eval');
    expect(existsSync(join(home, 'models', 'glove-6b-100d-static', 'skillret-model.json'))).toBe(true);
    expect(readdirSync(join(home, 'cache')).sort()).toEqual(expect.arrayContaining(['bm25', 'embeddings']));
    expect(snapshot(join(project, 'node_modules'))).toEqual(before);

    // The same starter run from this checkout gives byte-identical results files.
    const ref = join(tmp, 'ref');
    await runCommand({ config: initProject({ dir: ref }).config, quiet: true });
    for (const r of ['bm25/none', 'dense/none']) {
      for (const f of readdirSync(join(ref, 'results', 'starter', r))) {
        expect(readFileSync(join(project, 'results', 'starter', r, f)).equals(readFileSync(join(ref, 'results', 'starter', r, f))), `${r}/${f}`).toBe(true);
      }
    }
  }, 600_000);

  it("the README's library example compiles against the installed package and runs there", async () => {
    const ex = join(project, 'example');
    mkdirSync(ex);
    writeFileSync(join(ex, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(ex, 'tsconfig.json'), strictTsconfig({ typeRoots: join(root, 'node_modules', '@types'), outDir: '.' }));
    writeFileSync(join(ex, 'example.ts'), readmeLibraryExample());
    await run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', ex, '--pretty', 'false'], { env: userEnv() });
    const out = (await run('node', [join(ex, 'example.js')], { cwd: project, env: userEnv() })).stdout;
    const ndcg = (r: string) => (JSON.parse(readFileSync(join(project, 'results', 'starter', r, 'none', 'metrics.json'), 'utf8')) as { metrics: Record<string, number> }).metrics['NDCG@10'];
    expect(out).toContain(`bm25 none ${ndcg('bm25')}\ndense none ${ndcg('dense')}\np = `);
    expect(out).toMatch(/dense Recall@10 = 0\.\d+/);
    expect(snapshot(join(project, 'node_modules'))).toEqual(before);
  }, 120_000);

  it('works from any folder, as after npm install -g (the command on PATH, the package elsewhere)', async () => {
    const elsewhere = join(tmp, 'elsewhere');
    mkdirSync(elsewhere);
    const bin = join(project, 'node_modules', '.bin', 'skillret-eval');
    // Not on PATH, no local dependency here: the command printed is the path it was started by.
    expect((await run(bin, ['init'], { cwd: elsewhere, env: userEnv() })).stdout).toContain(`Next: ${bin} run skillret-eval.yaml\n`);
    const plan = (await run(bin, ['run', 'skillret-eval.yaml', '--dry-run'], { cwd: elsewhere, env: userEnv() })).stdout;
    expect(plan).toContain(`output: ${join(elsewhere, 'results', 'starter')}`);
    expect(plan).toContain(`cache: ${join(xdg, 'skillret-eval', 'cache')}`);
    expect(snapshot(join(project, 'node_modules'))).toEqual(before);
  }, 120_000);

  it('refuses to write results into the installed package', async () => {
    const err = await npx(['run', 'node_modules/skillret-eval/configs/bm25-only.yaml']).then(
      () => '',
      (e: { code: number; stderr: string }) => `${e.code} ${e.stderr}`,
    );
    expect(err).toMatch(/^2 skillret-eval: .*bm25-only\.yaml:\d+: output: .* is inside the installed skillret-eval package, which is never written/);
    expect(snapshot(join(project, 'node_modules'))).toEqual(before);
  }, 120_000);
});
