/**
 * The typed-array evaluation path (metrics/tables.ts, evaluateTables, formats/judged-files.ts)
 * against a reference written the plain way: each ranking sorted by `trecOrder`, its grades looked
 * up in the judgement Map (`rankedGrades`), every measure called per query, the mean summed in
 * query-id byte order. Bit-identical per-query values and means, on random runs with exact score
 * ties, long rankings (the sort path), queries split across the file, missing and extra queries,
 * non-positive grades and doc ids equal to the query id; and the file readers' tables equal the
 * Map readers'.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Qrels, Run, ScoredDoc } from '../src/core/types.js';
import { readJudgedFiles } from '../src/formats/judged-files.js';
import { readTrecQrels } from '../src/formats/trec-qrels.js';
import { formatTrecRun, readTrecRun } from '../src/formats/trec-run.js';
import { evaluate, evaluateTables, MEASURE_FNS } from '../src/metrics/evaluate.js';
import { defaultMeasures, measureKey, parseMeasures } from '../src/metrics/measures.js';
import { compareUtf8, trecOrder } from '../src/metrics/rank.js';
import { rankedGrades } from '../src/metrics/relevance.js';
import { qrelsFromTable, runFromTable, tablesFromMaps } from '../src/metrics/tables.js';
import { mulberry32 } from './helpers/mulberry32.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

const prng = mulberry32;

const IDS = ['d', 'D', 'é', '🙂', '\ue000', 'z', 'doc-'];

function randomCase(seed: number): { qrels: Qrels; run: Run } {
  const r = prng(seed);
  const qrels: Qrels = new Map();
  const run: Run = new Map();
  const nq = 60;
  for (let q = 0; q < nq; q++) {
    const qid = `q${q}`;
    const pool = Array.from({ length: 120 }, (_, i) => `${IDS[i % IDS.length]!}${i}`);
    if (r() < 0.9) {
      const judged = new Map<string, number>();
      const ng = Math.floor(r() * 8);
      for (let i = 0; i < ng; i++) judged.set(pool[Math.floor(r() * pool.length)]!, Math.floor(r() * 5) - 1);
      if (r() < 0.1) judged.set(qid, 1);
      qrels.set(qid, judged);
    }
    if (r() < 0.9) {
      const len = r() < 0.2 ? 40 + Math.floor(r() * 60) : Math.floor(r() * 25);
      const docs: ScoredDoc[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < len; i++) {
        const d = r() < 0.03 ? qid : pool[Math.floor(r() * pool.length)]!;
        if (seen.has(d)) continue;
        seen.add(d);
        // few distinct scores: many exact ties, -0 and 0 among them
        const s = r() < 0.5 ? Math.floor(r() * 4) / 2 : r() < 0.1 ? -0 : r() * 10 - 3;
        docs.push({ docId: d, score: s });
      }
      run.set(qid, docs);
    }
  }
  run.set('only-in-run', [{ docId: 'x', score: 1 }]);
  return { qrels, run };
}

/** The reference: per query, trecOrder + Map lookups; the mean in query-id byte order. */
function reference(qrels: Qrels, run: Run, keys: string[]) {
  const measures = parseMeasures(keys);
  const per = new Map<string, number[]>();
  for (const [qid, judged] of qrels) {
    const docs = run.get(qid);
    if (docs === undefined) continue;
    const g = rankedGrades(trecOrder(docs), judged);
    per.set(qid, measures.map((m) => MEASURE_FNS[m.name](g, m.k)));
  }
  const qids = [...per.keys()].sort(compareUtf8);
  const means = measures.map((_, j) => qids.reduce((s, q) => s + per.get(q)![j]!, 0) / qids.length);
  return { per, means };
}

const KEYS = defaultMeasures([1, 3, 5, 10, 20, 50]).map(measureKey);

describe('evaluateTables equals the plain reference', () => {
  it.each([1, 2, 3, 4, 5, 6])('bit for bit on a random case (seed %i)', (seed) => {
    const { qrels, run } = randomCase(seed);
    const ref = reference(qrels, run, KEYS);
    const e = evaluate(qrels, run, parseMeasures(KEYS));
    expect([...e.perQuery.keys()]).toEqual([...ref.per.keys()]);
    for (const [qid, vals] of ref.per) {
      const rec = e.perQuery.get(qid)!;
      KEYS.forEach((k, j) => expect(Object.is(rec[k], vals[j]), `${qid} ${k}`).toBe(true));
    }
    KEYS.forEach((k, j) => expect(Object.is(e.aggregate[k], ref.means[j]), k).toBe(true));
    expect(e.counts.notInQrels).toContain('only-in-run');
  });

  it('reads two TREC files into the same evaluation as the Map readers', async () => {
    for (const seed of [7, 8]) {
      const { qrels, run } = randomCase(seed);
      // every query split in two parts, the second after all the others
      const lines = formatTrecRun(run, 't').trimEnd().split('\n');
      const firstHalf = lines.filter((_, i) => i % 3 !== 0);
      const secondHalf = lines.filter((_, i) => i % 3 === 0);
      const runPath = file([...firstHalf, ...secondHalf].join('\n') + '\n');
      const qrelsText = [...qrels].flatMap(([q, m]) => [...m].map(([d, g]) => `${q} 0 ${d} ${g}`)).join('\n') + '\n';
      const qrelsPath = file(qrelsText);
      const t = await readJudgedFiles(qrelsPath, runPath);
      const viaMaps = tablesFromMaps(await readTrecQrels(qrelsPath), await readTrecRun(runPath));
      expect(runFromTable(t.run, t.docIds)).toEqual(runFromTable(viaMaps.run, viaMaps.docIds));
      expect(qrelsFromTable(t.qrels, t.docIds)).toEqual(qrelsFromTable(viaMaps.qrels, viaMaps.docIds));
      const a = evaluateTables(t, parseMeasures(KEYS));
      const b = evaluateTables(viaMaps, parseMeasures(KEYS));
      expect(a.aggregate).toEqual(b.aggregate);
      expect(a.counts).toEqual(b.counts);
      expect([...a.perQuery]).toEqual([...b.perQuery]);
      // and the reference on what the files hold (an empty ranking writes no line)
      const ref = reference(await readTrecQrels(qrelsPath), await readTrecRun(runPath), KEYS);
      KEYS.forEach((k, j) => expect(Object.is(a.aggregate[k], ref.means[j]), k).toBe(true));
    }
  });

  it('reads a TREC qrels file with a JSON run, and JSONL qrels with a TREC run', async () => {
    const qrelsTrec = file('q1 0 a 1\nq1 0 b 2\nq2 0 c 1\n');
    const qrelsJsonl = file('{"query_id":"q1","skill_id":"a","relevance":1}\n{"query_id":"q1","skill_id":"b","relevance":2}\n{"query_id":"q2","skill_id":"c","relevance":1}\n');
    const runTrec = file('q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\nq2 Q0 x 1 1 t\nq2 Q0 c 2 0.5 t\n');
    const runJson = file(JSON.stringify({ q1: { b: 2, a: 1 }, q2: { x: 1, c: 0.5 } }));
    const ms = parseMeasures(KEYS);
    const base = evaluateTables(await readJudgedFiles(qrelsTrec, runTrec), ms).aggregate;
    expect(evaluateTables(await readJudgedFiles(qrelsTrec, runJson), ms).aggregate).toEqual(base);
    expect(evaluateTables(await readJudgedFiles(qrelsJsonl, runTrec), ms).aggregate).toEqual(base);
    expect(evaluateTables(await readJudgedFiles(qrelsJsonl, runJson), ms).aggregate).toEqual(base);
    expect(base['NDCG@5']).toBeCloseTo(((2 / 1 + 1 / Math.log2(3)) / (2 + 1 / Math.log2(3)) + 1 / Math.log2(3)) / 2, 15);
  });
});

describe('duplicate doc ids while queries interleave', () => {
  it('finds a duplicate when every line changes query, naming the first line', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 50; i++) for (const q of ['qa', 'qb', 'qc']) lines.push(`${q} Q0 d${i} ${i + 1} 1 t`);
    expect((await readTrecRun(file(lines.join('\n') + '\n'))).get('qb')!.length).toBe(50);
    await expect(readTrecRun(file([...lines, 'qb Q0 d7 99 1 t'].join('\n') + '\n'))).rejects.toThrow(/:151: docid: "d7" appears twice for query "qb" \(first at line 23\)$/);
    const q = [...Array(30).keys()].flatMap((i) => [`qa 0 d${i} 1`, `qb 0 d${i} 0`]);
    await expect(readTrecQrels(file([...q, 'qa 0 d3 1'].join('\n') + '\n'))).rejects.toThrow(/:61: docid: "d3" judged twice for query "qa" \(first at line 7\)$/);
  });
});
