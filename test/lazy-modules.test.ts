/**
 * What a run does not need, it does not load: transformers.js and onnxruntime-node (hundreds of
 * milliseconds of start-up) only when a model has to run. A BM25 run and a warm dense run (its
 * stage output cached) load neither; a cold dense run does (the check itself can fail). Each run is
 * a fresh process of the compiled CLI (dist/), which then reports whether onnxruntime-node (the
 * CommonJS package under transformers.js and the exact-search GEMM) is among its loaded modules.
 * `score` of two TREC files loads neither the config schema nor the gate statistics (zod and the
 * pipeline's config graph) unless --expect or --junit asks for a gate.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = mkdtempSync(join(tmpdir(), 'skillret-lazy-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repo = resolve(import.meta.dirname, '..');

function config(name: string, retriever: string): string {
  const f = join(root, `${name}.yaml`);
  writeFileSync(
    f,
    [`name: ${name}`, `dataset: { path: ${JSON.stringify(join(repo, 'data', 'mini'))} }`, `retrievers: [${retriever}]`, `output: ${JSON.stringify(join(root, `out-${name}`))}`, `cache_dir: ${JSON.stringify(join(root, 'cache'))}`].join('\n') + '\n',
  );
  return f;
}

/** Runs `skillret-eval run <config> -q --offline` in a fresh process; whether it loaded onnxruntime-node. */
function loadsOnnxRuntime(cfg: string): boolean {
  const script = `
    import { createRequire } from 'node:module';
    const { main } = await import(${JSON.stringify(join(repo, 'dist', 'cli.js'))});
    const code = await main(['run', ${JSON.stringify(cfg)}, '-q', '--offline'], () => {});
    if (code !== 0) throw new Error('run failed: ' + code);
    const cache = createRequire(import.meta.url).cache;
    process.stdout.write(Object.keys(cache).some((k) => k.includes('onnxruntime-node')) ? 'loaded' : 'not loaded');
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
  expect(out).toMatch(/^(loaded|not loaded)$/);
  return out === 'loaded';
}

describe('modules loaded only when needed', () => {
  it('a BM25 run loads no model runtime', () => {
    expect(loadsOnnxRuntime(config('bm25', '{ id: bm25, type: bm25 }'))).toBe(false);
  });

  it('a cold dense run loads it, the warm rerun (stage output cached) does not', () => {
    const cfg = config('glove', '{ id: glove, type: dense, model: glove-6b-100d-static }');
    expect(loadsOnnxRuntime(cfg)).toBe(true);
    expect(loadsOnnxRuntime(cfg)).toBe(false);
  });
});

/**
 * Runs `skillret-eval score` (bin/, as a user does) on a trec_eval fixture in a fresh process under
 * a module hook that logs every URL loaded: the file: URLs loaded, and what it printed.
 */
function scoreLoads(extra: string[]): { loaded: string[]; out: string } {
  const fixtures = join(repo, 'test', 'fixtures', 'trec_eval');
  const log = join(root, `loaded-${extra.length}.txt`);
  const hooks = join(root, 'hooks-log.mjs');
  const register = join(root, 'register-log.mjs');
  writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) {\n  const r = await next(url, context);\n  appendFileSync(process.env.SKILLRET_TEST_LOAD_LOG, url + '\\n');\n  return r;\n}\n");
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(log, '');
  const args = ['--import', pathToFileURL(register).href, join(repo, 'bin', 'skillret-eval.js'), 'score', '--qrels', join(fixtures, 'nonpositive.qrels'), '--run', join(fixtures, 'nonpositive.run'), ...extra];
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, SKILLRET_TEST_LOAD_LOG: log } });
  return { loaded: readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:')), out };
}

describe('score loads what scoring two files needs', () => {
  it('no config schema (zod) and no gate statistics without --expect / --junit; both with --junit', () => {
    const plain = scoreLoads([]);
    expect(plain.out).toMatch(/^measure/);
    expect(plain.loaded.some((u) => u.includes('/dist/commands/score.js'))).toBe(true);
    for (const heavy of ['/node_modules/zod/', '/dist/pipeline/config.js', '/dist/analysis/gates.js', '/dist/api/score-gates.js']) {
      expect(plain.loaded.filter((u) => u.includes(heavy))).toEqual([]);
    }
    const gated = scoreLoads(['--junit', join(root, 'score-junit.xml')]);
    expect(gated.out).toBe(plain.out);
    expect(gated.loaded.some((u) => u.includes('/dist/api/score-gates.js'))).toBe(true);
    expect(gated.loaded.some((u) => u.includes('/node_modules/zod/'))).toBe(true);
  });
});
