/**
 * The TREC run and qrels readers (src/formats/trec-run.ts, trec-qrels.ts, query-rows.ts,
 * judged-files.ts, over the byte scanner and ColumnInterner of trec-columns.ts) against their plain
 * definitions (test/helpers/plain-trec.ts: the line reader, a regex split and Maps keyed by the
 * decoded strings, same checks and messages), and `evaluate` fed by them against `evaluate` fed by
 * the Map readings (the end-to-end shape of the interner bug: a doc id given a second number made
 * `score` undercount hits at full size).
 *
 * Capacities crossed: distinct doc ids 2^k ± 2 for k = 4..13 (the interner's slot table 1024,
 * hashes 512, offsets 513, byte arena 16 KiB with long ids; QueryRows' `mark` 1024, all doubled),
 * rows 1024·2^k ± 2 up to 16384 (QueryRows' five row arrays), queries 256·2^k ± 2 (its three query
 * arrays), files past BATCH_LINES = 4096 lines; docs repeated across queries, queries that come back
 * after others (their documents re-marked), ties and every score spelling, grades with signs and
 * leading zeros, a duplicate (query, doc) anywhere (same error, same two lines). `readJudgedFiles`
 * shares one interner between the qrels and the run (qrels-only ids first).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { readJudgedFiles } from '../src/formats/judged-files.js';
import { readTrecQrels } from '../src/formats/trec-qrels.js';
import { readTrecRun } from '../src/formats/trec-run.js';
import { evaluate, evaluateTables } from '../src/metrics/evaluate.js';
import { defaultMeasures } from '../src/metrics/measures.js';
import { around, makeId, outcome, plainTrecQrels, plainTrecRun, prng } from './helpers/plain-trec.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-readers-prop-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function file(content: string): string {
  const p = join(dir, `f${fileNo++}.txt`);
  writeFileSync(p, content);
  return p;
}

const SEPS = [' ', '\t', '  ', ' \t ', '\f', '\v', '\r', ' \r ', '\t\v\f '];

/** Distinct doc-id counts at every size where an array of the interner or of QueryRows.mark grows. */
const DOC_COUNTS = Array.from({ length: 10 }, (_, k) => 2 ** (k + 4)).flatMap((p) => around(p));
/** Row counts around QueryRows' row arrays (1024, doubled), and small ones. */
const ROW_COUNTS = [1, 2, 3, 31, 32, 33, ...[1024, 2048, 4096, 8192, 16384].flatMap((p) => around(p))];
/** Query counts around QueryRows' query arrays (256, doubled). */
const QUERY_COUNTS = [1, 2, 3, ...[256, 512].flatMap((p) => around(p))];

function queryId(i: number, shape: number): string {
  return [`q${i}`, `${i}`, `é${i}`, `Q-${i.toString(36)}`][shape]!;
}

const SCORE_FORMS: Array<(r: () => number) => string> = [
  (r) => String(Math.floor(r() * 3)), // ties
  (r) => ['-0', '0', '0.000', '+1', '1.', '.5', '5e-1'][Math.floor(r() * 7)]!, // ties in other spellings
  (r) => (r() * 40).toFixed(6),
  (r) => String(Math.fround(r() * 30)),
  (r) => (r() * 1e-5).toExponential(3),
  (r) => `${Math.floor(r() * 1e6)}E${Math.floor(r() * 40) - 20}`,
  (r) => `${(r() * 10).toFixed(20)}`,
  (r) => '12345678901234567890.123456789',
];
const GRADES = ['0', '1', '2', '3', '-1', '+2', '007', '-0', '1', '1'];

type Dup = 'none' | 'run' | 'run at 1024·2^j' | 'qrels';

interface TrecFiles {
  run: string;
  qrels: string;
}

/**
 * A run over `nDocs` distinct doc ids (each at least once) on `nRows` lines (at least nDocs) for
 * about `nQueries` queries, each query's lines in 1..3 segments (so queries come back later), docs
 * repeated across queries; and qrels judging some retrieved docs, some others (not in the run), for
 * most of the run's queries and a few of their own. `dup`: one (query, doc) line repeated later.
 */
function trecFiles(seed: number, nDocs: number, nRowsWanted: number, nQueriesWanted: number, docShape: number, qShape: number, dup: Dup): TrecFiles {
  const r = prng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)]!;
  const nRows = Math.max(nRowsWanted, nDocs);
  const nQueries = Math.min(nRows, Math.max(nQueriesWanted, Math.ceil(nRows / nDocs)));
  const perm = Array.from({ length: nDocs }, (_, i) => i);
  for (let i = nDocs - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [perm[i], perm[j]] = [perm[j]!, perm[i]!];
  }
  // rows per query: nRows split as evenly as the cap nDocs allows, then jittered pairwise
  const count = Array.from({ length: nQueries }, (_, q) => Math.floor(nRows / nQueries) + (q < nRows % nQueries ? 1 : 0));
  for (let q = 0; q + 1 < nQueries; q += 2) {
    const t = Math.min(Math.floor(r() * count[q]!), nDocs - count[q + 1]!, count[q]! - 1);
    if (t > 0) {
      count[q]! -= t;
      count[q + 1]! += t;
    }
  }
  const ids = perm.map((i) => makeId(seed, i, docShape));
  // consecutive windows of the permutation: distinct within a query, every doc covered
  let offset = 0;
  const segments: Array<{ key: number; rows: Array<[number, number]> }> = [];
  const docsOf: number[][] = [];
  for (let q = 0; q < nQueries; q++) {
    const docs = Array.from({ length: count[q]! }, (_, k) => (offset + k) % nDocs);
    offset += count[q]!;
    if (r() < 0.5) docs.reverse();
    docsOf.push(docs);
    const parts = 1 + Math.floor(r() * 3);
    const size = Math.ceil(docs.length / parts);
    for (let p = 0; p * size < docs.length; p++) {
      segments.push({ key: p === 0 ? q : q + r() * nQueries * 0.5, rows: docs.slice(p * size, (p + 1) * size).map((d) => [q, d]) });
    }
  }
  segments.sort((a, b) => a.key - b.key);
  const rows = segments.flatMap((s) => s.rows);
  const sep = () => (r() < 0.8 ? ' ' : pick(SEPS));
  const eol = () => (r() < 0.2 ? '\r\n' : '\n');
  const form = Math.floor(r() * SCORE_FORMS.length);
  const score = () => SCORE_FORMS[r() < 0.7 ? form : Math.floor(r() * SCORE_FORMS.length)]!(r);
  const runLine = (q: number, d: number, rank: number) => `${queryId(q, qShape)}${sep()}Q0${sep()}${ids[d]!}${sep()}${rank}${sep()}${score()}${sep()}tag${eol()}`;
  const runLines = rows.map(([q, d], i) => runLine(q, d, i + 1));
  // qrels: most run queries, a few of their own; some retrieved docs, some never retrieved
  const qrelsLines: string[] = [];
  const extra = Math.floor(r() * 40);
  for (let q = 0; q < nQueries + 3; q++) {
    if (q < nQueries && r() < 0.15) continue; // missing from the qrels: ignored
    const judged = new Set<string>();
    for (const d of q < nQueries ? docsOf[q]! : []) if (r() < 0.3) judged.add(ids[d]!);
    for (let k = 0; k < 1 + Math.floor(r() * 3); k++) judged.add(r() < 0.5 ? ids[Math.floor(r() * nDocs)]! : `j-${Math.floor(r() * extra)}-${docShape}`);
    const qq = q < nQueries ? q : nQueries + 100 + q;
    for (const d of judged) qrelsLines.push(`${queryId(qq, qShape)}${sep()}0${sep()}${d}${sep()}${pick(GRADES)}${eol()}`);
  }
  if ((dup === 'run' || dup === 'run at 1024·2^j') && runLines.length > 1) {
    // the line where the doc interned as number 1024·2^j (± 1) first appears (QueryRows.mark has
    // 1024·2^j entries when that doc is marked), or any line
    const firstRow: number[] = [];
    const seen = new Set<number>();
    rows.forEach(([, d], i) => {
      if (!seen.has(d)) {
        seen.add(d);
        firstRow.push(i);
      }
    });
    const targets = [1024, 2048, 4096, 8192].flatMap((p) => (dup === 'run' ? around(p, 1) : [p])).filter((m) => m < firstRow.length);
    const at = targets.length > 0 && (dup !== 'run' || r() < 0.7) ? firstRow[pick(targets)]! : Math.floor(r() * runLines.length);
    const [q, d] = rows[at]!;
    runLines.splice(at + 1 + Math.floor(r() * (runLines.length - at)), 0, runLine(q, d, 0));
  }
  if (dup === 'qrels' && qrelsLines.length > 0) {
    const at = Math.floor(r() * qrelsLines.length);
    const cols = qrelsLines[at]!.trim().split(/[ \t\v\f\r]+/);
    qrelsLines.splice(at + 1 + Math.floor(r() * (qrelsLines.length - at)), 0, `${cols[0]!} 0 ${cols[2]!} ${pick(GRADES)}\n`);
  }
  const bom = r() < 0.2 ? '\ufeff' : '';
  const trim = (s: string) => (r() < 0.3 ? s.replace(/\r?\n$/, '') : s); // a last line without LF
  return { run: trim(bom + runLines.join('')), qrels: trim(qrelsLines.join('')) };
}

const MEASURES = defaultMeasures([1, 3, 5, 10, 32, 100]);

function evaluation(e: ReturnType<typeof evaluate>): unknown {
  return { aggregate: e.aggregate, perQuery: [...e.perQuery], counts: e.counts };
}

describe('readTrecRun / readTrecQrels = Map readers; evaluate over them = evaluate over the Map readings', () => {
  test.prop(
    [
      fc.integer(),
      fc.constantFrom(...DOC_COUNTS),
      fc.constantFrom(...ROW_COUNTS),
      fc.constantFrom(...QUERY_COUNTS),
      fc.nat(3),
      fc.nat(3),
      fc.constantFrom<Dup>('none', 'none', 'none', 'run', 'qrels'),
    ],
    { numRuns: 30 },
  )('distinct doc ids 2^k ± 2 (k = 4..13), rows 1024·2^k ± 2, queries 256·2^k ± 2', async (seed, nDocs, nRows, nQueries, docShape, qShape, dup) => {
    const f = trecFiles(seed, nDocs, nRows, nQueries, docShape, qShape, dup);
    const pr = file(f.run);
    const pq = file(f.qrels);
    const plainRun = await outcome(() => plainTrecRun(pr));
    const plainQrels = await outcome(() => plainTrecQrels(pq));
    const run = await outcome(() => readTrecRun(pr));
    const qrels = await outcome(() => readTrecQrels(pq));
    // toEqual on Maps would ignore their order: compare the entry lists (scores by Object.is)
    const entries = (o: { ok: Run | Qrels } | { error: string }) => ('ok' in o ? [...o.ok].map(([q, v]) => [q, v instanceof Map ? [...v] : v]) : o);
    expect(entries(run)).toEqual(entries(plainRun));
    expect(entries(qrels)).toEqual(entries(plainQrels));
    if (dup === 'none') {
      expect('ok' in plainRun && plainRun.ok.size > 0 && new Set([...plainRun.ok.values()].flat().map((d) => d.docId)).size).toBe(nDocs);
    }
    if (!('ok' in plainRun && 'ok' in plainQrels && 'ok' in run && 'ok' in qrels)) return;
    const want = await outcome(async () => evaluation(evaluate(plainQrels.ok, plainRun.ok, MEASURES)));
    expect(await outcome(async () => evaluation(evaluate(qrels.ok, run.ok, MEASURES)))).toEqual(want);
    // one interner shared by the qrels and the run (what `score` does with two TREC files)
    expect(await outcome(async () => evaluation(evaluateTables(await readJudgedFiles(pq, pr), MEASURES)))).toEqual(want);
  });

  test.prop([fc.integer(), fc.constantFrom(...DOC_COUNTS.filter((n) => n > 1024)), fc.constantFrom(...QUERY_COUNTS), fc.nat(3), fc.nat(3)], { numRuns: 12 })(
    'a doc listed twice whose number is 1024·2^j (the size of QueryRows.mark when it is marked): same error, same two lines',
    async (seed, nDocs, nQueries, docShape, qShape) => {
      const f = trecFiles(seed, nDocs, nDocs, nQueries, docShape, qShape, 'run at 1024·2^j');
      const pr = file(f.run);
      const plain = await outcome(() => plainTrecRun(pr));
      expect(plain).toMatchObject({ error: expect.stringMatching(/appears twice/) });
      expect(await outcome(() => readTrecRun(pr))).toEqual(plain);
    },
  );
});
