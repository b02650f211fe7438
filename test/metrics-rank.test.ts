/** trec_eval's ranking rule: score descending, ties by doc id descending in UTF-8 byte order. */
import { describe, expect, it } from 'vitest';
import { compareTrec, compareUtf8, trecOrder } from '../src/metrics/rank.js';

const ids = (docs: { docId: string }[]) => docs.map((d) => d.docId);

describe('compareUtf8', () => {
  it('orders like strcmp on UTF-8 bytes', () => {
    expect(compareUtf8('a', 'b')).toBeLessThan(0);
    expect(compareUtf8('B', 'a')).toBeLessThan(0); // 0x42 < 0x61
    expect(compareUtf8('d1', 'd10')).toBeLessThan(0); // prefix first
    expect(compareUtf8('d10', 'd2')).toBeLessThan(0);
    expect(compareUtf8('z', '\u00e9')).toBeLessThan(0); // 0x7A < 0xC3
    // U+E000 is EE 80 80, U+1F600 is F0 9F 98 80: bytes put the emoji last, UTF-16 units
    // (0xE000 vs 0xD83D) would put it first.
    expect(compareUtf8('\ue000', '\u{1f600}')).toBeLessThan(0);
    expect('\ue000' < '\u{1f600}').toBe(false);
    expect(compareUtf8('\uffef', '\u{1f600}')).toBeLessThan(0);
    expect(compareUtf8('same', 'same')).toBe(0);
  });

  it('agrees with Buffer.compare on random strings (BMP, private use, astral)', () => {
    const alphabet = ['a', 'b', 'Z', '0', '-', '\u00e9', '\u00ff', '\u65e5', '\ue000', '\uffef', '\u{1f600}', '\u{10000}', '\u{10ffff}'];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const word = () => Array.from({ length: 1 + rand(4) }, () => alphabet[rand(alphabet.length)]!).join('');
    const wrong: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const a = word();
      const b = rand(4) === 0 ? a + word() : word();
      if (Math.sign(compareUtf8(a, b)) !== Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)))) wrong.push(`${a} vs ${b}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('trecOrder', () => {
  it('sorts by score descending, ties by doc id descending', () => {
    const docs = [
      { docId: 'a', score: 1 },
      { docId: 'c', score: 1 },
      { docId: 'b', score: 2 },
      { docId: 'B', score: 1 },
    ];
    // b has the top score; among the score-1 ties: c (0x63) > a (0x61) > B (0x42).
    expect(ids(trecOrder(docs))).toEqual(['b', 'c', 'a', 'B']);
  });

  it('ignores the submitted order and does not modify the input', () => {
    const docs = [
      { docId: 'd10', score: 0.5 },
      { docId: 'd1', score: 0.5 },
      { docId: 'd2', score: 0.5 },
      { docId: 'x', score: 0.7 },
    ];
    const copy = docs.map((d) => ({ ...d }));
    const want = ['x', 'd2', 'd10', 'd1'];
    expect(ids(trecOrder(docs))).toEqual(want);
    expect(ids(trecOrder([...docs].reverse()))).toEqual(want);
    expect(docs).toEqual(copy);
  });

  it('breaks ties on UTF-8 bytes, not UTF-16 code units', () => {
    const docs = [
      { docId: '\ue000x', score: 1 },
      { docId: '\u{1f600}', score: 1 },
      { docId: '\u00e9', score: 1 },
      { docId: 'z', score: 1 },
    ];
    // bytes: F0 9F.. > EE 80.. > C3 A9 > 7A
    expect(ids(trecOrder(docs))).toEqual(['\u{1f600}', '\ue000x', '\u00e9', 'z']);
  });

  it('treats 0 and -0 as the same score', () => {
    expect(ids(trecOrder([{ docId: 'a', score: -0 }, { docId: 'b', score: 0 }]))).toEqual(['b', 'a']);
  });
});

describe('trecOrder on rankings already in order', () => {
  it('gives what sorting gives, as a new array, whether or not the input is in order', () => {
    let seed = 9;
    const r = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let t = 0; t < 300; t++) {
      const docs = Array.from({ length: Math.floor(r() * 12) }, (_, i) => ({ docId: `d${Math.floor(r() * 30)}-${i}`, score: Math.floor(r() * 4) / 2 }));
      const want = [...docs].sort(compareTrec);
      for (const input of [docs, want, [...want].reverse()]) {
        const got = trecOrder(input);
        expect(got).toEqual(want);
        expect(got).not.toBe(input);
      }
    }
    const tied = [{ docId: 'b', score: 1 }, { docId: 'a', score: 1 }]; // in order: equal scores, larger id first
    expect(ids(trecOrder(tied))).toEqual(['b', 'a']);
    expect(ids(trecOrder([...tied].reverse()))).toEqual(['b', 'a']);
  });
});
