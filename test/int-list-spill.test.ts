import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IntListSpill } from '../src/util/int-list-spill.js';
import { TokenizedTexts } from '../src/retrieval/dense/tokenizers/tokenized-texts.js';

const dir = mkdtempSync(join(tmpdir(), 'skr-spill-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Deterministic lists of varied lengths (0 included), some longer than the block. */
function lists(n: number, maxLen: number): number[][] {
  let s = 12345;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: n }, (_, i) => Array.from({ length: i % 17 === 0 ? 0 : Math.floor(rnd() * maxLen) }, () => Math.floor(rnd() * 400000) - 5));
}

describe('IntListSpill', () => {
  it('gives back every list as pushed, from memory and from the temporary file alike', () => {
    const want = lists(500, 40);
    want.push(Array.from({ length: 100 }, (_, j) => j * 7)); // longer than a block
    want.push([2147483647, -2147483648, 0]);
    const s = new IntListSpill({ blockInts: 64, dir });
    want.forEach((l, i) => expect(s.push(l)).toBe(i));
    expect(s.size).toBe(want.length);
    expect(s.spilled).toBe(true);
    for (let i = want.length - 1; i >= 0; i--) {
      expect(s.length(i)).toBe(want[i]!.length);
      expect(Array.from(s.get(i))).toEqual(want[i]);
    }
    // a copy: changing it changes nothing held
    s.get(1).fill(9);
    expect(Array.from(s.get(1))).toEqual(want[1]);
    s.dispose();
    expect(() => s.get(0)).toThrow(/after dispose/);
  });

  it('leaves no file behind, and makes none while everything fits in one block', () => {
    const s = new IntListSpill({ blockInts: 32, dir });
    for (const l of lists(100, 10)) s.push(l);
    expect(s.spilled).toBe(true);
    // the file is unlinked as soon as it is open (it stays readable through its descriptor)
    expect(readdirSync(dir)).toEqual([]);
    expect(s.get(3).length).toBe(s.length(3));
    s.dispose();
    expect(readdirSync(dir)).toEqual([]);
    const small = new IntListSpill({ blockInts: 1 << 10, dir });
    small.push([1, 2, 3]);
    expect(small.spilled).toBe(false);
    expect(Array.from(small.get(0))).toEqual([1, 2, 3]);
    small.dispose();
  });

  it('refuses positions out of range', () => {
    const s = new IntListSpill({ blockInts: 8, dir });
    s.push([1]);
    expect(() => s.get(1)).toThrow(RangeError);
    expect(() => s.length(-1)).toThrow(RangeError);
    expect(() => new IntListSpill({ blockInts: 0 })).toThrow(RangeError);
    s.dispose();
  });
});

describe('TokenizedTexts', () => {
  it('keeps ids and the truncated flag of each text', () => {
    const t = new TokenizedTexts({ blockInts: 16, dir });
    const rows = lists(300, 12).map((ids, i) => ({ ids, truncated: i % 3 === 0 }));
    for (const r of rows) t.push(r);
    expect(t.spilled).toBe(true);
    rows.forEach((r, i) => {
      const got = t.get(i);
      expect({ ids: Array.from(got.ids), truncated: got.truncated }).toEqual(r);
      expect(t.truncated(i)).toBe(r.truncated);
      expect(t.length(i)).toBe(r.ids.length);
    });
    t.dispose();
  });
});
