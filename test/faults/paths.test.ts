/**
 * Paths given to `report`, `compare` and `leaderboard`, checked before any work: an `--out` that
 * would overwrite a results file (manifest.json, a run's per-query.jsonl), names a folder, a device
 * or a system path, and inputs that are not results (a device, a dataset folder, a file below a
 * file) each end in one line naming the flag or the path, exit 2, with nothing in the results
 * folder changed. A retriever's folder is read as the folder of its runs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const root = resolve(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'fault-paths-'));
const out = join(dir, 'out');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every file of `d` with its bytes. */
function snapshot(d: string): Map<string, string> {
  const m = new Map<string, string>();
  const walk = (p: string) => {
    for (const e of readdirSync(p, { withFileTypes: true })) {
      const f = join(p, e.name);
      if (e.isDirectory()) walk(f);
      else m.set(f, readFileSync(f, 'latin1'));
    }
  };
  walk(d);
  return m;
}

async function refused(args: string[], re: RegExp): Promise<void> {
  const before = snapshot(out);
  const r = await runCli(args);
  expect(r.code, r.err).toBe(2);
  expect(r.err.trim().split('\n')).toHaveLength(1);
  expect(r.err).toMatch(re);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(snapshot(out)).toEqual(before);
}

describe('paths checked before work', () => {
  beforeAll(async () => {
    const cfg = join(dir, 'exp.yaml');
    writeFileSync(
      cfg,
      [
        'name: exp',
        `dataset: { path: ${join(root, 'data/mini')}, split: test }`,
        'retrievers:',
        '  - { id: bm25, type: bm25, top_k: 20 }',
        '  - { id: bm25b, type: bm25, top_k: 20, k1: 0.9 }',
        'stats: { iterations: 200 }',
        `output: ${out}`,
        `cache_dir: ${join(dir, 'cache')}`,
      ].join('\n') + '\n',
    );
    const r = await runCli(['run', cfg, '--offline', '-q']);
    expect(r.code, r.err).toBe(0);
  }, 120_000);

  it('report --out / compare --out never overwrite a file of an input folder', async () => {
    await refused(['report', out, '--out', join(out, 'manifest.json'), '--iterations', '100'], /^skillret-eval: --out: .*manifest\.json is a file of the input folder .* write somewhere else$/m);
    await refused(['compare', out, '--out', join(out, 'bm25', 'none', 'per-query.jsonl'), '--iterations', '100'], /--out: .*per-query\.jsonl is a file of the input folder/);
    await refused(['compare', join(out, 'bm25', 'none', 'per-query.jsonl'), join(out, 'bm25b', 'none'), '--out', join(out, 'bm25', 'none', 'per-query.jsonl')], /--out: .* is one of the inputs/);
    // report.html of the folder is the command's own output.
    const r = await runCli(['report', out, '--iterations', '100']);
    expect(r.code, r.err).toBe(0);
  });

  it('--out naming a folder, a device or a system path', async () => {
    await refused(['report', out, '--out', join(dir), '--iterations', '100'], /--out: .* is a folder; name a file in it/);
    await refused(['compare', out, '--out', '/dev/null'], /--out: \/dev\/null is a system path/);
    await refused(['compare', out, '--out', '/proc/self/x'], /--out: \/proc\/self\/x is a system path/);
    await refused(['leaderboard', '--cache-dir', join(dir, 'cache'), '--out', join(dir, 'nope', 'x.md')], /--out: .*nope: no such folder/);
  });

  it('inputs that are not results: a device, a dataset folder, a path below a file', async () => {
    await refused(['compare', '/dev/null'], /\/dev\/null: not a results folder, run folder or per-query\.jsonl/);
    await refused(['compare', join(root, 'data/mini')], /data\/mini: no runs here/);
    await refused(['compare', join(out, 'manifest.json', 'x')], /manifest\.json\/x: no such results folder, run folder or file/);
    await refused(['report', join(out, 'summary.md', 'y'), '--out', join(dir, 'r.html')], /summary\.md\/y: no such results folder/);
  });

  it("a retriever's folder is the folder of its runs", async () => {
    const r = await runCli(['compare', join(out, 'bm25'), join(out, 'bm25b'), '--format', 'json', '--iterations', '100']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).runs.map((x: { label: string }) => x.label)).toEqual(['bm25/none', 'bm25b/none']);
    expect(statSync(out).isDirectory()).toBe(true);
  });
});
