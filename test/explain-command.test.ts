/**
 * `skillret-eval explain` end to end on a hand-built corpus and query: BM25 sentence erasure and
 * document-field attribution against a hand computation of the bm25s formula, byte-identical
 * repeats, agreement with the run's own scores and ranks, and one-line errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';
import { makeDataset, makeTempDir } from './fixtures/data/make-dataset.js';

const f32 = Math.fround;
/*
 * Skills (name | description | skill_md) → BM25 tokens, every document 3 tokens (avgdl 3, so
 * K = 1.5 · (0.25 + 0.75 · dl / 3) = 1.5 for the corpus):
 *   s0 "cat | cat | dog" → cat ×2, dog;  s1 "dog | bird | fish";  s2 "fish | fish | fish".
 * df: cat 1, dog 2, bird 1, fish 2 → idf1 = f32(ln(1 + 2.5/1.5)), idf2 = f32(ln(1 + 1.5/2.5)).
 * Query "Cat. Dog bird." → sentences "Cat." and "Dog bird."; gold s0.
 */
const IDF1 = f32(Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5)));
const IDF2 = f32(Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)));
const K = (dl: number) => 1.5 * (0.25 + (0.75 * dl) / 3);
const term = (idf: number, tf: number, dl: number) => f32(idf * (tf / (K(dl) + tf)));
const CAT0 = term(IDF1, 2, 3);
const DOG0 = term(IDF2, 1, 3);
const S0 = f32(CAT0 + DOG0); // whole query at s0
const S1 = f32(term(IDF2, 1, 3) + term(IDF1, 1, 3)); // dog + bird at s1

describe('explain (BM25, hand-built corpus)', () => {
  const dir = makeTempDir('explain-');
  let data: string;
  beforeAll(async () => {
    data = makeDataset({
      skills: [
        { id: 's0', name: 'cat', description: 'cat', skill_md: 'dog' },
        { id: 's1', name: 'dog', description: 'bird', skill_md: 'fish' },
        { id: 's2', name: 'fish', description: 'fish', skill_md: 'fish' },
      ],
      queries: [{ id: 'q1', query: 'Cat. Dog bird.', skill_ids: ['s0'] }],
    });
    writeFileSync(
      join(dir, 'exp.yaml'),
      `name: x\ndataset: { path: ${data} }\nretrievers:\n  - { id: bm25, type: bm25, top_k: 3 }\n  - { id: bm25-s, type: bm25, top_k: 3, query: { strategy: sentences } }\nstats: { iterations: 100 }\ncache_dir: ./cache\noutput: ./out\n`,
    );
    const r = await runCli(['run', join(dir, 'exp.yaml'), '-q']);
    expect(r.err).toBe('');
  }, 60_000);

  it('sentence erasure and field variants match the hand computation', async () => {
    const r = await runCli(['explain', join(dir, 'out'), '--run', 'bm25/none', '-q']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    // the kind is not repeated when the retriever's id is its kind (was "bm25 bm25"); 1 query, 1 pair (was "1 queries", "1 pairs")
    expect(r.out).toMatch(/^explain bm25\/none: 1 query \(all queries\), 1 \(query, gold skill\) pair\nscorer: bm25 \(k1=1\.5, b=0\.75\) over the corpus\n/);
    expect(r.out).toMatch(/^ {2}all: .*\(1 pair\)$/m);
    expect(r.out).not.toMatch(/\b([A-Za-z][\w-]*) \1\b/);
    expect(r.out).not.toMatch(/\b1 (queries|pairs)\b/);
    const lines = readFileSync(join(dir, 'out/bm25/none/explain.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    const x = JSON.parse(lines[0]!);
    expect(x.sentences.map((s: { text: string }) => s.text)).toEqual(['Cat.', 'Dog bird.']);
    const g = x.gold[0];
    expect([g.skill, g.score, g.rank]).toEqual(['s0', S0, 1]);
    expect(g.sentences).toEqual([
      { index: 0, score: DOG0, score_drop: S0 - DOG0, rank: 2, rank_drop: 1 }, // "Dog bird.": s1 (S1) overtakes
      { index: 1, score: CAT0, score_drop: S0 - CAT0, rank: 1, rank_drop: 0 },
    ]);
    const a = S0 - DOG0;
    const b = S0 - CAT0;
    expect(g.shares.top1).toBeCloseTo(Math.max(a, b) / (a + b), 12);
    // Field variants, scored with the corpus idf and avgdl (K by the variant's own length).
    const onlyCat = term(IDF1, 1, 1);
    const withoutName = f32(term(IDF1, 1, 2) + term(IDF2, 1, 2)); // "cat | dog"
    const withoutBody = term(IDF1, 2, 2); // "cat | cat"
    const onlyBody = term(IDF2, 1, 1);
    expect(S1).toBeGreaterThan(onlyCat);
    expect(withoutBody).toBeGreaterThan(S1);
    expect(withoutName).toBeGreaterThan(S1);
    expect(g.fields).toEqual([
      { variant: 'only_name', score: onlyCat, rank: 2, score_drop: S0 - onlyCat },
      { variant: 'only_description', score: onlyCat, rank: 2, score_drop: S0 - onlyCat },
      { variant: 'only_body', score: onlyBody, rank: 2, score_drop: S0 - onlyBody },
      { variant: 'without_name', score: withoutName, rank: 1, score_drop: S0 - withoutName },
      { variant: 'without_description', score: withoutName, rank: 1, score_drop: S0 - withoutName },
      { variant: 'without_body', score: withoutBody, rank: 1, score_drop: S0 - withoutBody },
    ]);
    const summary = JSON.parse(readFileSync(join(dir, 'out/bm25/none/explain.json'), 'utf8'));
    expect(summary).toMatchObject({ run: 'bm25/none', scorer: 'bm25 (k1=1.5, b=0.75) over the corpus', queries: 1, gold_pairs: 1, scored_texts: 3 + 6 });
    expect(summary.concentration.top2.mean).toBe(1);
    // The HTML report of the folder shows the highlighted sentences once explain.jsonl exists.
    const rep = await runCli(['report', join(dir, 'out')]);
    expect(rep.code).toBe(0);
    const html = readFileSync(join(dir, 'out/report.html'), 'utf8');
    expect(html).toContain('<section id="explain">');
    expect(html).toMatch(/<span class="imp imp-[45]" title="[^"]*">Cat\.<\/span>/);
  });

  it('repeats write the same bytes', async () => {
    const before = readFileSync(join(dir, 'out/bm25/none/explain.jsonl'));
    await runCli(['explain', join(dir, 'out'), '--run', 'bm25/none', '--queries', 'q1', '-q']);
    expect(readFileSync(join(dir, 'out/bm25/none/explain.jsonl')).equals(before)).toBe(true);
  });

  it('bad input: one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['explain', join(dir, 'nope'), '--run', 'bm25/none'], /no such results folder/],
      [['explain', join(dir, 'out'), '--run', 'bm25/ce'], /--run: no run "bm25\/ce" in .* \(runs: bm25\/none, bm25-s\/none\)/],
      [['explain', join(dir, 'out'), '--run', 'bm25/none', '--hurt'], /--hurt: needs a reranked run/],
      [['explain', join(dir, 'out'), '--run', 'bm25/none', '--queries', 'q9'], /--queries: unknown query id "q9"/],
      [['explain', join(dir, 'out'), '--run', 'bm25/none', '--failed', '--sample', '2'], /give at most one/],
      [['explain', join(dir, 'out'), '--run', 'bm25-s/none'], /uses a query strategy; explain its whole twin/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(re);
    }
  });
});

describe('explain (bundled GloVe dense model, data/mini)', () => {
  const dir = makeTempDir('explain-dense-');
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'exp.yaml'),
      `name: x\ndataset: { path: ${join(__dirname, '..', 'data', 'mini')} }\nretrievers:\n  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 10 }\nstats: { iterations: 100 }\ncache_dir: ./cache\noutput: ./out\n`,
    );
    const r = await runCli(['run', join(dir, 'exp.yaml'), '-q']);
    expect(r.err).toBe('');
  }, 120_000);

  it("scores the whole query exactly as the run did, and a repeat encodes nothing", async () => {
    const first = await runCli(['explain', join(dir, 'out'), '--run', 'glove/none', '--sample', '3', '-q']);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/[1-9]\d* encoded by the model/);
    const trec = readFileSync(join(dir, 'out/glove/none/run.trec'), 'utf8').trim().split('\n').map((l) => l.split(' '));
    const records = readFileSync(join(dir, 'out/glove/none/explain.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records).toHaveLength(3);
    let checked = 0;
    for (const x of records)
      for (const g of x.gold) {
        expect(g.sentences).toHaveLength(x.sentences.length);
        expect(g.fields.map((f: { variant: string }) => f.variant)).toEqual(['only_name', 'only_description', 'only_body', 'without_name', 'without_description', 'without_body']);
        const row = trec.find((t) => t[0] === x.id && t[2] === g.skill);
        if (!row) continue;
        expect(g.rank).toBe(Number(row[3]));
        expect(g.score).toBeCloseTo(Number(row[4]), 6);
        checked++;
      }
    expect(checked).toBeGreaterThan(0);
    const again = await runCli(['explain', join(dir, 'out'), '--run', 'glove/none', '--sample', '3', '-q']);
    expect(again.out).toMatch(/, 0 encoded by the model/);
  }, 120_000);
});

describe('explain (GloVe dense model with vector_precision bf16)', () => {
  const dir = makeTempDir('explain-dense-bf16-');
  beforeAll(async () => {
    writeFileSync(
      join(dir, 'exp.yaml'),
      `name: x\ndataset: { path: ${join(__dirname, '..', 'data', 'mini')} }\nretrievers:\n  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 10 }\n  - { id: glove-bf16, type: dense, model: glove-6b-100d-static, top_k: 10, vector_precision: bf16 }\nstats: { iterations: 100 }\ncache_dir: ./cache\noutput: ./out\n`,
    );
    const r = await runCli(['run', join(dir, 'exp.yaml'), '-q']);
    expect(r.err).toBe('');
  }, 120_000);

  /** Gold-skill whole-query scores of explain.jsonl next to run.trec's score of the same pair. */
  async function explained(id: string): Promise<{ key: string; explain: number; run: number }[]> {
    const r = await runCli(['explain', join(dir, 'out'), '--run', `${id}/none`, '--sample', '5', '-q']);
    expect(r.code).toBe(0);
    const trec = readFileSync(join(dir, `out/${id}/none/run.trec`), 'utf8').trim().split('\n').map((l) => l.split(' '));
    const records = readFileSync(join(dir, `out/${id}/none/explain.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const out: { key: string; explain: number; run: number }[] = [];
    for (const x of records)
      for (const g of x.gold) {
        const row = trec.find((t) => t[0] === x.id && t[2] === g.skill);
        if (row) out.push({ key: `${x.id} ${g.skill}`, explain: g.score, run: Number(row[4]) });
      }
    return out;
  }

  it('scores with the vectors rounded as the run rounded them: bit for bit the run.trec score', async () => {
    const bf16 = await explained('glove-bf16');
    expect(bf16.length).toBeGreaterThan(0);
    for (const p of bf16) expect(p.explain).toBe(p.run);
    // The rounding matters here: the same pairs score differently at fp32.
    const fp32 = new Map((await explained('glove')).map((p) => [p.key, p.run]));
    const both = bf16.filter((p) => fp32.has(p.key));
    expect(both.length).toBeGreaterThan(0);
    expect(both.some((p) => p.run !== fp32.get(p.key))).toBe(true);
  }, 180_000);
});
