/**
 * The value checks of `npm run bench` (scripts/bench-checks.mjs, scripts/compare-bm25-runs.mjs,
 * scripts/bench.mjs): before a section reports a speed it compares the values of what it times
 * with a reference, and a section whose values differ is reported as FAILED, with its first
 * differences and no speed, and the bench exits non-zero.
 *
 * Nothing here times anything or needs trec_eval or bm25s. Each check is fed a tampered input and
 * must fail: a run with one doc id changed, a metric off by 1e-5 (rounded means, per-query values,
 * metrics.json, a trec_eval value), one document of a BM25 top list, one byte of a results file,
 * one document of an exact top-k, one ulp of a vector; the untampered inputs must pass. Real
 * differential checks that must pass: the plain reading + Map-based evaluator against
 * `skillret-eval score --format json` on data/mini with a tied run, and against the metrics.json /
 * per-query.jsonl of a real `skillret-eval run` (BM25 on data/mini); the plain top-k against the
 * project's exact kernel. And end to end: `scripts/bench.mjs --only score` with
 * SKILLRET_BENCH_TAMPER=score writes a FAILED score section without a speed and exits 1.
 * Uses the compiled CLI (dist/, built by the pretest step).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agreesWithPrinted,
  Check,
  cFixed,
  compareEvaluations,
  compareResultFiles,
  compareRounding,
  compareTopK,
  compareVectors,
  defaultKeys,
  exitCodeFor,
  ourScore,
  plainEvaluation,
  plainReadQrelsJsonl,
  plainTopK,
  requireChecks,
  resultFileBytes,
  resultsFolderChecks,
  runSections,
  scoreChecks,
  trecEvalValues,
  trecQrelsText,
  ValuesDiffer,
} from '../scripts/bench-checks.mjs';
import { bm25RankingsCheck, type Bm25Hits } from '../scripts/compare-bm25-runs.mjs';
import { formatFixed } from '../src/util/python-round.js';
import { exactTopK } from '../src/retrieval/dense/indexes/exact.js';

const REPO = resolve(__dirname, '..');
const CLI = join(REPO, 'bin', 'skillret-eval.js');
const MINI = join(REPO, 'data', 'mini');
const KS = [5, 10, 15];
let dir: string;
let qrelsPath: string;
let runPath: string;
let runText: string;
/** A query whose gold document the run puts first (the target of the tampering). */
let tamperQuery: string;
let tamperGold: string;

/** A seeded run over data/mini's skills: coarse scores (many ties), depth 1 to 12, one qrels query left out. */
function miniRun(): string {
  const skills = readFileSync(join(MINI, 'skills', 'test.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => String((JSON.parse(l) as { id: string }).id));
  const qrels = plainReadQrelsJsonl(readFileSync(join(MINI, 'qrels', 'test.jsonl'), 'utf8'));
  let s = 5;
  const rand = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const lines: string[] = [];
  [...qrels.keys()].forEach((q, i) => {
    if (i === 3) return; // missing from the run: skipped by both
    const gold = [...qrels.get(q)!.keys()];
    const depth = 1 + (i % 12);
    const seen = new Set<string>();
    if (i === 0) {
      tamperQuery = q;
      tamperGold = gold[0]!;
      seen.add(tamperGold);
      lines.push(`${q} Q0 ${tamperGold} 1 9 t`);
    }
    while (seen.size < depth) {
      const d = rand() < 0.3 ? gold[Math.floor(rand() * gold.length)]! : skills[Math.floor(rand() * skills.length)]!;
      if (seen.has(d)) continue;
      seen.add(d);
      lines.push(`${q} Q0 ${d} ${seen.size} ${Math.floor(rand() * 4) / 2} t`);
    }
  });
  return lines.join('\n') + '\n';
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-checks-'));
  qrelsPath = join(dir, 'qrels.trec');
  runPath = join(dir, 'run.trec');
  writeFileSync(qrelsPath, trecQrelsText(plainReadQrelsJsonl(readFileSync(join(MINI, 'qrels', 'test.jsonl'), 'utf8'))));
  runText = miniRun();
  writeFileSync(runPath, runText);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checks and the section loop', () => {
  it('a check counts what it compared, keeps the first differences, and fails when nothing was compared', () => {
    const c = new Check('values', 'reference');
    expect(c.ok).toBe(false); // nothing compared: a check never passes by disappearing
    c.same('a', 1, 1);
    expect(c.ok).toBe(true);
    expect(c.same('b', 0, -0)).toBe(false); // Object.is: the sign of zero counts
    for (let i = 0; i < 30; i++) c.same(`c${i}`, i, i + 1);
    expect(c.ok).toBe(false);
    expect(c.compared).toBe(32);
    expect(c.differing).toBe(31);
    expect(c.differences).toHaveLength(10);
    expect(c.differences[0]).toEqual({ where: 'b', ours: '0', reference: '-0' });
    expect(c.line()).toMatch(/^- FAILED: values \(against reference\): 31 of 32 values differ/);
    expect(Check.from(c.toJSON()).toJSON()).toEqual(c.toJSON());
    expect(() => requireChecks('s', [c])).toThrow(ValuesDiffer);
    expect(() => requireChecks('s', [])).toThrow(ValuesDiffer);
  });

  it('a section whose values differ is reported as FAILED with its differences and no speed, and the exit code is 1', async () => {
    const sections: string[] = [];
    const json: Record<string, unknown> = {};
    const failures = await runSections(
      [
        ['good', () => void sections.push('## good\n\n1.25 s')],
        [
          'bad',
          () => {
            const c = new Check('per-query values', 'trec_eval');
            c.same('q-1 NDCG@10', 0.50001, 0.5);
            requireChecks('bad', [c]);
            sections.push('## bad\n\n9.75 s'); // never reached
          },
        ],
        ['broken', () => Promise.reject(new Error('no such file'))],
        ['skipped', () => void sections.push('## skipped')],
      ],
      { want: (n) => n !== 'skipped', sections, json, log: () => {} },
    );
    expect(failures.map((f) => [f.section, f.valuesDiffer])).toEqual([
      ['bad', true],
      ['broken', false],
    ]);
    const md = sections.join('\n');
    expect(md).toContain('## good\n\n1.25 s');
    expect(md).toContain('## bad: FAILED');
    expect(md).toContain('no speed is reported');
    expect(md).toContain('| q-1 NDCG@10 | 0.50001 | 0.5 |');
    expect(md).not.toContain('9.75 s');
    expect(md).toContain('## broken: FAILED\n\nno such file');
    expect(md).not.toContain('## skipped');
    expect(json['bad']).toMatchObject({ failed: true, checks: [{ ok: false, differing: 1 }] });
    expect(exitCodeFor(failures)).toBe(1);
    expect(exitCodeFor([])).toBe(0);
  });
});

describe('score: skillret-eval score against its references', () => {
  it('agrees with the Map-based evaluator on a plain reading of data/mini (a real differential check)', async () => {
    const { checks, metrics } = await scoreChecks({ node: process.execPath, cli: CLI, qrelsPath, runPath });
    for (const c of checks) expect(c.ok, c.line() + JSON.stringify(c.differences)).toBe(true);
    expect(checks.map((c) => c.compared)).toEqual([18, 20 * 18 + 18]); // 20 evaluated queries (one left out of the run)
    expect(Object.keys(metrics)).toEqual(defaultKeys(KS));
  });

  it('fails when the run it is checked against has one doc id changed', async () => {
    const ours = await ourScore(process.execPath, CLI, qrelsPath, runPath, KS);
    const tampered = runText.replace(`${tamperQuery} Q0 ${tamperGold} 1 9 t`, `${tamperQuery} Q0 not-a-skill 1 9 t`);
    expect(tampered).not.toBe(runText);
    const plain = await plainEvaluation(readFileSync(qrelsPath, 'utf8'), tampered, KS);
    const c = new Check('per-query values', 'plain');
    compareEvaluations(c, ours, plain, defaultKeys(KS), (a, b) => Object.is(a, b));
    expect(c.ok).toBe(false);
    expect(c.differences.some((d) => d.where.startsWith(`${tamperQuery} `))).toBe(true);
    const untampered = await plainEvaluation(readFileSync(qrelsPath, 'utf8'), runText, KS);
    const same = new Check('per-query values', 'plain');
    compareEvaluations(same, ours, untampered, defaultKeys(KS), (a, b) => Object.is(a, b));
    expect(same.ok).toBe(true);
  });

  it('fails when one value is off by 1e-5: a rounded mean, a per-query value', async () => {
    const ours = await ourScore(process.execPath, CLI, qrelsPath, runPath, KS);
    const keys = defaultKeys(KS);
    const rounding = new Check('metrics', 'means rounded');
    compareRounding(rounding, { ...ours.metrics, 'NDCG@10': ours.metrics['NDCG@10']! + 1e-5 }, ours.means, keys);
    expect(rounding.ok).toBe(false);
    expect(rounding.differences.map((d) => d.where)).toEqual(['metrics NDCG@10']);
    const plain = await plainEvaluation(readFileSync(qrelsPath, 'utf8'), runText, KS);
    const perQuery = new Map(ours.perQuery);
    perQuery.set(tamperQuery, { ...perQuery.get(tamperQuery)!, 'MRR@5': perQuery.get(tamperQuery)!['MRR@5']! - 1e-5 });
    const c = new Check('per-query values', 'plain');
    compareEvaluations(c, { perQuery, means: ours.means }, plain, keys, (a, b) => Object.is(a, b));
    expect(c.differences.map((d) => d.where)).toEqual([`${tamperQuery} MRR@5`]);
  });
});

describe("trec_eval's printed values", () => {
  it("cFixed prints as C's printf and Python do: the exact binary value, exact ties to even", () => {
    expect(cFixed(1 / 32, 4)).toBe('0.0312');
    expect(cFixed(3 / 32, 4)).toBe('0.0938');
    expect(cFixed(0.125, 2)).toBe('0.12');
    expect(cFixed(2.675, 2)).toBe('2.67'); // stored as 2.67499999…
    expect(cFixed(1, 4)).toBe('1.0000');
    expect(cFixed(0, 4)).toBe('0.0000');
    let s = 3;
    const rand = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 3000; i++) {
      const x = i % 3 === 0 ? Math.floor(rand() * 4096) / 2 ** (1 + (i % 17)) : i % 3 === 1 ? rand() : Math.floor(rand() * 1e6) / 1e5;
      for (const d of [4, 5]) expect(cFixed(x, d), `${x} ${d}`).toBe(formatFixed(x, d));
    }
  });

  /** trec_eval -q output lines, measure → qid → printed value. */
  const teText = (rows: [string, string, string][]): string => rows.map(([m, q, v]) => `${m.padEnd(22)}\t${q}\t${v}`).join('\n') + '\n';

  it('reads Completeness@k from recall@k = 1 and MRR@k from recip_rank with -M k, and fails on a value that prints differently', () => {
    const ks = [1, 2];
    const calls: string[][] = [];
    const fake = (args: string[]): string => {
      calls.push(args);
      const cut = args.includes('-M') ? Number(args[args.indexOf('-M') + 1]) : 0;
      if (cut === 1) return teText([['recip_rank', 'a', '0.0000'], ['recip_rank', 'b', '1.0000'], ['recip_rank', 'all', '0.5000']]);
      if (cut === 2) return teText([['recip_rank', 'a', '0.5000'], ['recip_rank', 'b', '1.0000'], ['recip_rank', 'all', '0.7500']]);
      const rows: [string, string, string][] = [];
      const v: Record<string, [string, string, string]> = {
        ndcg_cut_1: ['0.0000', '1.0000', '0.5000'],
        ndcg_cut_2: ['0.3869', '1.0000', '0.6934'],
        map_cut_1: ['0.0000', '1.0000', '0.5000'],
        map_cut_2: ['0.2500', '1.0000', '0.6250'],
        recall_1: ['0.0000', '1.0000', '0.5000'],
        recall_2: ['0.5000', '1.0000', '0.7500'],
        P_1: ['0.0000', '1.0000', '0.5000'],
        P_2: ['0.5000', '0.5000', '0.5000'],
      };
      for (const [m, [a, b, all]] of Object.entries(v)) rows.push([m, 'a', a], [m, 'b', b], [m, 'all', all]);
      return teText(rows);
    };
    const te = trecEvalValues(fake, 'q', 'r', ks);
    expect(calls.map((a) => a.join(' '))).toEqual([
      '-q -m ndcg_cut.1,2 -m map_cut.1,2 -m recall.1,2 -m P.1,2 q r',
      '-q -M 1 -m recip_rank q r',
      '-q -M 2 -m recip_rank q r',
    ]);
    expect(te.precision).toBe('4 decimals');
    expect(te.perQuery.get('a')).toMatchObject({ 'Completeness@1': '0', 'Completeness@2': '0', 'MRR@1': '0.0000', 'MRR@2': '0.5000' });
    expect(te.perQuery.get('b')).toMatchObject({ 'Completeness@1': '1', 'Completeness@2': '1', 'MRR@2': '1.0000' });
    expect(te.means).toMatchObject({ 'Completeness@1': '0.5', 'NDCG@2': '0.6934', 'MRR@2': '0.7500' });

    // Our values for the same two queries (two relevant documents for a, one for b).
    const ndcg2a = 1 / Math.log2(3) / (1 + 1 / Math.log2(3));
    const a = { 'NDCG@1': 0, 'NDCG@2': ndcg2a, 'MAP@1': 0, 'MAP@2': 0.25, 'Recall@1': 0, 'Recall@2': 0.5, 'Precision@1': 0, 'Precision@2': 0.5, 'Completeness@1': 0, 'Completeness@2': 0, 'MRR@1': 0, 'MRR@2': 0.5 };
    const b = { 'NDCG@1': 1, 'NDCG@2': 1, 'MAP@1': 1, 'MAP@2': 1, 'Recall@1': 1, 'Recall@2': 1, 'Precision@1': 1, 'Precision@2': 0.5, 'Completeness@1': 1, 'Completeness@2': 1, 'MRR@1': 1, 'MRR@2': 1 };
    const keys = defaultKeys(ks);
    const means = Object.fromEntries(keys.map((k) => [k, (a[k as keyof typeof a] + b[k as keyof typeof b]) / 2]));
    const agree = (o: number, r: string, k: string): boolean => (k.startsWith('Completeness@') ? o === Number(r) : cFixed(o, 4) === r);
    const ok = new Check('ours', 'trec_eval');
    compareEvaluations(ok, { perQuery: new Map([['a', a], ['b', b]]), means }, { perQuery: te.perQuery, means: te.means }, keys, agree);
    expect(ok.ok, JSON.stringify(ok.differences)).toBe(true);
    // A value that prints differently at trec_eval's 4 decimals fails.
    const bad = new Check('ours', 'trec_eval');
    compareEvaluations(bad, { perQuery: new Map([['a', { ...a, 'Precision@2': 0.49994 }], ['b', b]]), means }, { perQuery: te.perQuery, means: te.means }, keys, agree);
    expect(bad.differences.map((d) => d.where)).toEqual(['a Precision@2']);
    // A query trec_eval evaluated that we did not, and the other way round.
    const missing = new Check('ours', 'trec_eval');
    compareEvaluations(missing, { perQuery: new Map([['a', a], ['c', b]]), means }, { perQuery: te.perQuery, means: te.means }, keys, agree);
    expect(missing.differences.slice(0, 2).map((d) => d.where)).toEqual(['query b', 'query c']);
  });

  it('compares every bit against a %.17g build', () => {
    const te = trecEvalValues(() => teText([['P_1', 'a', '0.10000000000000001'], ['P_1', 'all', '0.1'], ['recall_1', 'a', '1'], ['recall_1', 'all', '1'], ['ndcg_cut_1', 'a', '1'], ['ndcg_cut_1', 'all', '1'], ['map_cut_1', 'a', '1'], ['map_cut_1', 'all', '1'], ['recip_rank', 'a', '1'], ['recip_rank', 'all', '1']]), 'q', 'r', [1]);
    expect(te.precision).toBe('full');
    expect(te.perQuery.get('a')!['Precision@1']).toBe('0.10000000000000001');
    expect(agreesWithPrinted(0.1, '0.10000000000000001', te.precision)).toBe(true);
    expect(agreesWithPrinted(0.1 + 2 ** -56, '0.10000000000000001', te.precision)).toBe(false);
  });
});

describe('BM25 rankings against bm25s (or the plain path)', () => {
  const ref: Bm25Hits = {
    q1: [['d3', 5.5], ['d2', 4], ['d1', 4], ['d9', 1]],
    q2: [['d7', 2], ['d8', 1.25]],
  };
  const trec = (hits: Bm25Hits): string =>
    Object.entries(hits)
      .flatMap(([q, l]) => l.map(([d, s], i) => `${q} Q0 ${d} ${i + 1} ${s} bm25`))
      .join('\n') + '\n';

  it('passes on the same lists, and on lists that differ only in the order of exactly tied scores', () => {
    expect(bm25RankingsCheck(trec(ref), ref, 'ours', 'bm25s').check.ok).toBe(true);
    const swapped = { ...ref, q1: [ref.q1![0]!, ref.q1![2]!, ref.q1![1]!, ref.q1![3]!] };
    const r = bm25RankingsCheck(trec(swapped), ref, 'ours', 'bm25s');
    expect(r.check.ok).toBe(true);
    expect(r.counts.tieOrderOnly).toBe(1);
  });

  it('fails on one doc id changed, one score changed, or a query bm25s does not have', () => {
    // (At the last place, another document with the same score is a tie at the cut, not a difference.)
    expect(bm25RankingsCheck(trec({ ...ref, q2: [['d7', 2], ['d6', 1.25]] }), ref, 'ours', 'bm25s').check.ok).toBe(true);
    const oneDoc = { ...ref, q1: [['d3', 5.5], ['d4', 4], ['d1', 4], ['d9', 1]] as [string, number][] };
    const r = bm25RankingsCheck(trec(oneDoc), ref, 'ours', 'bm25s');
    expect(r.check.ok).toBe(false);
    expect(r.check.differences).toEqual([{ where: 'query q1 rank 2', ours: 'd4 4', reference: 'd2 4' }]);
    const oneScore = { ...ref, q1: [['d3', 5.5], ['d2', 4], ['d1', 4], ['d9', 1.0000001]] as [string, number][] };
    expect(bm25RankingsCheck(trec(oneScore), ref, 'ours', 'bm25s').check.ok).toBe(false);
    const extra = { ...ref, q3: [['d1', 1]] as [string, number][] };
    const e = bm25RankingsCheck(trec(extra), ref, 'ours', 'bm25s');
    expect(e.check.ok).toBe(false);
    expect(e.counts.extra).toBe(1);
  });
});

describe('results folders: a real `skillret-eval run` on data/mini', () => {
  let out: string;
  beforeAll(() => {
    const config = join(dir, 'mini.yaml');
    out = join(dir, 'out');
    writeFileSync(config, `name: mini\ndataset: { path: ${MINI}, split: test }\nk: [5, 10, 15]\nretrievers:\n  - { id: bm25, type: bm25, top_k: 20 }\noutput: ${out}\ncache_dir: ${join(dir, 'cache')}\n`);
    const r = spawnSync(process.execPath, [CLI, 'run', config, '-q', '--offline'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
  const qrels = (): string => readFileSync(join(MINI, 'qrels', 'test.jsonl'), 'utf8');

  it("the run's metrics.json and per-query.jsonl agree with the Map-based evaluator on its run.trec, read plainly", async () => {
    const checks = await resultsFolderChecks(out, qrels());
    expect(checks.map((c) => [c.name.split(':')[0], c.ok])).toEqual([['bm25/none', true]]);
    expect(checks[0]!.compared).toBe(18 + 21 * 18);
  });

  it('fails when a metrics.json value is off by 1e-5, or a per-query value is', async () => {
    const copy = join(dir, 'out-tampered');
    cpSync(out, copy, { recursive: true });
    const mj = join(copy, 'bm25', 'none', 'metrics.json');
    const m = JSON.parse(readFileSync(mj, 'utf8')) as { metrics: Record<string, number> };
    m.metrics['Recall@10'] = m.metrics['Recall@10']! - 1e-5;
    writeFileSync(mj, JSON.stringify(m, null, 2));
    let [c] = await resultsFolderChecks(copy, qrels());
    expect(c!.differences.map((d) => d.where)).toEqual(['metrics Recall@10']);
    cpSync(join(out, 'bm25', 'none', 'metrics.json'), mj);
    const pq = join(copy, 'bm25', 'none', 'per-query.jsonl');
    const lines = readFileSync(pq, 'utf8').split('\n');
    const first = JSON.parse(lines[0]!) as { id: string; metrics: Record<string, number> };
    first.metrics['NDCG@5'] = first.metrics['NDCG@5']! + 1e-5;
    lines[0] = JSON.stringify(first);
    writeFileSync(pq, lines.join('\n'));
    [c] = await resultsFolderChecks(copy, qrels());
    expect(c!.differences.map((d) => d.where)).toEqual([`${first.id} NDCG@5`]);
  });

  it("fails when one byte of a results file differs from the reference run's", () => {
    const ref = resultFileBytes(out);
    expect([...ref.keys()].sort()).toEqual(['bm25/none/breakdown.json', 'bm25/none/metrics.json', 'bm25/none/operating-points.json', 'bm25/none/per-query.jsonl', 'bm25/none/run.trec', 'report.html']);
    const same = new Check('files', 'cold');
    compareResultFiles(same, resultFileBytes(out), ref);
    expect(same.ok).toBe(true);
    const ours = new Map(ref);
    const run = Buffer.from(ref.get('bm25/none/run.trec')!);
    run[40] = run[40] === 0x31 ? 0x32 : 0x31;
    ours.set('bm25/none/run.trec', run);
    ours.delete('report.html');
    const c = new Check('files', 'cold');
    compareResultFiles(c, ours, ref);
    expect(c.differences.map((d) => d.where)).toEqual(['bm25/none/run.trec', 'report.html']);
    expect(c.differences[0]!.ours).toMatch(/^byte 40: /);
  });
});

describe('dense: exact top-k and vectors', () => {
  /** Unit-ish vectors with exact duplicates (tied scores). */
  function matrix(rows: number, dim: number, seed: number): { data: Float32Array; rows: number; dim: number } {
    let s = seed;
    const rand = (): number => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    const data = new Float32Array(rows * dim);
    for (let r = 0; r < rows; r++) for (let j = 0; j < dim; j++) data[r * dim + j] = r % 7 === 3 && r > 3 ? data[(r - 1) * dim + j]! : Math.round((rand() - 0.5) * 16) / 8;
    return { data, rows, dim };
  }

  it("the plain dot-product search equals the project's exact kernel, and a changed document fails", () => {
    const docs = matrix(300, 12, 1);
    const queries = matrix(9, 12, 2);
    const ids = Array.from({ length: docs.rows }, (_, i) => `d${(i * 37) % 1000}`);
    const exact = exactTopK(docs, ids, queries, 10);
    const c = new Check('exact', 'plain');
    for (let q = 0; q < queries.rows; q++) compareTopK(c, `query ${q}`, exact[q]!, plainTopK(docs, ids, queries, q, 10));
    expect(c.ok, JSON.stringify(c.differences)).toBe(true);
    expect(c.compared).toBe(90);
    const wrong = { indices: Int32Array.from(exact[4]!.indices), scores: exact[4]!.scores };
    wrong.indices[9] = (wrong.indices[9]! + 1) % docs.rows;
    const bad = new Check('exact', 'plain');
    compareTopK(bad, 'query 4', wrong, plainTopK(docs, ids, queries, 4, 10));
    expect(bad.differences.map((d) => d.where)).toEqual(['query 4 rank 10']);
  });

  it('vectors one ulp apart fail', () => {
    const a = [Float32Array.of(0.25, -0.5, 1), Float32Array.of(0.1, 0.2, 0.3)];
    const b = a.map((v) => Float32Array.from(v));
    const ok = new Check('vectors', 'raw');
    compareVectors(ok, a, b);
    expect(ok.ok).toBe(true);
    const bits = new Uint32Array(b[1]!.buffer);
    bits[2]! += 1;
    const bad = new Check('vectors', 'raw');
    compareVectors(bad, a, b);
    expect(bad.differences.map((d) => d.where)).toEqual(['text 1 component 2']);
  });
});

describe('the bench process', () => {
  it('with one value of ours moved (SKILLRET_BENCH_TAMPER=score), the score section is FAILED, nothing is timed, and the bench exits 1', () => {
    const out = join(dir, 'bench-out');
    const work = join(dir, 'bench-work');
    mkdirSync(work, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, SKILLRET_BENCH_TAMPER: 'score' };
    delete env['TREC_EVAL'];
    const r = spawnSync(process.execPath, ['scripts/bench.mjs', '--only', 'score', '--runs', '1', '--fullsize', 'none', '--work', work, '--out', out], { cwd: REPO, env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(1);
    const md = readFileSync(join(out, 'report.md'), 'utf8');
    expect(md).toContain('## score: FAILED');
    expect(md).toContain('no speed is reported');
    expect(md).toMatch(/\| metrics NDCG@10 \| [\d.]+ \| [\d.]+ \|/);
    expect(md).toContain('| score: section FAILED | values differ from the reference: no speed reported |');
    expect(md).not.toContain('| skillret-eval score |'); // the timing table
    expect(r.stderr).not.toMatch(/Profile|cpu-prof/);
    const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { failures: { section: string; valuesDiffer: boolean }[]; score: { failed: boolean } };
    expect(json.failures).toEqual([expect.objectContaining({ section: 'score', valuesDiffer: true })]);
    expect(json.score.failed).toBe(true);
  });
});
