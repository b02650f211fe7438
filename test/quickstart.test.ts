/**
 * The main job end to end, offline, as a user runs it: configs/quickstart.yaml
 * (BM25 and the GloVe static embedder with HNSW, each with and without the
 * GloVe MaxSim scorer), its reruns from the cache, reranking a saved run with no
 * embedder, and a run killed while encoding that resumes to the same results.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { runCli } from './helpers/cli.js';
import { escapeMd } from '../src/report/markdown.js';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl'];

const cli = runCli;

/** The quickstart config, pointed at a temp output and cache. */
function quickstartIn(dir: string): string {
  const text = readFileSync(join(root, 'configs/quickstart.yaml'), 'utf8')
    .replace('path: ../data/mini', `path: ${join(root, 'data/mini')}`)
    .replace('output: ../results/quickstart', `output: ${join(dir, 'out')}\ncache_dir: ${join(dir, 'cache')}`);
  const f = join(dir, 'quickstart.yaml');
  writeFileSync(f, text);
  return f;
}

function snapshot(out: string, runs: string[]): Record<string, Buffer> {
  const s: Record<string, Buffer> = {};
  for (const r of runs) for (const f of RESULT_FILES) s[`${r}/${f}`] = readFileSync(join(out, r, f));
  return s;
}

describe('configs/quickstart.yaml', () => {
  const dir = mkdtempSync(join(tmpdir(), 'quickstart-'));
  const out = join(dir, 'out');
  const runs = ['bm25/none', 'bm25/glove-maxsim', 'glove/none', 'glove/glove-maxsim'];
  let first: Record<string, Buffer>;

  beforeAll(async () => {
    const r = await cli(['run', quickstartIn(dir), '--offline', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    first = snapshot(out, runs);
  });

  it('runs every retriever × reranker pair and reports on/off with significance and the ceiling', () => {
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    for (const r of runs) expect(summary).toContain(`| ${r.replace('/', ' / ')} |`);
    expect(summary).toContain('## Reranker on/off');
    expect(summary).toMatch(/\| bm25 \| glove-maxsim \| NDCG@10 \| \d+\.\d\d \| \d+\.\d\d \| [+-]\d+\.\d\d \| [<\d.]+ \| [<\d.]+ \| \[[+-]\d+\.\d\d, [+-]\d+\.\d\d\] \| \d+ \/ \d+ \/ \d+ \| \d+\.\d\d \/ \d+\.\d\d \(N=20\) \|/);
    expect(summary).toContain('## Approximate index audit (HNSW vs exact top-k)');

    const m = JSON.parse(readFileSync(join(out, 'glove/glove-maxsim/metrics.json'), 'utf8'));
    expect(m.reranking.depth).toBe(20);
    expect(m.reranking.versus).toBe('glove/none');
    expect(Object.keys(m.reranking.ceiling)).toEqual(['Recall@20', 'Completeness@20']);
    const a = m.reranking.attribution;
    expect(a.counts.helped + a.counts.hurt + a.counts.unchanged).toBe(21);
    const nd = a.metrics['NDCG@10'];
    expect(nd.delta).toBeCloseTo(nd.treated - nd.base, 4);
    expect(nd.randomization.pValue).toBeGreaterThan(0);
    expect(nd.randomization.pValue).toBeLessThanOrEqual(1);
    expect(nd.bootstrap.low).toBeLessThanOrEqual(nd.delta);
    expect(nd.bootstrap.high).toBeGreaterThanOrEqual(nd.delta);
    // The reranked list holds only the pool: at most depth = 20 per query.
    const lines = readFileSync(join(out, 'glove/glove-maxsim/per-query.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).retrieved.length).every((n: number) => n <= 20)).toBe(true);
    // Each reranked query carries its on − off change; off comes from glove/none's per-query file.
    const off = new Map(
      readFileSync(join(out, 'glove/none/per-query.jsonl'), 'utf8').trim().split('\n').map((l) => [JSON.parse(l).id, JSON.parse(l).metrics]),
    );
    for (const l of lines.map((x) => JSON.parse(x))) expect(l.vs_none['NDCG@10']).toBe(l.metrics['NDCG@10'] - off.get(l.id)['NDCG@10']);
    const offNone = JSON.parse(lines[0]!);
    expect(offNone).toHaveProperty('vs_none');
    expect(readFileSync(join(out, 'glove/none/per-query.jsonl'), 'utf8')).not.toContain('vs_none');

    const g = JSON.parse(readFileSync(join(out, 'glove/none/metrics.json'), 'utf8'));
    expect(g.approximation.overlap['10']).toBeGreaterThanOrEqual(0.99);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const glove = manifest.stages.find((s: { id: string }) => s.id === 'glove');
    expect(glove.info.model.preset).toBe('glove-6b-100d-static');
    expect(glove.info.cache.misses).toBeGreaterThan(0);
  });

  it('a second identical run encodes nothing and writes byte-identical results', async () => {
    const r = await cli(['run', join(dir, 'quickstart.yaml'), '--offline', '-q']);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const glove = manifest.stages.find((s: { id: string }) => s.id === 'glove');
    expect(glove.info.cache).toMatchObject({ hits: 45 + 21, misses: 0 });
    const again = snapshot(out, runs);
    for (const [k, v] of Object.entries(first)) expect(again[k]!.equals(v), k).toBe(true);
  });

  it('reranks a saved run file with no embedder configured', async () => {
    const d = mkdtempSync(join(tmpdir(), 'saved-run-'));
    const f = join(d, 'rerank-saved.yaml');
    writeFileSync(
      f,
      `name: rerank-saved
dataset: { path: ${join(root, 'data/mini')} }
retrievers:
  - { id: saved, type: run, path: ${join(out, 'bm25/none/run.trec')}, top_k: 20 }
rerankers:
  - { id: none }
  - { id: glove-maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }
output: ./out
cache_dir: ./cache
`,
    );
    const r = await cli(['run', f, '--offline', '-q']);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(d, 'out/manifest.json'), 'utf8'));
    expect(manifest.stages.map((s: { kind: string; id: string }) => `${s.kind}:${s.id}`)).toEqual(['retrieval:saved', 'rerank:glove-maxsim']);
    // Same candidates, same scorer → same metrics as reranking BM25 inside the quickstart.
    const saved = JSON.parse(readFileSync(join(d, 'out/saved/glove-maxsim/metrics.json'), 'utf8'));
    const inline = JSON.parse(readFileSync(join(out, 'bm25/glove-maxsim/metrics.json'), 'utf8'));
    expect(saved.metrics).toEqual(inline.metrics);
    const savedNone = JSON.parse(readFileSync(join(d, 'out/saved/none/metrics.json'), 'utf8'));
    const bm25None = JSON.parse(readFileSync(join(out, 'bm25/none/metrics.json'), 'utf8'));
    expect(savedNone.metrics).toEqual(bm25None.metrics);

    // A third experiment (BM25 with other parameters), then compare across all three results folders.
    const f3 = join(d, 'bm25-k1.yaml');
    writeFileSync(f3, `name: bm25-k1\ndataset: { path: ${join(root, 'data/mini')} }\nretrievers:\n  - { id: bm25-k1, type: bm25, k1: 0.9, b: 0.4 }\noutput: ./out3\ncache_dir: ./cache\n`);
    expect((await cli(['run', f3, '--offline', '-q'])).code).toBe(0);
    const folders = [out, join(d, 'out'), join(d, 'out3')];
    const md = await cli(['compare', ...folders, '--format', 'md']);
    expect(md.code).toBe(0);
    expect(md.out).toMatch(/\| bm25\/none \(baseline\) \|/);
    expect(md.out).toContain('saved/glove-maxsim');
    expect(md.out).toContain('bm25-k1/none');
    expect(md.out).toMatch(/\*\*\d+\.\d\d\*\*/); // the best of a column in bold
    expect(md.out).toContain('Holm correction over the 6 runs compared with it');
    expect(md.out).toMatch(/\| \d+\/\d+\/\d+ \|/); // W/T/L
    const tex = await cli(['compare', ...folders, '--format', 'latex']);
    expect(tex.out).toContain('\\toprule');
    expect(tex.out).toContain('\\textbf{');
    const csv = await cli(['compare', ...folders, '--format', 'csv']);
    expect(csv.out.split('\n')[0]).toBe('run,metric,mean,delta,p_raw,p_corrected,significant,ci_low,ci_high,wins,ties,losses,best,top_group,baseline,test,correction,alpha,seed,iterations,queries');
    expect(csv.out.trim().split('\n')).toHaveLength(1 + 7 * 9);
    const json = JSON.parse((await cli(['compare', ...folders, '--format', 'json'])).out);
    expect(json.runs).toHaveLength(7);
    const sliced = JSON.parse((await cli(['compare', ...folders, '--format', 'json', '--slice', 'major'])).out);
    expect(sliced.groups.map((g: { group: string }) => g.group)).toContain('Software Engineering');
    for (const g of sliced.groups) expect(g.comparison.runs).toHaveLength(7);
  });

  it('compare --slice gives every slice the groups summary.md and breakdown.json give', async () => {
    // Every slice kind, one after another in one process: a slice must not see data an earlier one used up.
    const b = JSON.parse(readFileSync(join(out, 'bm25/none/breakdown.json'), 'utf8')) as { slices: Record<string, { groups: Record<string, { queries: number }> }> };
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(Object.keys(b.slices)).toEqual(['major', 'sub', 'gold', 'length']);
    for (const [name, s] of Object.entries(b.slices)) {
      const r = await cli(['compare', join(out, 'bm25/none'), join(out, 'glove/none'), '--format', 'json', '--slice', name, '--iterations', '200']);
      expect(r.code, name).toBe(0);
      const got = (JSON.parse(r.out) as { groups: { group: string; queries: number }[] }).groups.map((g) => [g.group, g.queries]);
      const want = Object.entries(s.groups).map(([g, v]) => [g, v.queries]);
      expect(got.sort(), name).toEqual(want.sort());
      expect(got.some(([g]) => g === '(unlabelled)'), name).toBe(false);
      for (const [g, n] of want) expect(summary, `${name} ${g}`).toContain(`${escapeMd(String(g))} (${n})`);
    }
  });

  it('slices in summary.md, breakdown.json and report.html', () => {
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('## NDCG@10 by slice');
    for (const t of ['major category', 'sub-category', 'number of gold skills', 'query length']) expect(summary).toContain(`### By ${t}`);
    expect(summary).toContain('Reranker on − off inside each group');
    const b = JSON.parse(readFileSync(join(out, 'glove/glove-maxsim/breakdown.json'), 'utf8'));
    expect(Object.keys(b.slices)).toEqual(['major', 'sub', 'gold', 'length']);
    const gold = b.slices.gold.groups;
    expect(Object.keys(gold)).toEqual(['1 gold', '2 gold', '3 gold']);
    expect(Object.values(gold).reduce((n: number, g) => n + (g as { queries: number }).queries, 0)).toBe(21);
    for (const g of Object.values(gold) as { vs_none: { helped: number; hurt: number; unchanged: number }; queries: number }[])
      expect(g.vs_none.helped + g.vs_none.hurt + g.vs_none.unchanged).toBe(g.queries);
    expect(b.slices.length.boundaries).toHaveLength(2);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<h3>By length</h3>');
    expect(html).toContain('Reranker on − off inside each group');
  });

  it("run's report.html, built from the value in memory, is the page `report` builds from the folder's files", async () => {
    // The run step never reads its folder back nor compares the runs a second time; what it renders
    // must still be exactly what the files say (every value the page shows, through the same code).
    const other = join(dir, 'from-files.html');
    const r = await cli(['report', out, '--out', other, '--seed', '42', '--iterations', '10000']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const fromRun = readFileSync(join(out, 'report.html'));
    expect(fromRun.length).toBeGreaterThan(10_000);
    expect(readFileSync(other).equals(fromRun)).toBe(true);
  });
});

describe('a run killed while encoding', () => {
  it('resumes from the embedding cache and finishes with the same results as an uninterrupted run', async () => {
    const cliJs = join(root, 'dist/cli.js');
    expect(existsSync(cliJs), 'dist/ must be built (npm test builds it first)').toBe(true);
    const d = mkdtempSync(join(tmpdir(), 'killed-'));
    // A corpus large enough that encoding takes seconds: the fixture's skills plus 1,500 distinct variants.
    const skills = readFileSync(join(root, 'data/mini/skills/test.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const lines = skills.map((s) => JSON.stringify(s));
    for (let i = 0; i < 1500; i++) {
      const s = skills[i % skills.length];
      lines.push(JSON.stringify({ ...s, id: `variant-${String(i).padStart(4, '0')}`, skill_md: `${s.skill_md}\n\nVariant ${i}: ${s.description}`.repeat(2) }));
    }
    mkdirSync(join(d, 'data/skills'), { recursive: true });
    mkdirSync(join(d, 'data/queries'), { recursive: true });
    mkdirSync(join(d, 'data/qrels'), { recursive: true });
    writeFileSync(join(d, 'data/skills/test.jsonl'), lines.join('\n') + '\n');
    writeFileSync(join(d, 'data/queries/test.jsonl'), readFileSync(join(root, 'data/mini/queries/test.jsonl')));
    writeFileSync(join(d, 'data/qrels/test.jsonl'), readFileSync(join(root, 'data/mini/qrels/test.jsonl')));
    const config = (name: string) => {
      const f = join(d, `${name}.yaml`);
      writeFileSync(
        f,
        `name: resume
dataset: { path: ./data }
retrievers:
  - { id: glove, type: dense, model: glove-6b-100d-static, batch_size: 8, top_k: 20 }
output: ./${name}-out
cache_dir: ./${name}-cache
`,
      );
      return f;
    };
    const node = process.execPath;
    const whole = spawnSync(node, [join(root, 'bin/skillret-eval.js'), 'run', config('whole'), '--offline', '-q'], { encoding: 'utf8' });
    expect(whole.stderr).toBe('');
    expect(whole.status).toBe(0);

    // Kill -9 as soon as the first chunk of vectors is on disk.
    const cfg = config('killed');
    const child = spawn(node, [join(root, 'bin/skillret-eval.js'), 'run', cfg, '--offline', '-q'], { stdio: 'ignore' });
    const embeddings = join(d, 'killed-cache/embeddings');
    const chunks = () => (existsSync(embeddings) ? readdirSync(embeddings, { recursive: true }).filter((p) => String(p).endsWith('.bin')) : []);
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    let killedEarly = false;
    for (let i = 0; i < 1200; i++) {
      if (chunks().length > 0) {
        killedEarly = child.kill('SIGKILL');
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    await exited;
    expect(killedEarly).toBe(true);
    expect(existsSync(join(d, 'killed-out/glove/none/metrics.json'))).toBe(false);
    const done = chunks().length;
    expect(done).toBeGreaterThan(0);

    const resumed = spawnSync(node, [join(root, 'bin/skillret-eval.js'), 'run', cfg, '--offline', '-q'], { encoding: 'utf8' });
    expect(resumed.stderr).toBe('');
    expect(resumed.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(d, 'killed-out/manifest.json'), 'utf8'));
    const cache = manifest.stages[0].info.cache;
    expect(cache.hits).toBeGreaterThan(0);
    expect(cache.misses).toBeGreaterThan(0);
    expect(cache.hits + cache.misses).toBe(1545 + 21);
    for (const f of RESULT_FILES) {
      const a = readFileSync(join(d, 'whole-out/glove/none', f));
      const b = readFileSync(join(d, 'killed-out/glove/none', f));
      expect(b.equals(a), f).toBe(true);
    }
  });
});
