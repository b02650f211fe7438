/**
 * `run` checks every path before any work (output, cache root and subfolders) and answers in one
 * line with exit code 2; the output folder is locked for a run (holder named, stale locks of
 * killed runs taken over); run folders of an earlier config go with the swap and are reported;
 * what an interrupted swap left is repaired at the next start.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/commands/run.js';
import { acquireLock } from '../src/util/folder-lock.js';
import { makeDirs, writableDirProblem } from '../src/util/dirs.js';
import { lockPathFor, recoverFolder, StagedFolder } from '../src/util/staged-folder.js';
import { runCli } from './helpers/cli.js';

const REPO = resolve(__dirname, '..');
let root: string;
beforeAll(() => void (root = mkdtempSync(join(tmpdir(), 'skillret-safety-'))));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function config(output: string, extraRerankers: string[] = []): string {
  const file = join(root, `cfg-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    file,
    [
      'name: safety',
      `dataset: { path: ${JSON.stringify(join(REPO, 'data', 'mini'))}, split: test }`,
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 10 }',
      'rerankers:',
      '  - { id: none }',
      ...extraRerankers,
      `output: ${JSON.stringify(output)}`,
      '',
    ].join('\n'),
  );
  return file;
}

async function failing(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code).toBe(2);
  const lines = r.err.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(r.err).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('pre-flight path checks (before any work)', () => {
  it('an output that is a file, or under a file', async () => {
    const f = join(root, 'a-file');
    writeFileSync(f, 'x');
    const cfg = config(f);
    // The config's key, on its line (7), like every config problem.
    expect(await failing(['run', cfg, '-q', '--no-cache'])).toBe(`skillret-eval: ${cfg}:7: output: ${f} is a file, not a folder`);
    const under = config(join(f, 'sub'));
    expect(await failing(['run', under, '-q', '--no-cache'])).toContain(`${under}:7: output: `);
  });

  it.runIf(existsSync('/proc/self'))('an output inside /proc fails at once (no endless mkdir loop)', async () => {
    const cfg = config('/proc/skillret-nowhere/out');
    expect(await failing(['run', cfg, '-q', '--no-cache'])).toMatch(/output: cannot write in \/proc\/skillret-nowhere: /);
    expect(() => makeDirs('/proc/skillret-nowhere/a/b/c')).toThrow();
  });

  it('an existing folder that is not a results folder is not replaced', async () => {
    const d = join(root, 'notes');
    mkdirSync(d);
    writeFileSync(join(d, 'notes.txt'), 'mine');
    const cfg = config(d);
    expect(await failing(['run', cfg, '-q', '--no-cache'])).toContain('is not a results folder (no manifest.json)');
    expect(readFileSync(join(d, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('a cache root or a cache subfolder that is a file', async () => {
    const cfg = config(join(root, 'out-cache'));
    const f = join(root, 'cache-file');
    writeFileSync(f, 'x');
    expect(await failing(['run', cfg, '-q', '--cache-dir', f])).toBe(`skillret-eval: --cache-dir: ${f} is a file, not a folder`);
    const c = join(root, 'cache-sub');
    mkdirSync(c);
    writeFileSync(join(c, 'bm25'), 'x');
    expect(await failing(['run', cfg, '-q', '--cache-dir', c])).toBe(`skillret-eval: --cache-dir: cache subfolder bm25: ${join(c, 'bm25')} is a file, not a folder`);
    expect(existsSync(join(root, 'out-cache'))).toBe(false);
  });

  it('writableDirProblem creates a missing folder and probes it; with probe: false it only looks', () => {
    const d = join(root, 'deep', 'er', 'folder');
    const look = join(root, 'looked', 'at');
    expect(writableDirProblem(look, { probe: false })).toBeNull();
    expect(existsSync(join(root, 'looked'))).toBe(false);
    writeFileSync(join(root, 'plain-file'), 'x');
    expect(writableDirProblem(join(root, 'plain-file', 'sub'), { probe: false })).toMatch(/a path component is a file, not a folder/);
    expect(writableDirProblem(d)).toBeNull();
    expect(existsSync(d)).toBe(true);
  });
});

describe('the output lock', () => {
  it('a live holder is refused, named; a killed holder is stale and taken over', async () => {
    const out = join(root, 'locked');
    const cfg = config(out);
    const lock = lockPathFor(out);
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname(), started_at: '2026-01-01T00:00:00.000Z', what: 'skillret-eval run other.yaml' }));
    const m = await failing(['run', cfg, '-q', '--no-cache']);
    expect(m).toContain(`is being written by another run, pid ${process.ppid} on ${hostname()} since 2026-01-01T00:00:00.000Z (skillret-eval run other.yaml)`);
    expect(m).toContain(`remove ${lock}`);
    // A process that has exited: its lock is stale.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(lock, JSON.stringify({ pid: Number(gone.stdout), host: hostname(), started_at: '2026-01-01T00:00:00.000Z', what: 'x' }));
    const logs: string[] = [];
    await runCommand({ config: cfg, cache: false, log: (l) => void logs.push(l) });
    expect(logs.some((l) => l.includes(`took over the stale lock of a killed run (pid ${gone.stdout}`))).toBe(true);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
  });

  it('one process cannot take its own lock twice; release frees it', () => {
    const p = join(root, 'own.lock');
    const a = acquireLock(p, 'a');
    expect(a.ok).toBe(true);
    const b = acquireLock(p, 'b');
    expect(b).toMatchObject({ ok: false, reason: 'held by this process' });
    if (a.ok) a.release();
    const c = acquireLock(p, 'c');
    expect(c.ok).toBe(true);
    if (c.ok) c.release();
  });
});

describe('the swap', () => {
  it('run folders of an earlier config go with the old results and are reported', async () => {
    const out = join(root, 'stale');
    await runCommand({ config: config(out), cache: false, quiet: true });
    mkdirSync(join(out, 'old', 'reranker'), { recursive: true });
    writeFileSync(join(out, 'old', 'reranker', 'metrics.json'), '{}');
    const logs: string[] = [];
    await runCommand({ config: config(out), cache: false, log: (l) => void logs.push(l) });
    expect(existsSync(join(out, 'old'))).toBe(false);
    expect(logs).toContain('output: run folders of an earlier config are gone with the old results (not in this config): old/reranker');
  });

  it("a rerun keeps what the user put in the results folder, drops the earlier run's explain outputs, and says so", async () => {
    const out = join(root, 'user-files');
    const cfg = config(out);
    await runCommand({ config: cfg, cache: false, quiet: true });
    writeFileSync(join(out, 'notes.md'), 'my notes');
    writeFileSync(join(out, 'bm25', 'none', 'my-analysis.csv'), 'a,b\n');
    writeFileSync(join(out, 'bm25', 'none', 'explain.jsonl'), '{}\n');
    const logs: string[] = [];
    await runCommand({ config: cfg, cache: false, log: (l) => void logs.push(l) });
    expect(readFileSync(join(out, 'notes.md'), 'utf8')).toBe('my notes');
    expect(readFileSync(join(out, 'bm25', 'none', 'my-analysis.csv'), 'utf8')).toBe('a,b\n');
    expect(existsSync(join(out, 'bm25', 'none', 'explain.jsonl'))).toBe(false);
    expect(logs).toContain('output: kept files you put in the results folder: bm25/none/my-analysis.csv, notes.md');
    expect(logs).toContain('output: removed outputs of the earlier results (they described them): bm25/none/explain.jsonl');
  });

  it('explain takes the results folder lock: refused in one line while a run holds it', async () => {
    const out = join(root, 'explain-locked');
    await runCommand({ config: config(out), cache: false, quiet: true });
    const lock = acquireLock(lockPathFor(out), 'a test holding the lock');
    expect(lock.ok).toBe(true);
    try {
      const line = await failing(['explain', out, '--run', 'bm25/none', '--no-cache', '-q', '--max-queries', '2']);
      expect(line).toMatch(/explain-locked: being written by pid \d+ .*a test holding the lock/);
    } finally {
      if (lock.ok) lock.release();
    }
    const r = await runCli(['explain', out, '--run', 'bm25/none', '--no-cache', '-q', '--max-queries', '2']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(out, 'bm25', 'none', 'explain.jsonl'))).toBe(true);
  });

  it('an output given through a symbolic link is written at its target; the link stays', async () => {
    const target = join(root, 'link-target');
    await runCommand({ config: config(target), cache: false, quiet: true });
    const before = readFileSync(join(target, 'bm25', 'none', 'metrics.json'), 'utf8');
    const link = join(root, 'link');
    symlinkSync(target, link);
    await runCommand({ config: config(link), cache: false, quiet: true });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(target, 'bm25', 'none', 'metrics.json'), 'utf8')).toBe(before);
    expect(JSON.parse(readFileSync(join(target, 'manifest.json'), 'utf8')).finished_at).toBeDefined();
    expect(readdirSync(root).filter((e) => e.startsWith('.link.'))).toEqual([]);
    const dangling = join(root, 'dangling');
    symlinkSync(join(root, 'nowhere'), dangling);
    expect(await failing(['run', config(dangling), '-q', '--no-cache'])).toMatch(/output: .*dangling is a symbolic link to nothing/);
  });

  it('a cache root inside the output, or an output inside the cache root, is refused before work', async () => {
    const out = join(root, 'overlap');
    expect(await failing(['run', config(out), '-q', '--cache-dir', join(out, 'cache')])).toMatch(/output: .*overlap holds the cache root .*overlap\/cache \(--cache-dir\): every run replaces its output folder/);
    expect(await failing(['run', config(join(root, 'c', 'out')), '-q', '--cache-dir', join(root, 'c')])).toMatch(/output: .*c\/out is inside the cache root .* put them apart/);
    expect(existsSync(out)).toBe(false);
  });

  it('recoverFolder restores the previous folder of a swap killed half-way and drops staging folders', () => {
    const target = join(root, 'swapped');
    mkdirSync(join(root, '.swapped.previous-1-aa'));
    writeFileSync(join(root, '.swapped.previous-1-aa', 'manifest.json'), 'old');
    mkdirSync(join(root, '.swapped.staging-1-bb'));
    const done = recoverFolder(target);
    expect(done).toHaveLength(2);
    expect(readFileSync(join(target, 'manifest.json'), 'utf8')).toBe('old');
    expect(existsSync(join(root, '.swapped.staging-1-bb'))).toBe(false);
    const s = new StagedFolder(target);
    writeFileSync(join(s.staging, 'manifest.json'), 'new');
    expect(s.commit()).toEqual({ replaced: true, removedRuns: [], kept: [], dropped: [] });
    expect(readFileSync(join(target, 'manifest.json'), 'utf8')).toBe('new');
    const t = new StagedFolder(target);
    t.abort();
    expect(existsSync(t.staging)).toBe(false);
  });
});
