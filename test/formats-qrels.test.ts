/** Qrels files: TREC (`qid iter docid rel`) and SkillRet JSONL, and the auto-detecting reader. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import type { Qrels } from '../src/core/types.js';
import { readQrelsFile } from '../src/formats/qrels-file.js';
import { readQrelsJsonl } from '../src/formats/qrels-jsonl.js';
import { formatTrecQrels, readTrecQrels } from '../src/formats/trec-qrels.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-metrics-qrels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

describe('TREC qrels', () => {
  it('reads graded, zero and negative judgements in file order', async () => {
    const q = await readTrecQrels(file('q2 0 b 2\n\nq1 0 a 1\nq2\t0\tc\t0\nq2 0 d -1\n'));
    expect([...q.keys()]).toEqual(['q2', 'q1']);
    expect([...q.get('q2')!]).toEqual([['b', 2], ['c', 0], ['d', -1]]);
    expect([...q.get('q1')!]).toEqual([['a', 1]]);
  });

  it.each([
    ['q1 0 a\n', /:1: expected 4 columns \(qid iter docid rel\), got 3$/],
    ['q1 0 a 1\nq1 0 b 1.5\n', /:2: rel: not an integer: "1.5"$/],
    ['q1 0 a x\n', /:1: rel: not an integer: "x"$/],
    ['q1 0 a 1\nq1 0 a 0\n', /:2: docid: "a" judged twice for query "q1" \(first at line 1\)$/],
  ])('rejects %j', async (content, msg) => {
    const err = await readTrecQrels(file(content)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(msg);
  });

  it('formats deterministically (queries and docs by id) and round-trips', async () => {
    const q: Qrels = new Map([
      ['q2', new Map([['b', 1], ['a', 2]])],
      ['q1', new Map([['z', 0]])],
    ]);
    const text = formatTrecQrels(q);
    expect(text).toBe('q1 0 z 0\nq2 0 a 2\nq2 0 b 1\n');
    expect(formatTrecQrels(q, ['q2'])).toBe('q2 0 a 2\nq2 0 b 1\nq1 0 z 0\n');
    expect(await readTrecQrels(file(text))).toEqual(new Map([['q1', new Map([['z', 0]])], ['q2', new Map([['a', 2], ['b', 1]])]]));
  });
});

describe('qrels JSONL', () => {
  it('reads query_id / skill_id / relevance records', async () => {
    const p = file('{"query_id":"q1","skill_id":"s1","relevance":2}\n\n{"query_id":"q1","skill_id":"s2","relevance":1}\n{"query_id":"q0","skill_id":"s1","relevance":0}\n');
    expect(await readQrelsJsonl(p)).toEqual(new Map([['q1', new Map([['s1', 2], ['s2', 1]])], ['q0', new Map([['s1', 0]])]]));
  });

  it.each([
    ['{"query_id":"q1","skill_id":"s1","relevance":"1"}\n', /:1: relevance: must be an integer/],
    ['{"query_id":"q1","skill_id":"s1","relevance":0.5}\n', /:1: relevance: must be an integer/],
    ['{"query_id":"","skill_id":"s1","relevance":1}\n', /:1: query_id: must be a non-empty string/],
    ['{"query_id":"q1","relevance":1}\n', /:1: skill_id: must be a non-empty string/],
    ['{"query_id":"q1","skill_id":"s1","relevance":1}\n{"query_id":"q1","skill_id":"s1","relevance":1}\n', /:2: skill_id: "s1" judged twice for query "q1" \(first at line 1\)/],
    ['{"query_id":"q1"\n', /:1: malformed JSON/],
  ])('rejects %j with file:line: field', async (content, msg) => {
    await expect(readQrelsJsonl(file(content))).rejects.toThrow(msg);
  });
});

describe('readQrelsFile', () => {
  it('detects JSONL by a leading "{", else TREC', async () => {
    expect(await readQrelsFile(file('\n {"query_id":"q","skill_id":"s","relevance":1}\n'))).toEqual(new Map([['q', new Map([['s', 1]])]]));
    expect(await readQrelsFile(file('q 0 s 1\n'))).toEqual(new Map([['q', new Map([['s', 1]])]]));
    await expect(readQrelsFile(file(' \n'))).rejects.toThrow(/qrels file is empty/);
  });
});
