/** Official JSON runs: `{qid: {sid: score}}` and result files `{"metrics", "retrieval": {split: run}}`. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import { readOfficialJson } from '../src/formats/official-json.js';

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
