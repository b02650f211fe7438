/**
 * Helpers of `npm run bench` (scripts/bench.mjs): timing whole processes (wall, CPU, peak RSS via
 * GNU time when present), medians with min/max, and the synthetic full-size dataset folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const GNU_TIME = '/usr/bin/time';

/**
 * Runs `cmd args` to completion; returns wall seconds, CPU seconds (user + system) and peak RSS
 * in MiB (null without GNU time), and the exit status. Throws with the command's stderr when it
 * fails, unless `opts.allowFailure` (a script that reports a failed value check on stdout and
 * exits 1).
 */
export function timeProcess(cmd, args, opts = {}) {
  const out = join(tmpdir(), `bench-time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const useTime = existsSync(GNU_TIME);
  const t0 = process.hrtime.bigint();
  const r = useTime
    ? spawnSync(GNU_TIME, ['-f', '%e %U %S %M', '-o', out, cmd, ...args], { cwd: opts.cwd ?? root, env: opts.env ?? process.env, encoding: 'utf8', maxBuffer: 1 << 28 })
    : spawnSync(cmd, args, { cwd: opts.cwd ?? root, env: opts.env ?? process.env, encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0 && !(opts.allowFailure && r.status !== null)) {
    rmSync(out, { force: true });
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${(r.stderr || r.stdout || '').slice(-2000)}`);
  }
  let cpu = null;
  let rss = null;
  if (useTime && existsSync(out)) {
    const f = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ');
    cpu = Number(f[1]) + Number(f[2]);
    rss = Number(f[3]) / 1024;
    rmSync(out, { force: true });
  }
  return { wall, cpu, rss, status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** { median, min, max, n } of numbers (nulls dropped); null when none. */
export function summary(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  return { median: m, min: v[0], max: v[v.length - 1], n: v.length };
}

/** "1.23 s (1.10–1.40, n=5)" */
export function fmt(s, unit = 's', digits = 2) {
  if (!s) return 'n/a';
  const f = (x) => x.toFixed(digits);
  return s.n > 1 ? `${f(s.median)} ${unit} (${f(s.min)}–${f(s.max)}, n=${s.n})` : `${f(s.median)} ${unit}`;
}

/**
 * A dataset folder shaped like the SkillRet v1.1 test split (skills/queries/qrels JSONL), from
 * scripts/bench-bm25.mjs's generator (text resampled from the shared sample when present).
 * `docChars`: mean characters per skill. Reused when it already exists for these parameters.
 */
export function makeDataset(dir, { docs = 6006, queries = 4392, docChars = 14600, duplicates = 0.02, seed = 1 } = {}) {
  const stamp = join(dir, 'params.json');
  const params = JSON.stringify({ docs, queries, docChars, duplicates, seed, v: 1 });
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === params) return join(dir, 'data');
  rmSync(dir, { recursive: true, force: true });
  for (const sub of ['skills', 'queries', 'qrels']) mkdirSync(join(dir, 'data', sub), { recursive: true });
  const corpusFile = join(dir, 'corpus.json');
  const gen = spawnSync(
    process.execPath,
    ['scripts/bench-bm25.mjs', '--docs', String(docs), '--queries', String(queries), '--doc-chars', String(docChars), '--duplicates', String(duplicates), '--seed', String(seed), '--write-corpus', corpusFile, '--generate-only'],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (gen.status !== 0) throw new Error('corpus generation failed');
  const corpus = JSON.parse(readFileSync(corpusFile, 'utf8'));
  rmSync(corpusFile);
  let s = 7;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  writeFileSync(join(dir, 'data/skills/test.jsonl'), corpus.docs.map((d) => JSON.stringify({ id: d.id, name: '', description: '', skill_md: d.text })).join('\n') + '\n');
  const qrels = [];
  const qs = corpus.queries.map((q) => {
    const gold = new Set();
    const n = 1 + Math.floor(rand() * 3);
    while (gold.size < n) gold.add(corpus.docs[Math.floor(rand() * corpus.docs.length)].id);
    for (const g of gold) qrels.push(JSON.stringify({ query_id: q.id, skill_id: g, relevance: 1 }));
    return JSON.stringify({ id: q.id, query: q.text, skill_ids: [...gold] });
  });
  writeFileSync(join(dir, 'data/queries/test.jsonl'), qs.join('\n') + '\n');
  writeFileSync(join(dir, 'data/qrels/test.jsonl'), qrels.join('\n') + '\n');
  writeFileSync(stamp, params);
  return join(dir, 'data');
}

/** Writes a run config for `dataDir` with the given retriever lines; returns its path. */
export function writeConfig(dir, name, retrievers, { out = 'out', cache = 'cache' } = {}) {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `name: ${name}\ndataset: { path: ./data }\nretrievers:\n${retrievers.map((r) => `  - ${r}`).join('\n')}\noutput: ./${out}\ncache_dir: ./${cache}\n`);
  return path;
}
