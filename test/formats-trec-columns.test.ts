/**
 * The byte-level TREC reader (trec-columns.ts) against the line reader it replaced (lines.ts:
 * decode each line, split on a regex): same columns, same numbers, same errors, on tricky files:
 * BOM, CRLF, every separator, non-ASCII ids, lines across read chunks, a last line without LF,
 * queries that come back after another, scores in every decimal form.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Qrels, Run } from '../src/core/types.js';
import { column, ColumnInterner, parseDecimal, parseInteger, scanColumnBatches, scanColumns } from '../src/formats/trec-columns.js';
import { readTrecQrels } from '../src/formats/trec-qrels.js';
import { parseScore, readTrecRun } from '../src/formats/trec-run.js';
import { mulberry32 } from './helpers/mulberry32.js';
import { plainColumns } from './helpers/plain-trec.js';

const dir = mkdtempSync(join(tmpdir(), 'skillret-trec-columns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
function file(content: string | Buffer): string {
  const p = join(dir, `f${n++}.txt`);
  writeFileSync(p, content);
  return p;
}

const prng = mulberry32;

/** The old reader's view: every non-blank line as [line number, columns]. */
const oldColumns = plainColumns;

async function newColumns(path: string, chunk?: number): Promise<Array<[number, string[]]>> {
  const out: Array<[number, string[]]> = [];
  await scanColumns(
    path,
    (l) => {
      const cols: string[] = [];
      for (let i = 0; i < l.count; i++) cols.push(column(l, i));
      out.push([l.line, cols]);
    },
    chunk,
  );
  return out;
}

/** The old TREC run reader, for comparison. */
async function oldRun(path: string): Promise<Run> {
  const run: Run = new Map();
  for (const [, cols] of await oldColumns(path)) {
    const [qid, , docId, , s] = cols as [string, string, string, string, string];
    const score = parseScore(s);
    if (score === undefined) throw new Error('bad score');
    if (!run.has(qid)) run.set(qid, []);
    run.get(qid)!.push({ docId, score });
  }
  return run;
}

async function oldQrels(path: string): Promise<Qrels> {
  const q: Qrels = new Map();
  for (const [, cols] of await oldColumns(path)) {
    const [qid, , docId, rel] = cols as [string, string, string, string];
    if (!q.has(qid)) q.set(qid, new Map());
    q.get(qid)!.set(docId, Number(rel) === 0 ? 0 : Number(rel));
  }
  return q;
}

const SEPS = [' ', '\t', '  ', ' \t ', '\f', '\v', '\r', ' \r '];
const IDS = ['d1', 'skill-0042', 'café', 'λόγος', '🙂x', 'a\u00a0b', '\ufffd', 'ÿ', 'Z', 'doc/with:punct'];

function score(r: () => number): string {
  const forms = [
    () => (r() * 40).toFixed(6),
    () => String(r() * 40 - 10),
    () => String(Math.fround(r() * 30)),
    () => (r() * 1e-5).toExponential(3),
    () => `${r() < 0.5 ? '+' : '-'}${Math.floor(r() * 100)}.`,
    () => `.${Math.floor(r() * 1e9)}`,
    () => `00${Math.floor(r() * 1000)}.0500`,
    () => `${Math.floor(r() * 1e6)}E${Math.floor(r() * 40) - 20}`,
    () => String(r() * 1e300),
    () => '12345678901234567890.123456789',
    () => '-0',
    () => '0.000',
    () => `${(r() * 10).toFixed(20)}`,
  ];
  return forms[Math.floor(r() * forms.length)]!();
}

/** A run file of many lines with every quirk, and a matching qrels file. */
function trickyFiles(seed: number): { run: string; qrels: string } {
  const r = prng(seed);
  const sep = () => SEPS[Math.floor(r() * SEPS.length)]!;
  const eol = () => (r() < 0.3 ? '\r\n' : '\n');
  const runLines: string[] = [];
  const qrelLines: string[] = [];
  const used = new Map<string, Set<string>>();
  for (let i = 0; i < 3000; i++) {
    // queries mostly contiguous, sometimes revisited
    const q = r() < 0.9 ? `q${Math.floor(i / 20)}` : `q${Math.floor(r() * (i / 20 + 1))}`;
    const qid = r() < 0.05 ? `${q}é` : q;
    const seen = used.get(qid) ?? new Set<string>();
    used.set(qid, seen);
    const doc = `${IDS[Math.floor(r() * IDS.length)]!}${Math.floor(r() * 1e6)}`;
    if (seen.has(doc)) continue;
    seen.add(doc);
    const lead = r() < 0.1 ? sep() : '';
    const trail = r() < 0.1 ? sep() : '';
    runLines.push(`${lead}${qid}${sep()}Q0${sep()}${doc}${sep()}${i}${sep()}${score(r)}${sep()}tag${trail}${eol()}`);
    if (r() < 0.1) runLines.push(r() < 0.5 ? eol() : ` \t${eol()}`);
    if (r() < 0.2) qrelLines.push(`${qid}${sep()}0${sep()}${doc}${sep()}${Math.floor(r() * 5) - 1}${eol()}`);
  }
  const last = runLines.pop()!.replace(/\r?\n$/, ''); // no terminator on the last line
  return { run: '\ufeff' + runLines.join('') + last, qrels: qrelLines.join('') };
}

describe('scanColumns (byte level) equals the line reader', () => {
  it.each([1, 2, 3])('on a tricky file (seed %i), at any chunk size', async (seed) => {
    const { run } = trickyFiles(seed);
    const p = file(run);
    const expected = await oldColumns(p);
    expect(expected.length).toBeGreaterThan(2500);
    for (const chunk of [16, 37, 1000, undefined]) expect(await newColumns(p, chunk)).toEqual(expected);
  });

  it('handles a BOM split from the rest, a lone CR, and multi-byte characters across chunks', async () => {
    const p = file('\ufeffé\tà 🙂\r\n\r\n  x  \n\u00e9\u00e9\u00e9\u00e9 y\rz');
    const expected = await oldColumns(p);
    for (const chunk of [16, 17, 18, 19, 20, 64]) expect(await newColumns(p, chunk)).toEqual(expected);
  });

  it('reports invalid UTF-8 on the same line as the line reader, after the lines before it', async () => {
    const bytes = Buffer.concat([Buffer.from('a b\n\nc d\n'), Buffer.from([0x65, 0x20, 0xc3, 0x28]), Buffer.from('\nf g\n')]);
    const p = file(bytes);
    await expect(oldColumns(p)).rejects.toThrow(/:4: invalid UTF-8/);
    for (const chunk of [16, 1000]) {
      const seen: number[] = [];
      await expect(scanColumns(p, (l) => void seen.push(l.line), chunk)).rejects.toThrow(/:4: invalid UTF-8 byte sequence \(the file must be UTF-8\)$/);
      expect(seen).toEqual([1, 3]);
    }
  });
});

describe('batches of lines (scanColumnBatches)', () => {
  it('equals the line reader past many batches, and stops at a bad line after the lines before it', async () => {
    const r = prng(11);
    const lines = Array.from({ length: 10000 }, (_, i) => (r() < 0.05 ? '' : `q${i % 97}${SEPS[i % SEPS.length]!}Q0 d${i} ${i} ${score(r)} t${r() < 0.2 ? '\r' : ''}`));
    const p = file(lines.join('\n'));
    const expected = await oldColumns(p);
    for (const chunk of [100, 5000, undefined]) expect(await newColumns(p, chunk)).toEqual(expected);
    const bad = Buffer.concat([Buffer.from(lines.slice(0, 9000).join('\n') + '\n'), Buffer.from([0xff]), Buffer.from('\n' + lines.slice(9001).join('\n'))]);
    const pb = file(bad);
    const seen: number[] = [];
    await expect(scanColumnBatches(pb, (b) => {
      for (let j = 0; j < b.n; j++) seen.push(b.line[j]!);
    })).rejects.toThrow(/:9001: invalid UTF-8 byte sequence/);
    expect(seen).toEqual(expected.filter(([line]) => line < 9001).map(([line]) => line));
  });
});

describe('readers on tricky files', () => {
  it.each([4, 5])('readTrecRun and readTrecQrels equal the line readers (seed %i)', async (seed) => {
    const { run, qrels } = trickyFiles(seed);
    const pr = file(run);
    const pq = file(qrels);
    const a = await readTrecRun(pr);
    const b = await oldRun(pr);
    expect([...a.keys()]).toEqual([...b.keys()]);
    for (const [q, docs] of b) {
      const got = a.get(q)!;
      expect(got.map((d) => d.docId)).toEqual(docs.map((d) => d.docId));
      // bit-identical scores (Object.is tells -0 from 0)
      got.forEach((d, i) => expect(Object.is(d.score, docs[i]!.score), `${q} ${d.docId}`).toBe(true));
    }
    const qa = await readTrecQrels(pq);
    const qb = await oldQrels(pq);
    expect([...qa.keys()]).toEqual([...qb.keys()]);
    for (const [q, m] of qb) expect([...qa.get(q)!]).toEqual([...m]);
  });

  it('names the first line of a duplicate in a query that came back after another', async () => {
    const p = file('q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq2 Q0 a 1 1 t\nq1 Q0 c 3 1 t\nq1 Q0 b 4 1 t\n');
    await expect(readTrecRun(p)).rejects.toThrow(/:5: docid: "b" appears twice for query "q1" \(first at line 2\)$/);
    const q = file('q1 0 a 1\nq1 0 b 1\nq2 0 a 1\nq1 0 b 0\n');
    await expect(readTrecQrels(q)).rejects.toThrow(/:4: docid: "b" judged twice for query "q1" \(first at line 2\)$/);
  });
});

describe('number parsing from bytes', () => {
  const dec = (s: string) => {
    const b = Buffer.from(s, 'latin1');
    return parseDecimal(b, 0, b.length);
  };
  it('gives exactly the double Number() gives, for every accepted form', () => {
    const r = prng(9);
    for (let i = 0; i < 20000; i++) {
      const s = score(r);
      const want = parseScore(s);
      const got = dec(s);
      expect(want === undefined ? !Number.isFinite(got) : Object.is(got, want), s).toBe(true);
    }
    for (const s of ['1', '1.', '.5', '+.5e3', '-0.0', '9007199254740993', '0.1', '1e22', '1e23', '4.35e-309', '1e-400', '123456789012345.6']) {
      expect(Object.is(dec(s), Number(s)), s).toBe(true);
    }
  });
  it('equals Number() on long mantissas, exponents near the exact range, signs and leading zeros', () => {
    const r = prng(12);
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(r() * 10))).join('');
    for (let i = 0; i < 20000; i++) {
      const sign = ['', '+', '-'][Math.floor(r() * 3)]!;
      const int = r() < 0.2 ? '' : digits(1 + Math.floor(r() * 22));
      const frac = r() < 0.3 && int !== '' ? '' : `.${digits(int === '' ? 1 + Math.floor(r() * 20) : Math.floor(r() * 20))}`;
      const exp = r() < 0.5 ? '' : `${r() < 0.5 ? 'e' : 'E'}${['', '+', '-'][Math.floor(r() * 3)]!}${Math.floor(r() * 40)}`;
      const s = `${sign}${r() < 0.2 ? '000' : ''}${int}${frac}${exp}`;
      expect(Object.is(dec(s), Number(s)), s).toBe(true);
    }
    for (const s of ['9007199254740991', '9007199254740992', '9007199254740993', '1.7976931348623157e308', '2.2250738585072014e-308', '5e-324', '1e-22', '1e22', '123e20', '123e-20', '0.1e-21', '4503599627370497.5', '000000.000001']) {
      expect(Object.is(dec(s), Number(s)), s).toBe(true);
    }
  });
  it('gives the same double when it slices the chunk text of a batch (every chunk size)', async () => {
    const r = prng(13);
    const scores = Array.from({ length: 3000 }, () => score(r));
    const p = file(scores.map((x, i) => `q${i} ${x}`).join('\n') + '\n');
    for (const chunk of [64, 1000, undefined]) {
      const got: number[] = [];
      await scanColumnBatches(p, (b) => {
        for (let j = 0; j < b.n; j++) got.push(parseDecimal(b.buf, b.start[j * 8 + 1]!, b.end[j * 8 + 1]!, b));
      }, chunk);
      got.forEach((v, i) => expect(Object.is(v, dec(scores[i]!)), scores[i]).toBe(true));
    }
  });
  it('rejects what the decimal grammar rejects', () => {
    for (const s of ['', '.', '+', '-', 'e5', '1e', '1e+', '0x10', 'nan', 'inf', '1.2.3', '1,5', '١']) {
      expect(Number.isNaN(dec(s)), s).toBe(true);
    }
    expect(dec('1e400')).toBe(Infinity);
  });
  it('parses integers, refusing unsafe ones', () => {
    const int = (s: string) => parseInteger(Buffer.from(s), 0, Buffer.byteLength(s));
    expect([int('0'), int('-3'), int('+12'), int('007')]).toEqual([0, -3, 12, 7]);
    for (const s of ['', '-', '1.0', '1e3', '99999999999999999', 'x']) expect(Number.isNaN(int(s)), s).toBe(true);
  });
});

describe('ColumnInterner', () => {
  it('gives one string object per distinct column, equal to column(); non-ASCII lines decoded as usual', async () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `doc-${i % 1500}`); // past the first table growth
    const p = file(ids.map((d, i) => `q${i % 7} Q0 ${d} 1 1 t\n`).join('') + 'q9 Q0 dé 1 1 t\nq9 Q0 dè 1 1 t\n');
    const interner = new ColumnInterner();
    const got: string[] = [];
    const plain: string[] = [];
    await scanColumns(p, (l) => {
      got.push(interner.get(l, 2));
      plain.push(column(l, 2));
    }, 97);
    expect(got).toEqual(plain);
    const first = new Map<string, string>();
    let reused = 0;
    for (const s of got.slice(0, 3000)) {
      const f = first.get(s);
      if (f === undefined) first.set(s, s);
      else if (f === s) reused++;
    }
    expect(first.size).toBe(1500);
    expect(reused).toBe(1500);
    expect(got.slice(3000)).toEqual(['dé', 'dè']);
  });
});

describe('ColumnInterner ids', () => {
  it('numbers distinct bytes 0, 1, 2, ... in order of first appearance, non-ASCII too', () => {
    const interner = new ColumnInterner();
    const words = ['b', 'a', 'é', 'b', 'é', '', 'ab', 'a', '🙂', 'ba'];
    const ids = words.map((w) => {
      const buf = Buffer.from(`<${w}>`);
      return interner.id(buf, 1, buf.length - 1);
    });
    expect(ids).toEqual([0, 1, 2, 0, 2, 3, 4, 1, 5, 6]);
    expect(interner.strings).toEqual(['b', 'a', 'é', '', 'ab', '🙂', 'ba']);
    for (let i = 0; i < 5000; i++) expect(interner.id(Buffer.from(`x${i}`), 0, `x${i}`.length)).toBe(7 + i);
    expect(interner.id(Buffer.from('é'), 0, 2)).toBe(2);
    expect(interner.size).toBe(5007);
  });
});

describe('duplicate doc ids in long rankings (Set past 64 documents)', () => {
  it('is found in a long ranking, also when the query comes back after another', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `q1 Q0 d${i} ${i + 1} ${100 - i} t`);
    expect((await readTrecRun(file(lines.join('\n') + '\n'))).get('q1')!.length).toBe(100);
    await expect(readTrecRun(file([...lines, 'q1 Q0 d3 101 0 t'].join('\n') + '\n'))).rejects.toThrow(/:101: docid: "d3" appears twice for query "q1" \(first at line 4\)$/);
    await expect(readTrecRun(file([...lines, 'q2 Q0 d3 1 0 t', 'q1 Q0 d70 101 0 t'].join('\n') + '\n'))).rejects.toThrow(/:102: docid: "d70" appears twice for query "q1" \(first at line 71\)$/);
    await expect(readTrecRun(file([...lines.slice(0, 10), 'q2 Q0 d3 1 0 t', 'q1 Q0 d9 11 0 t'].join('\n') + '\n'))).rejects.toThrow(/:12: docid: "d9" appears twice for query "q1" \(first at line 10\)$/);
  });
});
