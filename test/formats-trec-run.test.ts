/** TREC run files: reading (validation, file:line errors), writing, round trip, auto-detection. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../src/core/errors.js';
import type { Run } from '../src/core/types.js';
import { readRunFile } from '../src/formats/run-file.js';
import { SpelledRun } from '../src/formats/spelled-run.js';
import { formatTrecRun, readTrecRun } from '../src/formats/trec-run.js';
import { writeFileAtomic } from '../src/util/atomic.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-metrics-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

describe('readTrecRun', () => {
  it('reads 6 columns, ignores Q0 / rank / tag, skips blank lines, keeps first-appearance order', async () => {
    const p = file('\ufeffq2 Q0 d1 1 0.5 t\n\nq1\tQ0\td9  7   1e-3 other\r\n  \nq2 X d2 1 -2 t\nq1 Q0 d8 3 .25 t');
    const run = await readTrecRun(p);
    expect([...run.keys()]).toEqual(['q2', 'q1']);
    expect(run.get('q2')).toEqual([{ docId: 'd1', score: 0.5 }, { docId: 'd2', score: -2 }]);
    expect(run.get('q1')).toEqual([{ docId: 'd9', score: 0.001 }, { docId: 'd8', score: 0.25 }]);
  });

  it('reads an empty file as an empty run', async () => {
    expect((await readTrecRun(file(''))).size).toBe(0);
  });

  it.each([
    ['q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 0.5\n', /f\d+\.txt:2: expected 6 columns \(qid Q0 docid rank score tag\), got 5$/],
    ['q1 Q0 d1 1 abc t\n', /:1: score: not a finite number: "abc"$/],
    ['q1 Q0 d1 1 nan t\n', /:1: score: not a finite number: "nan"$/],
    ['q1 Q0 d1 1 inf t\n', /:1: score: not a finite number/],
    ['q1 Q0 d1 1 1e400 t\n', /:1: score: not a finite number: "1e400"$/],
    ['q1 Q0 d1 1 0x10 t\n', /:1: score: not a finite number: "0x10"$/],
    ['q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\n\nq1 Q0 d1 2 0.5 t\n', /:4: docid: "d1" appears twice for query "q1" \(first at line 1\)$/],
  ])('rejects %j with file:line', async (content, msg) => {
    const p = file(content);
    const err = await readTrecRun(p).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(msg);
    expect((err as Error).message.startsWith(p)).toBe(true);
  });

  it('rejects invalid UTF-8 naming the line, but keeps a real U+FFFD', async () => {
    const bad = file(Buffer.concat([Buffer.from('q1 Q0 a 1 1 t\nq1 Q0 '), Buffer.from([0xff, 0xfe]), Buffer.from(' 2 1 t\n')]));
    await expect(readTrecRun(bad)).rejects.toThrow(/:2: invalid UTF-8/);
    const ok = await readTrecRun(file('q1 Q0 \ufffd 1 1 t\n'));
    expect(ok.get('q1')![0]!.docId).toBe('\ufffd');
  });

  it('names a missing file', async () => {
    await expect(readTrecRun(join(dir, 'nope.trec'))).rejects.toThrow(/nope\.trec: file not found/);
  });
});

describe('formatTrecRun', () => {
  const run: Run = new Map([
    ['q2', [{ docId: 'a', score: 1 }, { docId: 'c', score: 1 }, { docId: 'b', score: 3 }]],
    ['q10', [{ docId: 'z', score: 0.1 + 0.2 }, { docId: 'y', score: 1e-7 }, { docId: 'x', score: -0 }]],
    ['q1', []],
  ]);

  it('sorts queries by id and documents in trec_eval order, ranks from 1, String(score)', () => {
    // q1 has no documents: no line. Ties a/c at 1 go c then a. -0 prints as 0.
    expect(formatTrecRun(run, 'bm25')).toBe(
      'q10 Q0 z 1 0.30000000000000004 bm25\n' +
        'q10 Q0 y 2 1e-7 bm25\n' +
        'q10 Q0 x 3 0 bm25\n' +
        'q2 Q0 b 1 3 bm25\n' +
        'q2 Q0 c 2 1 bm25\n' +
        'q2 Q0 a 3 1 bm25\n',
    );
  });

  it('follows the given query order, then the rest by id', () => {
    const text = formatTrecRun(run, 't', ['q2', 'missing']);
    expect(text.split('\n').map((l) => l.split(' ')[0])).toEqual(['q2', 'q2', 'q2', 'q10', 'q10', 'q10', '']);
  });

  it.each(['', 'a b', 'a\tb'])('rejects the tag %j', (tag) => {
    expect(() => formatTrecRun(run, tag)).toThrow(UserError);
  });

  it('rejects ids with whitespace, duplicates and non-finite scores', () => {
    expect(() => formatTrecRun(new Map([['q 1', [{ docId: 'a', score: 1 }]]]), 't')).toThrow(/query id "q 1"/);
    expect(() => formatTrecRun(new Map([['q1', [{ docId: 'a b', score: 1 }]]]), 't')).toThrow(/doc id "a b"/);
    expect(() => formatTrecRun(new Map([['q1', [{ docId: 'a', score: 2 }, { docId: 'a', score: 1 }]]]), 't')).toThrow(/appears more than once/);
    expect(() => formatTrecRun(new Map([['q1', [{ docId: 'a', score: Infinity }]]]), 't')).toThrow(/not a finite number/);
    // a doc id in several queries is no duplicate, a second time in a later query is
    const shared = new Map([['q1', [{ docId: 'a', score: 2 }, { docId: 'b', score: 1 }]], ['q2', [{ docId: 'b', score: 2 }, { docId: 'a', score: 1 }]]]);
    expect(formatTrecRun(shared, 't')).toBe('q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\nq2 Q0 b 1 2 t\nq2 Q0 a 2 1 t\n');
    expect(() => formatTrecRun(new Map([...shared, ['q3', [{ docId: 'a', score: 2 }, { docId: 'a', score: 1 }]]]), 't')).toThrow(/query "q3": doc "a" appears more than once/);
    expect(() => formatTrecRun(new Map([...shared, ['q3', [{ docId: 'c d', score: 2 }]]]), 't')).toThrow(/doc id "c d"/);
  });

  it('writes the same text with a spelling shared with other writers', () => {
    const spelled = new SpelledRun(run);
    expect(spelled.get('q2').scores).toEqual(['3', '1', '1']);
    expect(spelled.get('absent')).toEqual({ docs: [], scores: [] });
    expect(formatTrecRun(run, 't', ['q2'], spelled)).toBe(formatTrecRun(run, 't', ['q2']));
  });

  it('round-trips exactly through a file (scores bit for bit)', async () => {
    const scores = [0.1 + 0.2, 1 / 3, 5e-324, 1.7976931348623157e308, -123.456, 0.5, 0.5];
    const src: Run = new Map([
      ['q-1', scores.map((score, i) => ({ docId: `doc-\u00e9${i}`, score }))],
      ['q-2', [{ docId: '\u{1f600}', score: 2 }]],
    ]);
    const p = join(dir, 'sub', 'rt.trec');
    writeFileAtomic(p, formatTrecRun(src, 'rt', ['q-1', 'q-2']));
    const back = await readTrecRun(p);
    expect([...back.keys()]).toEqual(['q-1', 'q-2']);
    for (const [q, docs] of src) {
      const byId = new Map(back.get(q)!.map((d) => [d.docId, d.score]));
      expect(byId.size).toBe(docs.length);
      for (const d of docs) expect(Object.is(byId.get(d.docId), d.score)).toBe(true);
    }
    expect(formatTrecRun(back, 'rt')).toBe(formatTrecRun(src, 'rt'));
  });
});

describe('readRunFile', () => {
  it('detects TREC and JSON by the first non-blank character', async () => {
    const trec = await readRunFile(file('  \nq1 Q0 a 1 0.5 t\n'));
    expect(trec.get('q1')).toEqual([{ docId: 'a', score: 0.5 }]);
    const json = await readRunFile(file('\ufeff \n {"q1": {"a": 0.5}}'));
    expect(json.get('q1')).toEqual([{ docId: 'a', score: 0.5 }]);
    expect((await readRunFile(file('\n\n'))).size).toBe(0);
  });
});
