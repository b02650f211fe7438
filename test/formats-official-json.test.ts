/** Official JSON runs: `{qid: {sid: score}}` and result files `{"metrics", "retrieval": {split: run}}`. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { SpelledRun } from '../src/formats/spelled-run.js';
import { formatOfficialResult, readOfficialJson } from '../src/formats/official-json.js';
import type { Run } from '../src/core/types.js';
import { roundHalfEven } from '../src/util/python-round.js';
import { trecOrder } from '../src/metrics/rank.js';
import { seededUniform } from './helpers/tiny-models.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-metrics-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(value: unknown): string {
  const p = join(dir, `f${n++}.json`);
  writeFileSync(p, typeof value === 'string' ? value : JSON.stringify(value));
  return p;
}

describe('readOfficialJson', () => {
  it('reads a run dict, an empty query as an empty ranking', async () => {
    const run = await readOfficialJson(file({ q1: { s1: 0.5, s2: 1.25 }, q2: {} }));
    expect(run).toEqual(new Map([['q1', [{ docId: 's1', score: 0.5 }, { docId: 's2', score: 1.25 }]], ['q2', []]]));
  });

  it('reads retrieval[split] of a result file (default test)', async () => {
    const p = file({ metrics: { 'NDCG@10': 0.5 }, retrieval: { test: { q1: { s1: 2 } }, train: { q9: { s9: 1 } } } });
    expect(await readOfficialJson(p)).toEqual(new Map([['q1', [{ docId: 's1', score: 2 }]]]));
    expect(await readOfficialJson(p, { split: 'train' })).toEqual(new Map([['q9', [{ docId: 's9', score: 1 }]]]));
    await expect(readOfficialJson(p, { split: 'dev' })).rejects.toThrow(/: retrieval: no split "dev" \(has: test, train\)$/);
  });

  it('recognises a result file without metrics, and a run with a query named "retrieval"', async () => {
    expect(await readOfficialJson(file({ retrieval: { test: { q1: { s1: 1 } } } }))).toEqual(new Map([['q1', [{ docId: 's1', score: 1 }]]]));
    expect(await readOfficialJson(file({ retrieval: { s1: 1 } }))).toEqual(new Map([['retrieval', [{ docId: 's1', score: 1 }]]]));
  });

  it.each([
    [{ q1: { s1: '0.5' } }, /: \["q1"\]\["s1"\]: score must be a finite number, got the string "0\.5"$/],
    [{ q1: { s1: null } }, /: \["q1"\]\["s1"\]: score must be a finite number, got null$/],
    [{ q1: [1, 2] }, /: \["q1"\]: expected an object \{skill_id: score\}, got an array$/],
    [{ metrics: {}, retrieval: { test: { q1: { s1: true } } } }, /: retrieval\.test\["q1"\]\["s1"\]: score must be a finite number, got boolean true$/],
    [{ metrics: {}, retrieval: { test: [] } }, /: retrieval\.test: expected an object/],
    ['[1, 2]', /: expected a JSON object, got an array$/],
    ['{"q1": {"s1": NaN}}', /: malformed JSON: .*\(NaN and Infinity are not valid scores\)$/],
    ['{"q1": ', /: malformed JSON/],
  ])('rejects %j naming the file and key path', async (value, msg) => {
    const p = file(value);
    const err = await readOfficialJson(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message.startsWith(`${p}: `)).toBe(true);
    expect((err as Error).message).toMatch(msg);
  });
});

describe('formatOfficialResult', () => {
  /** What JSON.stringify of the objects gives (right wherever no id looks like an integer). */
  function viaObjects(split: string, aggregate: Record<string, number>, ks: number[], run: Run, order: string[]): string {
    const metrics: Record<string, number> = {};
    for (const m of ['NDCG', 'MAP', 'Recall', 'Precision', 'Completeness'])
      for (const k of ks) if (aggregate[`${m}@${k}`] !== undefined) metrics[`${m}@${k}`] = roundHalfEven(aggregate[`${m}@${k}`]!, 5);
    const retrieval: Record<string, Record<string, number>> = {};
    for (const q of order) {
      const docs: Record<string, number> = {};
      for (const d of trecOrder(run.get(q) ?? [])) docs[d.docId] = d.score;
      retrieval[q] = docs;
    }
    return JSON.stringify({ metrics: { [split]: metrics }, retrieval: { [split]: retrieval } }, null, 2) + '\n';
  }

  it('writes what JSON.stringify writes (2-space indent), for any ids, scores and rankings', () => {
    const u = seededUniform(5);
    const ids = ['s-1', 'a"quote', 'back\\slash', 'uni-é漢😀', 'ctl\u0001\u001f', 'line\nbreak', '\u2028sep', 'x'.repeat(40)];
    for (let t = 0; t < 60; t++) {
      const run: Run = new Map();
      const order: string[] = [];
      const nq = Math.floor((u() + 1) * 6);
      for (let q = 0; q < nq; q++) {
        const qid = q % 3 === 0 ? `q-${q}` : `q"${q}é`;
        order.push(qid);
        if (u() < -0.7) continue; // missing from the run: {}
        const docs = ids.filter(() => u() > -0.3).map((docId) => ({ docId, score: [0, -0, 1e-7, 2.5e21, Math.fround(u() * 30), Math.round(u() * 3)][Math.floor((u() + 1) * 3)]! }));
        // now and then an id twice in one ranking (an object keeps it once, with its last value) or a non-finite score (null)
        if (docs.length > 0 && u() > 0.6) docs.push({ docId: docs[0]!.docId, score: Math.fround(u() * 30) });
        if (docs.length > 1 && u() > 0.8) docs[1]!.score = u() > 0 ? Infinity : -Infinity;
        run.set(qid, u() > 0 ? docs : [...docs].reverse());
      }
      if (t % 7 === 0 && order.length > 0) order.push(order[0]!); // listed twice: once in the file
      const aggregate: Record<string, number> = t % 5 === 0 ? {} : { 'NDCG@5': u(), 'Recall@10': 0.123456789, 'MAP@5': 1, 'Completeness@10': 1e-6 };
      const ks = t % 2 ? [5, 10] : [5];
      const got = formatOfficialResult(t % 3 ? 'test' : 'te"st', aggregate, ks, run, order);
      expect(got).toBe(viaObjects(t % 3 ? 'test' : 'te"st', aggregate, ks, run, order));
      // with a spelling shared with other writers, and used before: the same text
      const shared = new SpelledRun(run);
      for (const q of order) shared.get(q);
      expect(formatOfficialResult(t % 3 ? 'test' : 'te"st', aggregate, ks, run, order, shared)).toBe(got);
    }
    expect(formatOfficialResult('test', {}, [5], new Map(), [])).toBe(viaObjects('test', {}, [5], new Map(), []));
  });

  it('keeps trec_eval order where an id looks like an integer (an object would sort those first)', () => {
    const run: Run = new Map([['7', [{ docId: 'b', score: 1 }, { docId: '10', score: 3 }, { docId: '2', score: 2 }]], ['q', []]]);
    const text = formatOfficialResult('test', {}, [5], run, ['q', '7']);
    expect([...text.matchAll(/^ {8}"([^"]+)"/gm)].map((m) => m[1])).toEqual(['10', '2', 'b']);
    expect([...text.matchAll(/^ {6}"([^"]+)"/gm)].map((m) => m[1])).toEqual(['q', '7']);
    expect(JSON.parse(text)).toEqual({ metrics: { test: {} }, retrieval: { test: { q: {}, 7: { 10: 3, 2: 2, b: 1 } } } });
  });
});
