/**
 * `skillret-eval explain --mask` (paper Table 5): the masking rule against a plain re-implementation,
 * the attribution order, the top-10 selection against a plain trec sort, the paper column (a
 * stand-in pinned release), and end to end on the bundled fixture (configs/quickstart.yaml run into a
 * temp folder): level 0 equals the run's own NDCG@10 for BM25, levels grow by one masked sentence,
 * repeats write the same bytes; a hand-built query with fewer sentences than k; bad flags.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from './helpers/cli.js';
import { makeDataset, makeTempDir } from './fixtures/data/make-dataset.js';
import { mulberry32 } from './helpers/mulberry32.js';
import { plainRank } from './helpers/plain-evaluator.js';
import { MASK_TOKEN, maskSentences, splitSentences, type Sentence } from '../src/query/segment.js';
import { maskOrder, relativeChange, topInTrecOrder } from '../src/explain/mask.js';
import { maskColumn, maskPaper, type MaskMeasured } from '../src/paper/mask-vs-published.js';
import type { SkillretRelease } from '../src/data/hub.js';

const root = resolve(import.meta.dirname, '..');

/** The masking rule written plainly: each chosen sentence's raw span keeps its leading and trailing whitespace (regex \s, the set trim() removes), its visible text becomes [MASK]. */
function plainMask(query: string, sentences: readonly Sentence[], masked: readonly number[]): string {
  return sentences
    .map((s, i) => {
      const raw = query.slice(s.start, s.end);
      if (!masked.includes(i)) return raw;
      const lead = /^\s*/.exec(raw)![0];
      const trail = /\s*$/.exec(raw.slice(lead.length))![0];
      return lead + '[MASK]' + trail;
    })
    .join('');
}

describe('maskSentences', () => {
  it('replaces the trimmed text of each chosen sentence, whitespace around it kept', () => {
    const q = '  We run Postgres. Backups fail!\n\nWhy? fix it\nplease';
    const s = splitSentences(q);
    expect(maskSentences(q, s, [])).toBe(q);
    expect(maskSentences(q, s, [0])).toBe('  [MASK] Backups fail!\n\nWhy? fix it\nplease');
    expect(maskSentences(q, s, [1])).toBe('  We run Postgres. [MASK]\n\nWhy? fix it\nplease');
    expect(maskSentences(q, s, [2, 1])).toBe('  We run Postgres. [MASK]\n\n[MASK] fix it\nplease');
    expect(maskSentences(q, s, [4, 0, 4])).toBe('  [MASK] Backups fail!\n\nWhy? fix it\n[MASK]');
    expect(maskSentences(q, s, [0, 1, 2, 3, 4])).toBe('  [MASK] [MASK]\n\n[MASK] [MASK]\n[MASK]');
    for (let m = 0; m < 1 << s.length; m++) {
      const idx = s.map((_, i) => i).filter((i) => m & (1 << i));
      expect(maskSentences(q, s, idx)).toBe(plainMask(q, s, idx));
    }
  });
});

describe('mask attribution and ranking', () => {
  it('orders sentences by importance, largest first; ties by index; non-finite last', () => {
    expect(maskOrder([0.1, 0.5, -0.2, 0.5, NaN, 0])).toEqual([1, 3, 0, 5, 2, 4]);
    expect(maskOrder([])).toEqual([]);
  });

  it('topInTrecOrder is the head of a plain trec_eval sort (ties by doc id descending)', () => {
    const rnd = mulberry32(7);
    for (let t = 0; t < 200; t++) {
      const n = 1 + Math.floor(rnd() * 40);
      const ids = Array.from({ length: n }, (_, i) => `d${Math.floor(rnd() * 1000)}-${i}`);
      const scores = Float32Array.from(ids, () => Math.floor(rnd() * 5) / 4);
      const k = 1 + Math.floor(rnd() * 12);
      const plain = plainRank(new Map(ids.map((id, i) => [id, scores[i]!]))).slice(0, k);
      expect(topInTrecOrder(scores, ids, k).map((d) => d.docId)).toEqual(plain);
    }
  });

  it('relative change from the printed percentages, one decimal as Table 5 prints it', () => {
    expect(relativeChange(0.7341, 0.5634)).toBe(-23.3);
    expect(relativeChange(0.7341, 0.2666)).toBe(-63.7);
    expect(relativeChange(0.5, 0.5)).toBe(0);
    expect(relativeChange(0, 0.1)).toBeNaN();
  });
});

describe('maskPaper (Table 5 beside the measured levels)', () => {
  const files = [
    { role: 'skills' as const, path: 's', bytes: 1, records: 1, sha256: 'a'.repeat(64) },
    { role: 'queries' as const, path: 'q', bytes: 1, records: 1, sha256: 'b'.repeat(64) },
    { role: 'qrels' as const, path: 'r', bytes: 1, records: 1, sha256: 'c'.repeat(64) },
  ];
  const release = (version: string): SkillretRelease => ({
    version,
    repo: 'stand-in/SKILLRET',
    revision: '0123456789abcdef0123456789abcdef01234567',
    files: { test: { skills: 'a'.repeat(64), queries: 'b'.repeat(64), qrels: 'c'.repeat(64) } },
    bytes: { test: { skills: 1, queries: 1, qrels: 1 } },
  });
  const measured = (o: Partial<MaskMeasured> = {}): MaskMeasured => ({
    ndcg10: [0.73412, 0.56338, 0.4, 0.2666],
    counterpart: { model: 'Qwen/Qwen3-Embedding-0.6B', deviations: [] },
    firstStage: 'dense Qwen/Qwen3-Embedding-0.6B',
    subset: false,
    selection: 'all queries',
    dataset: { files, fields: ['name', 'description', 'skill_md'], separator: ' | ', skillMdField: 'skill_md', droppedGoldPairs: 0 },
    ...o,
  });

  it('on a pinned v1.0 release with a published row: Δ and verdict per level', () => {
    const p = maskPaper(measured(), [release('v1.0')]);
    expect(p).toMatchObject({ table: 'v1.0-sentence-erasure', row: 'Qwen3-Embedding-0.6B (Base)', applies: true, reasons: [], release: { version: 'v1.0' }, verdict: 'close' });
    expect(p.cells.map((c) => [c.column, c.published, c.delta, c.verdict])).toEqual([
      ['Full query', 73.41, 0, 'OK'],
      ['mask_top_1', 56.34, 0, 'OK'],
      ['mask_top_2', 40.39, -0.39, 'close'],
      ['mask_top_3', 26.66, 0, 'OK'],
    ]);
    expect(p.cells[3]!.publishedRelative).toBe(-63.7);
    expect(maskColumn(0)).toBe('Full query');
    // the masked queries are scored exactly: the run's HNSW index is no deviation here
    const hnsw = maskPaper(measured({ counterpart: { model: 'Qwen/Qwen3-Embedding-0.6B', deviations: ['HNSW index (the paper searches exactly)', 'pooling cls (protocol last)'] } }), [release('v1.0')]);
    expect(hnsw.deviations).toEqual(['pooling cls (protocol last)']);
  });

  it('otherwise says why the numbers do not apply, and gives no Δ', () => {
    const notPinned = maskPaper(measured(), []);
    expect(notPinned.applies).toBe(false);
    expect(notPinned.reasons).toEqual(['not a pinned release: Table 5 was measured on the pinned v1.0 test split']);
    expect(notPinned.cells.map((c) => c.published)).toEqual([73.41, 56.34, 40.39, 26.66]);
    expect(notPinned.cells.every((c) => c.delta === undefined && c.verdict === undefined)).toBe(true);
    expect(maskPaper(measured(), [release('v1.1')]).reasons).toEqual(['the dataset is the pinned v1.1 release; Table 5 is on v1.0 (never compare the two)']);
    expect(maskPaper(measured({ subset: true, selection: 'sample 5 (seed 42)' }), [release('v1.0')]).reasons).toEqual(['measured on part of the queries (sample 5 (seed 42)); Table 5 uses every single-gold query']);
    const bm25 = maskPaper(measured({ counterpart: { model: 'BM25', deviations: ['k1 1.2 (paper 1.5)'] }, firstStage: 'bm25' }), [release('v1.0')]);
    expect(bm25.reasons).toEqual(['Table 5 has no row for BM25 (rows: Qwen3-Embedding-0.6B, SkillRet-Embedding-0.6B)']);
    expect(bm25.cells).toEqual([]);
    expect(bm25.deviations).toEqual(['k1 1.2 (paper 1.5)']);
    expect(maskPaper(measured({ counterpart: undefined, firstStage: 'dense my-model' }), [release('v1.0')]).reasons).toEqual(['dense my-model has no published counterpart']);
  });
});

interface MaskFile {
  queries: number;
  left_out: { several_gold: number; no_gold: number };
  levels: { level: number; ndcg10: number; percent: string; queries_with_fewer_sentences: number }[];
  paper: { applies: boolean; reasons: string[] };
  per_query: { id: string; gold: string; sentences: number; importance: number[]; order: number[]; ndcg10: number[]; rank: number[] }[];
}

describe('explain --mask on the bundled fixture (configs/quickstart.yaml)', () => {
  const dir = makeTempDir('explain-mask-');
  const out = join(dir, 'out');
  const queries = new Map<string, string>(
    readFileSync(join(root, 'data/mini/queries/test.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; query: string })
      .map((q) => [q.id, q.query]),
  );
  let first: Buffer;
  let x: MaskFile;
  let text: string;

  beforeAll(async () => {
    const cfg = readFileSync(join(root, 'configs/quickstart.yaml'), 'utf8')
      .replace('path: ../data/mini', `path: ${join(root, 'data/mini')}`)
      .replace('output: ../results/quickstart', `output: ${out}\ncache_dir: ${join(dir, 'cache')}`);
    writeFileSync(join(dir, 'quickstart.yaml'), cfg);
    const r = await runCli(['run', join(dir, 'quickstart.yaml'), '--offline', '-q', '--no-history']);
    expect(r.err).toBe('');
    const m = await runCli(['explain', out, '--run', 'bm25/none', '--mask', '-q']);
    expect(m.err).toBe('');
    expect(m.code).toBe(0);
    text = m.out;
    first = readFileSync(join(out, 'bm25/none/mask.json'));
    x = JSON.parse(first.toString('utf8')) as MaskFile;
  }, 120_000);

  it('measures every single-gold query at levels 0..3 and prints the table with the paper column reason', () => {
    const gold = new Map<string, number>();
    for (const l of readFileSync(join(root, 'data/mini/qrels/test.jsonl'), 'utf8').trim().split('\n')) {
      const r = JSON.parse(l) as { query_id: string; relevance: number };
      if (r.relevance >= 1) gold.set(r.query_id, (gold.get(r.query_id) ?? 0) + 1);
    }
    const single = [...queries.keys()].filter((id) => gold.get(id) === 1);
    expect(x.per_query.map((q) => q.id)).toEqual(single);
    expect(x.queries).toBe(single.length);
    expect(x.left_out).toEqual({ several_gold: queries.size - single.length, no_gold: 0 });
    expect(x.levels.map((l) => l.level)).toEqual([0, 1, 2, 3]);
    for (const l of x.levels) expect(l.ndcg10).toBeCloseTo(x.per_query.reduce((s, q) => s + q.ndcg10[l.level]!, 0) / x.queries, 5);
    expect(x.paper.applies).toBe(false);
    expect(x.paper.reasons).toEqual([
      'Table 5 has no row for BM25 (rows: Qwen3-Embedding-0.6B, SkillRet-Embedding-0.6B)',
      'not a pinned release: Table 5 was measured on the pinned v1.0 test split (ThakiCloud/SKILLRET@7cae7cf)',
    ]);
    expect(text).toMatch(new RegExp(`^explain --mask bm25/none: ${single.length} single-gold queries \\(all queries; left out: ${queries.size - single.length} with several gold skills\\)\\n`));
    expect(text).toMatch(/^ {2}masked +NDCG@10 +change$/m);
    expect(text).toMatch(/^ {2}none \(full query\) +\d+\.\d\d$/m);
    expect(text).toMatch(/^ {2}top 3 +\d+\.\d\d +[-+]?\d+\.\d%$/m);
    expect(text).toContain('paper: the published numbers do not apply: Table 5 has no row for BM25');
  });

  it('level 0 is the run itself: its per-query NDCG@10 for every single-gold query (BM25, same scorer and ranking)', () => {
    const rows = new Map(
      readFileSync(join(out, 'bm25/none/per-query.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; metrics: Record<string, number> })
        .map((r) => [r.id, r.metrics['NDCG@10']!]),
    );
    for (const q of x.per_query) expect(q.ndcg10[0]).toBe(rows.get(q.id));
    const metrics = JSON.parse(readFileSync(join(out, 'bm25/none/metrics.json'), 'utf8')) as { metrics: Record<string, number> };
    expect(metrics.metrics['NDCG@10']).toBeDefined();
  });

  it('each level masks one more sentence of the importance order, and the text is the plain masking', () => {
    for (const q of x.per_query) {
      const text = queries.get(q.id)!;
      const s = splitSentences(text);
      expect(q.sentences).toBe(s.length);
      expect([...q.order].sort((a, b) => a - b)).toEqual(s.map((_, i) => i));
      // the order is by importance, largest first, ties by index
      for (let i = 1; i < q.order.length; i++) {
        const [a, b] = [q.importance[q.order[i - 1]!]!, q.importance[q.order[i]!]!];
        expect(a > b || (a === b && q.order[i - 1]! < q.order[i]!)).toBe(true);
      }
      let before = text;
      for (let k = 0; k <= 3; k++) {
        const masked = q.order.slice(0, k);
        const t = maskSentences(text, s, masked);
        expect(t).toBe(plainMask(text, s, masked));
        expect(t.split(MASK_TOKEN).length - 1).toBe(Math.min(k, s.length));
        // monotone: level k is level k − 1 with one more sentence masked, every other character kept
        if (k > 0) {
          const added = s[q.order[k - 1]!]!;
          expect(before.split(added.text).length).toBeGreaterThan(1);
          expect(t).toBe(plainMask(text, s, masked));
          expect(t.length - before.length).toBe(MASK_TOKEN.length - added.text.length);
        }
        before = t;
        // a single-gold query's NDCG@10 is 1 / log2(rank + 1) within the top 10
        expect(q.ndcg10[k]).toBeCloseTo(q.rank[k]! <= 10 ? 1 / Math.log2(q.rank[k]! + 1) : 0, 12);
      }
    }
  });

  it('a repeat writes the same bytes; a local dense run is measured too', async () => {
    const again = await runCli(['explain', out, '--run', 'bm25/none', '--mask', '3', '-q']);
    expect(again.code).toBe(0);
    expect(readFileSync(join(out, 'bm25/none/mask.json')).equals(first)).toBe(true);
    const dense = await runCli(['explain', out, '--run', 'glove/none', '--mask', '2', '-q']);
    expect(dense.err).toBe('');
    expect(dense.out).toContain('paper: the published numbers do not apply: dense glove-6b-100d-static has no published counterpart');
    const d = JSON.parse(readFileSync(join(out, 'glove/none/mask.json'), 'utf8')) as MaskFile;
    expect(d.levels.map((l) => l.level)).toEqual([0, 1, 2]);
    expect(d.per_query.map((q) => q.id)).toEqual(x.per_query.map((q) => q.id));
  });

  it('bad flags: one line, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--run', 'bm25/none', '--mask', 'x'], /^skillret-eval: --mask: expected an integer from 1 to 10 .*got "x"$/],
      [['--run', 'bm25/none', '--mask', '0'], /--mask: expected an integer from 1 to 10 .*got 0$/],
      [['--run', 'bm25/none', '--mask', '11'], /--mask: expected an integer from 1 to 10 .*got 11$/],
      [['--run', 'bm25/glove-maxsim', '--mask'], /--run: bm25\/glove-maxsim cannot be explained: --mask re-scores the whole corpus with the first stage.*; mask bm25\/none$/],
      [['--run', 'bm25/none', '--mask', '--hurt'], /--hurt: not with --mask/],
      [['--run', 'bm25/none', '--mask', '--max-queries', '0'], /--max-queries: expected a positive integer/],
      [['--run', 'bm25/none', '--mask', '--queries', 'q-00001'], /--mask: no single-gold query \(exactly one gold skill\) among the 1 selected \(queries q-00001\)/],
      [['--run', 'bm25/none', '--mask', '--sample', '2', '--failed'], /give at most one/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(['explain', out, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err.trim()).toMatch(re);
    }
  });
});

describe('explain --mask: a query with fewer sentences than k', () => {
  it('masks every sentence it has at the levels beyond, and says how many queries that was', async () => {
    const dir = makeTempDir('explain-mask-short-');
    const data = makeDataset({
      skills: [
        { id: 's0', name: 'cat', description: 'cat', skill_md: 'dog' },
        { id: 's1', name: 'dog', description: 'bird', skill_md: 'fish' },
        { id: 's2', name: 'fish', description: 'fish', skill_md: 'fish' },
      ],
      queries: [
        { id: 'q1', query: 'Cat. Dog bird.', skill_ids: ['s0'] },
        { id: 'q2', query: 'Fish please.', skill_ids: ['s1', 's2'] },
      ],
    });
    writeFileSync(join(dir, 'exp.yaml'), `name: x\ndataset: { path: ${data} }\nretrievers:\n  - { id: bm25, type: bm25, top_k: 3 }\nstats: { iterations: 100 }\ncache_dir: ./cache\noutput: ./out\n`);
    expect((await runCli(['run', join(dir, 'exp.yaml'), '-q', '--no-history'])).err).toBe('');
    const r = await runCli(['explain', join(dir, 'out'), '--run', 'bm25/none', '--mask', '3', '-q']);
    expect(r.err).toBe('');
    expect(r.out).toMatch(/^ {2}top 3 \(1 with < 3 sentences: all masked\) +\d+\.\d\d/m);
    const m = JSON.parse(readFileSync(join(dir, 'out/bm25/none/mask.json'), 'utf8')) as MaskFile;
    expect(m.left_out).toEqual({ several_gold: 1, no_gold: 0 });
    expect(m.levels.map((l) => l.queries_with_fewer_sentences)).toEqual([0, 0, 0, 1]);
    const q = m.per_query[0]!;
    expect(q.sentences).toBe(2);
    // "Cat." carries s0 (cat ×2 in s0, not in s1); masking it first, then "Dog bird."
    expect(q.order).toEqual([0, 1]);
    expect(q.importance[0]).toBeGreaterThan(q.importance[1]!);
    const s = splitSentences('Cat. Dog bird.');
    expect([0, 1, 2, 3].map((k) => maskSentences('Cat. Dog bird.', s, q.order.slice(0, k)))).toEqual(['Cat. Dog bird.', '[MASK] Dog bird.', '[MASK] [MASK]', '[MASK] [MASK]']);
    // level 3 is level 2's text: the same ranking
    expect(q.ndcg10[3]).toBe(q.ndcg10[2]);
    expect(q.rank[3]).toBe(q.rank[2]);
    expect(q.ndcg10[0]).toBe(1);
  });
});
