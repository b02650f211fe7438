/**
 * What a run does not need, it does not load: transformers.js and onnxruntime-node (hundreds of
 * milliseconds of start-up) only when a model has to run. A BM25 run and a warm dense run (its
 * stage output cached) load neither; a cold dense run does (the check itself can fail). Each run is
 * a fresh process of the compiled CLI (dist/), which then reports whether onnxruntime-node (the
 * CommonJS package under transformers.js and the exact-search GEMM) is among its loaded modules.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
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
