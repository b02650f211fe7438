/**
 * Hard-negative mining (src/training/hard-negatives.ts, src/api/mine-negatives.ts,
 * `skillret-eval mine-negatives`):
 * - the guards as documented, on random runs (fast-check): no gold is a negative, every negative
 *   lies in the rank window and under the ceiling, at most N per query, in rank order, `top` takes the
 *   best ranked; a query's sample depends on the seed, its id and its list only (not on the order
 *   of the queries);
 * - on data/mini (a temporary dataset folder whose `train` split is data/mini's test files): the export
 *   is deterministic (two runs byte-identical, file and manifest), holds no gold as a negative (no
 *   negative's document text is a gold skill's of its query, a planted copy of a gold skill included), and loads with a plain JSONL reader in
 *   the sentence-transformers triplet shape (exactly query, pos, neg, all strings); FlagEmbedding's
 *   shape with --format flag; a fusion is mined with its inputs; --range deepens the retriever;
 * - bad input: one line naming the flag or file, exit 2, no stack trace; nothing written.
 */
import { fc, test } from '@fast-check/vitest';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { loadDataset } from '../src/data/dataset.js';
import { buildDocumentText } from '../src/data/text.js';
import { mineHardNegatives, type NegativeGuards } from '../src/training/hard-negatives.js';
import { runCli } from './helpers/cli.js';

const MINI = resolve(import.meta.dirname, '..', 'data', 'mini');

describe('mineHardNegatives', () => {
  const doc = fc.integer({ min: 0, max: 30 }).map((i) => `d${i}`);
  const list = fc.uniqueArray(fc.tuple(doc, fc.double({ min: -2, max: 10, noNaN: true })), { selector: ([d]) => d, maxLength: 25 }).map((xs) => xs.map(([docId, score]) => ({ docId, score })).sort((a, b) => b.score - a.score));
  const queries = fc.array(fc.tuple(list, fc.uniqueArray(doc, { maxLength: 4 })), { minLength: 1, maxLength: 8 });
  const guards: fc.Arbitrary<NegativeGuards> = fc.record({
    negatives: fc.integer({ min: 1, max: 6 }),
    skipTop: fc.integer({ min: 0, max: 5 }),
    range: fc.tuple(fc.integer({ min: 1, max: 8 }), fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined })).map(([from, extra]) => (extra === undefined ? { from } : { from, to: from + extra })),
    maxScoreRatio: fc.option(fc.double({ min: 0.5, max: 1.2, noNaN: true }), { nil: undefined }),
    maxScore: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }),
    sampling: fc.constantFrom('random' as const, 'top' as const),
    seed: fc.nat(),
  }).map((g) => Object.fromEntries(Object.entries(g).filter(([, v]) => v !== undefined)) as unknown as NegativeGuards);

  const setUp = (qs: [{ docId: string; score: number }[], string[]][]) => {
    const run: Run = new Map(qs.map(([l], i) => [`q${i}`, l]));
    const qrels: Qrels = new Map(qs.map(([, gold], i) => [`q${i}`, new Map(gold.map((g, j) => [g, j === 0 ? 0 : 1]))])); // the first judgement is non-relevant (grade 0)
    return { run, qrels, ids: qs.map((_, i) => `q${i}`) };
  };

  test.prop([queries, guards])('the guards hold; deterministic; independent of the order of the queries', (qs, g) => {
    const { run, qrels, ids } = setUp(qs);
    const r = mineHardNegatives(run, qrels, ids, g);
    const from = Math.max(g.range.from, g.skipTop + 1);
    for (const m of r.queries) {
      const list = run.get(m.queryId)!;
      const gold = new Set([...qrels.get(m.queryId)!].filter(([, grade]) => grade >= 1).map(([d]) => d));
      expect([...m.positives].sort()).toEqual([...gold].sort());
      const goldScores = list.filter((d) => gold.has(d.docId)).map((d) => d.score);
      expect(m.negatives.length).toBeGreaterThan(0);
      expect(m.negatives.length).toBeLessThanOrEqual(g.negatives);
      expect(m.negatives.map((n) => n.rank)).toEqual([...m.negatives.map((n) => n.rank)].sort((a, b) => a - b));
      expect(new Set(m.negatives.map((n) => n.docId)).size).toBe(m.negatives.length);
      for (const n of m.negatives) {
        expect(gold.has(n.docId)).toBe(false);
        expect(list[n.rank - 1]!.docId).toBe(n.docId);
        expect(n.rank).toBeGreaterThanOrEqual(from);
        if (g.range.to !== undefined) expect(n.rank).toBeLessThanOrEqual(g.range.to);
        if (g.maxScore !== undefined) expect(n.score).toBeLessThanOrEqual(g.maxScore);
        if (g.maxScoreRatio !== undefined) expect(n.score).toBeLessThanOrEqual(g.maxScoreRatio * Math.min(...goldScores));
      }
      if (g.sampling === 'top') {
        const eligible = list.map((d, i) => ({ ...d, rank: i + 1 })).filter((d) => d.rank >= from && d.rank <= (g.range.to ?? Infinity) && !gold.has(d.docId) && d.score <= Math.min(g.maxScore ?? Infinity, g.maxScoreRatio !== undefined ? g.maxScoreRatio * Math.min(...goldScores) : Infinity));
        expect(m.negatives).toEqual(eligible.slice(0, g.negatives));
      }
    }
    const c = r.counts;
    expect(c.mined + c.noGold + c.noPositiveScore + c.noNegatives).toBe(c.queries);
    expect(mineHardNegatives(run, qrels, ids, g)).toEqual(r);
    const reversed = mineHardNegatives(run, qrels, [...ids].reverse(), g);
    expect(reversed.queries.sort((a, b) => a.queryId.localeCompare(b.queryId))).toEqual([...r.queries].sort((a, b) => a.queryId.localeCompare(b.queryId)));
  });

  it('the ceiling: kept when score ≤ ratio × the lowest gold score; no gold in the list or a non-positive one: skipped', () => {
    const run: Run = new Map([
      ['a', [{ docId: 'x', score: 10 }, { docId: 'g1', score: 9 }, { docId: 'y', score: 8.6 }, { docId: 'g2', score: 8 }, { docId: 'z', score: 7.6 }, { docId: 'w', score: 7 }]],
      ['b', [{ docId: 'x', score: 3 }]],
      ['c', [{ docId: 'g', score: -1 }, { docId: 'x', score: -2 }]],
      ['d', [{ docId: 'x', score: 1 }]],
    ]);
    const qrels: Qrels = new Map([
      ['a', new Map([['g1', 1], ['g2', 2]])],
      ['b', new Map([['g', 1]])],
      ['c', new Map([['g', 1]])],
      ['d', new Map([['x', 0]])],
    ]);
    const g: NegativeGuards = { negatives: 5, skipTop: 0, range: { from: 1 }, maxScoreRatio: 0.95, sampling: 'top', seed: 1 };
    const r = mineHardNegatives(run, qrels, ['a', 'b', 'c', 'd'], g);
    // p = min(9, 8) = 8; 0.95 × 8 = 7.6: z (7.6) and w (7) kept, x and y dropped.
    expect(r.queries).toEqual([{ queryId: 'a', positives: ['g1', 'g2'], negatives: [{ docId: 'z', rank: 5, score: 7.6 }, { docId: 'w', rank: 6, score: 7 }] }]);
    expect(r.counts).toMatchObject({ queries: 4, mined: 1, noGold: 1, noPositiveScore: 2, dropped: { rank: 0, gold: 2, sameText: 0, ceiling: 2 } });
  });
});

describe('skillret-eval mine-negatives on data/mini', () => {
  let root: string;
  let cfg: string;
  const cache = () => join(root, 'cache');
  const mine = (...args: string[]) => runCli(['mine-negatives', cfg, '--split', 'train', '--cache-dir', cache(), '-q', ...args]);

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'mine-negatives-'));
    const ds = join(root, 'ds');
    for (const sub of ['skills', 'queries', 'qrels']) {
      mkdirSync(join(ds, sub), { recursive: true });
      cpSync(join(MINI, sub, 'test.jsonl'), join(ds, sub, 'train.jsonl'));
      cpSync(join(MINI, sub, 'test.jsonl'), join(ds, sub, 'test.jsonl'));
    }
    // A copy of a gold skill under another id: it ranks with the gold and must never be a negative.
    const goldId = (JSON.parse(readFileSync(join(MINI, 'qrels', 'test.jsonl'), 'utf8').split('\n')[0]!) as { skill_id: string }).skill_id;
    const skills = readFileSync(join(MINI, 'skills', 'test.jsonl'), 'utf8').trimEnd().split('\n');
    const gold = JSON.parse(skills.find((l) => (JSON.parse(l) as { id: string }).id === goldId)!) as Record<string, unknown>;
    writeFileSync(join(ds, 'skills', 'train.jsonl'), [...skills, JSON.stringify({ ...gold, id: 'copy-of-gold' })].join('\n') + '\n');
    cfg = join(root, 'c.yaml');
    writeFileSync(
      cfg,
      [
        'name: mine',
        `dataset: { path: ${JSON.stringify(ds)}, split: test }`,
        'retrievers:',
        '  - { id: bm25, type: bm25, top_k: 20 }',
        '  - { id: bm25b, type: bm25, top_k: 20, k1: 0.9, b: 0.4 }',
        '  - { id: fused, type: fusion, inputs: [bm25, bm25b], method: rrf, top_k: 20 }',
        'rerankers: [{ id: none }]',
        `output: ${JSON.stringify(join(root, 'results'))}`,
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Query text → the document texts of its gold skills, and the text of every skill, as the protocol builds them. */
  async function goldTexts(): Promise<{ gold: Map<string, Set<string>>; all: Set<string> }> {
    const d = await loadDataset({ path: join(root, 'ds'), split: 'train' });
    const text = new Map(d.skills.map((s) => [s.id, buildDocumentText(s)]));
    const gold = new Map(d.queries.map((q) => [q.text, new Set([...d.qrels.get(q.id)!].filter(([, g]) => g >= 1).map(([s]) => text.get(s)!))]));
    return { gold, all: new Set(text.values()) };
  }

  it('st: deterministic, no gold as a negative, the sentence-transformers triplet shape', async () => {
    const out = join(root, 'st.jsonl');
    const r1 = await mine('--retriever', 'bm25', '--out', out, '--negatives', '4', '--skip-top', '1');
    expect(r1.code, r1.err).toBe(0);
    expect(r1.out).toMatch(/^mined train with bm25: 21 queries of 21, \d+ negatives → .*st\.jsonl \(st, \d+ lines\)/);
    const first = readFileSync(out);
    const firstMeta = readFileSync(`${out}.meta.json`);
    const r2 = await mine('--retriever', 'bm25', '--out', out, '--negatives', '4', '--skip-top', '1');
    expect(r2.code, r2.err).toBe(0);
    expect(readFileSync(out).equals(first)).toBe(true);
    expect(readFileSync(`${out}.meta.json`).equals(firstMeta)).toBe(true);

    // A plain JSONL reader: one JSON object per line, exactly {query, pos, neg}, all strings.
    const lines = first.toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    const rows = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const { gold, all } = await goldTexts();
    const perQuery = new Map<string, Set<string>>();
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(['query', 'pos', 'neg']);
      for (const k of ['query', 'pos', 'neg']) expect(typeof row[k]).toBe('string');
      const g = gold.get(row.query as string)!;
      expect(g.has(row.pos as string)).toBe(true);
      expect(g.has(row.neg as string)).toBe(false);
      expect(all.has(row.neg as string)).toBe(true);
      if (!perQuery.has(row.query as string)) perQuery.set(row.query as string, new Set());
      perQuery.get(row.query as string)!.add(row.neg as string);
    }
    for (const [q, negs] of perQuery) {
      expect(negs.size).toBeLessThanOrEqual(4);
      expect(rows.filter((r) => r.query === q)).toHaveLength(negs.size * gold.get(q)!.size); // each positive × each negative
    }
    const meta = JSON.parse(firstMeta.toString('utf8')) as { file: { sha256: string; lines: number }; guards: { seed: number; skip_top: number }; stage: { retriever: string }; config: { sha256: string }; dataset: { split: string } };
    expect(meta).toMatchObject({ file: { lines: rows.length }, guards: { seed: 42, skip_top: 1 }, stage: { retriever: 'bm25' }, dataset: { split: 'train' } });
    expect((meta as unknown as { counts: { dropped: { sameText: number } } }).counts.dropped.sameText).toBeGreaterThan(0); // the copy of a gold skill
    expect(meta.config.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Another seed draws other negatives (the sample is seeded, not fixed).
    const other = join(root, 'st-seed7.jsonl');
    expect((await mine('--retriever', 'bm25', '--out', other, '--negatives', '4', '--skip-top', '1', '--seed', '7')).code).toBe(0);
    expect(readFileSync(other).equals(first)).toBe(false);
  });

  it('flag: one {query, pos: [..], neg: [..]} line per query; a fusion mined with its inputs; --range deepens the list', async () => {
    const out = join(root, 'flag.jsonl');
    const r = await mine('--retriever', 'fused', '--format', 'flag', '--out', out, '--range', '3:30', '--negatives', '5', '--sampling', 'top', '--max-score-ratio', '0.99');
    expect(r.code, r.err).toBe(0);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { query: string; pos: string[]; neg: string[] });
    const { gold } = await goldTexts();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(['query', 'pos', 'neg']);
      expect(new Set(row.pos)).toEqual(gold.get(row.query));
      expect(row.neg.length).toBeGreaterThan(0);
      expect(row.neg.length).toBeLessThanOrEqual(5);
      for (const n of row.neg) expect(gold.get(row.query)!.has(n)).toBe(false);
    }
    const meta = JSON.parse(readFileSync(`${out}.meta.json`, 'utf8')) as { stage: { params: { top_k: number; type: string } }; guards: { range: { from: number; to: number }; max_score_ratio: number } };
    expect(meta.stage.params).toMatchObject({ type: 'fusion', top_k: 30 });
    expect(meta.guards).toMatchObject({ range: { from: 3, to: 30 }, max_score_ratio: 0.99 });
  });

  it('bad input: one line naming the flag or file, exit 2, nothing written', async () => {
    const out = join(root, 'bad.jsonl');
    for (const [args, msg] of [
      [['--out', out], /--retriever: .*has 3 retrievers \(bm25, bm25b, fused\); name the one to mine from/],
      [['--retriever', 'nope', '--out', out], /--retriever: "nope" is not a retriever of .*\(its retrievers: bm25, bm25b, fused\)/],
      [['--retriever', 'bm25', '--out', out, '--range', '5-9'], /--range: expected a:b/],
      [['--retriever', 'bm25', '--out', out, '--range', '1:2', '--skip-top', '3'], /--range 1:2 lies within --skip-top 3/],
      [['--retriever', 'bm25', '--out', out, '--negatives', '0'], /--negatives: expected an integer ≥ 1/],
      [['--retriever', 'bm25', '--out', out, '--max-score-ratio', '-1'], /--max-score-ratio: expected a positive number/],
      [['--retriever', 'bm25', '--out', join(root, 'no-dir', 'x.jsonl')], /--out: .*no such folder/],
      [['--retriever', 'bm25', '--out', out, '--format', 'csv'], /--format/],
    ] as const) {
      const r = await mine(...args);
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
      expect(r.err).toMatch(msg);
    }
    const missing = await runCli(['mine-negatives', cfg, '--split', 'dev', '--retriever', 'bm25', '--out', out, '--cache-dir', cache(), '-q']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^skillret-eval: --split dev: .*skills\/dev\.jsonl: file not found; .*splits present for skills: test, train$/m);
    expect(missing.err).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
