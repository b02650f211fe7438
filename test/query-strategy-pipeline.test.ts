/**
 * Long-query strategies end to end on the bundled fixture: segment runs through the real BM25
 * stage fused per query (checked against per-sentence BM25 runs fused by hand with RRF), a
 * reranker scoring (sentence, skill) pairs, the comparison with the whole twins in summary.md,
 * segment counts in the manifest, operating points, and one-line config errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from './helpers/cli.js';
import { loadDataset } from '../src/data/dataset.js';
import { buildDocumentText } from '../src/data/text.js';
import { bm25Retrieve } from '../src/retrieval/bm25/query.js';
import { splitSentences } from '../src/query/segment.js';
import { readRunFile } from '../src/formats/run-file.js';
import { trecOrder } from '../src/metrics/rank.js';

const root = resolve(__dirname, '..');

function config(dir: string, body: string): string {
  const f = join(dir, 'exp.yaml');
  writeFileSync(f, `name: t\ndataset: { path: ${join(root, 'data/mini')}, split: test }\nstats: { iterations: 200 }\ncache_dir: ./cache\noutput: ./out\n${body}`);
  return f;
}

describe('query strategies in a run (data/mini)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'qstrat-'));
  const f = config(
    dir,
    `retrievers:
  - { id: bm25, type: bm25, top_k: 10 }
  - { id: bm25-sent, type: bm25, top_k: 10, query: { strategy: sentences, fuse: rrf, rrf_k: 10 } }
  - { id: bm25-win, type: bm25, top_k: 10, query: { strategy: windows, size: 2, stride: 1, fuse: max } }
rerankers:
  - { id: none }
  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 5 }
  - { id: maxsim-sent, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 5, query: { strategy: sentences, fuse: max } }
`,
  );
  const out = join(dir, 'out');
  let res: Awaited<ReturnType<typeof runCli>>;
  let ds: Awaited<ReturnType<typeof loadDataset>>;
  beforeAll(async () => {
    res = await runCli(['run', f, '-q']);
    ds = await loadDataset({ path: join(root, 'data/mini'), split: 'test', skillMdField: 'skill_md', unknownGold: 'error' });
  }, 180_000);

  it('runs and compares every strategy run with its whole twin in summary.md', () => {
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).toContain('| bm25-sent / none [sentences·rrf] |');
    expect(summary).toContain('| bm25-win / none [windows 2/1·max] |');
    expect(summary).toContain('| bm25 / maxsim-sent [whole / sentences·max] |');
    const section = summary.slice(summary.indexOf('## Query strategies vs whole'));
    expect(section).toMatch(/\| bm25-sent \/ none \| sentences·rrf \| bm25 \/ none \| [\d.]+ \| NDCG@10 \|/);
    expect(section).toMatch(/\| bm25 \/ maxsim-sent \| whole \/ sentences·max \| bm25 \/ maxsim \|/);
    expect(section).toMatch(/\| bm25-sent \/ maxsim-sent \| sentences·rrf \/ sentences·max \| bm25 \/ maxsim \|/);
  });

  it('the sentences run is the RRF of per-sentence BM25 runs', async () => {
    const docs = ds.skills.map((s) => ({ id: s.id, text: buildDocumentText(s) }));
    const got = await readRunFile(join(out, 'bm25-sent/none/run.trec'));
    for (const q of ds.queries.slice(0, 4)) {
      const sentences = splitSentences(q.text);
      const per = bm25Retrieve(
        docs.map((d) => d.id),
        docs.map((d) => d.text),
        sentences.map((s, i) => ({ id: String(i), text: s.text })),
        { k: 10 },
      ).run;
      const fused = new Map<string, number>();
      for (const list of per.values()) trecOrder(list).forEach((d, r) => fused.set(d.docId, (fused.get(d.docId) ?? 0) + 1 / (10 + r + 1)));
      const expected = trecOrder([...fused].map(([docId, score]) => ({ docId, score }))).slice(0, 10).map((d) => d.docId);
      expect(trecOrder(got.get(q.id) ?? []).map((d) => d.docId)).toEqual(expected);
    }
  });

  it('records segment counts; the sentence reranker keeps the whole reranker pool', async () => {
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { stages: { id: string; over?: string; info: Record<string, unknown> }[] };
    const total = ds.queries.reduce((n, q) => n + Math.max(1, splitSentences(q.text).length), 0);
    const sent = manifest.stages.find((s) => s.id === 'bm25-sent')!.info.query_strategy as Record<string, unknown>;
    expect(sent).toMatchObject({ strategy: 'sentences', fuse: 'rrf', rrfK: 10, segments: total, queries: ds.queries.length });
    const win = manifest.stages.find((s) => s.id === 'bm25-win')!.info.query_strategy as { segments: number };
    expect(win.segments).toBe(ds.queries.reduce((n, q) => n + Math.max(1, splitSentences(q.text).length - 1), 0));
    const rr = manifest.stages.find((s) => s.id === 'maxsim-sent' && s.over === 'bm25')!.info;
    expect(rr.pairs).toBe(5 * total);
    const a = await readRunFile(join(out, 'bm25/maxsim/run.trec'));
    const b = await readRunFile(join(out, 'bm25/maxsim-sent/run.trec'));
    for (const q of ds.queries) expect(new Set((b.get(q.id) ?? []).map((d) => d.docId))).toEqual(new Set((a.get(q.id) ?? []).map((d) => d.docId)));
  });

  it('writes operating points whose named K agrees with the top-K curve', () => {
    const op = JSON.parse(readFileSync(join(out, 'bm25/none/operating-points.json'), 'utf8')) as {
      target_completeness: number;
      min_k: number | null;
      top_k: { k: number; completeness: number }[];
      tokenizer: string;
    };
    expect(op.tokenizer).toMatch(/cl100k_base/);
    const first = op.top_k.find((p) => p.completeness >= op.target_completeness - 1e-9)?.k ?? null;
    expect(op.min_k).toBe(first);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('## Operating points for skill injection');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    for (const id of ['chart-injection-k', 'chart-injection-budget', 'chart-injection-threshold']) expect(html).toContain(`id="${id}"`);
  });
});

describe('query strategy config errors', () => {
  it('stride above size, rrf for a reranker and rrf_k without rrf fail in one line with the key path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qstrat-bad-'));
    const cases: [string, RegExp][] = [
      [`retrievers:\n  - { id: b, type: bm25, query: { strategy: windows, size: 2, stride: 3 } }\n`, /retrievers\[0\]\.query\.stride: must be at most size \(2\)/],
      [`retrievers:\n  - { id: b, type: bm25 }\nrerankers:\n  - { id: m, type: cross-encoder, model: x, query: { strategy: sentences, fuse: rrf } }\n`, /rerankers\[0\]\.query\.fuse: expected one of "max", "mean"/],
      [`retrievers:\n  - { id: b, type: bm25, query: { strategy: sentences, fuse: max, rrf_k: 5 } }\n`, /retrievers\[0\]\.query\.rrf_k: applies to fuse rrf only/],
      [`retrievers:\n  - { id: b, type: bm25, query: { strategy: sentence } }\n`, /retrievers\[0\]\.query\.strategy: expected one of whole, sentences, windows/],
    ];
    for (const [body, re] of cases) {
      const r = await runCli(['run', config(dir, body), '--dry-run']);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(re);
    }
  });
});
