import { createHash } from 'node:crypto';
import { userError } from './helpers/cli.js';
import { execFileSync } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonl, readJsonlFile, type JsonlRecord } from '../src/data/jsonl.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';

afterAll(cleanupTemp);

function tempFile(content: string | Buffer, name = 'f.jsonl'): string {
  const p = join(makeTempDir(), name);
  writeFileSync(p, content);
  return p;
}

async function readAll(path: string, chunkSize?: number) {
  const recs: Pick<JsonlRecord, 'line' | 'value'>[] = [];
  const sum = await readJsonlFile(path, (value, line) => recs.push({ line, value }), chunkSize);
  return { recs, sum };
}

const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

describe('readJsonl', () => {
  it('yields objects with 1-based line numbers, skipping blank and whitespace-only lines', async () => {
    // line 2 empty, line 4 holds Python whitespace only (\x1c, U+0085, tab, U+3000)
    const text = '{"a":1}\n\n{"a":2}\n\x1c\u0085\t\u3000\n{"a":3}';
    const p = tempFile(text);
    const { recs, sum } = await readAll(p);
    expect(recs).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { a: 2 } },
      { line: 5, value: { a: 3 } },
    ]);
    const bytes = Buffer.from(text, 'utf8');
    expect(sum).toEqual({ sha256: sha(bytes), bytes: bytes.length, records: 3 });
  });

  it('returns the summary as the generator result', async () => {
    const p = tempFile('{"x":"é"}\n');
    const it = readJsonl(p);
    const first = await it.next();
    expect(first).toEqual({ done: false, value: { line: 1, value: { x: 'é' }, offset: 0, length: 10 } });
    const end = await it.next();
    expect(end.done).toBe(true);
    expect(end.value).toEqual({ sha256: sha('{"x":"é"}\n'), bytes: 11, records: 1 });
  });

  it('treats CRLF, lone CR and LF as line ends (Python universal newlines), at every chunk size', async () => {
    const text = '{"a":1}\r\n{"a":2}\r{"a":3}\n\r\n{"a":4}\r\n';
    const p = tempFile(text);
    const expected = [
      { line: 1, value: { a: 1 } },
      { line: 2, value: { a: 2 } },
      { line: 3, value: { a: 3 } },
      { line: 5, value: { a: 4 } },
    ];
    for (const cs of [1, 2, 3, 5, 7, 8, 9, 64 * 1024]) {
      const { recs, sum } = await readAll(p, cs);
      expect(recs, `chunk size ${cs}`).toEqual(expected);
      expect(sum.bytes).toBe(Buffer.byteLength(text));
    }
  });

  it('assembles multi-byte characters split across chunks', async () => {
    const text = '{"t":"héllo → 𝄞 wörld"}\n{"t":"日本語"}\n';
    const p = tempFile(text);
    for (const cs of [1, 2, 3, 4]) {
      const { recs } = await readAll(p, cs);
      expect(recs.map((r) => r.value['t'])).toEqual(['héllo → 𝄞 wörld', '日本語']);
    }
  });

  it('skips a UTF-8 BOM at the start of the file but hashes it', async () => {
    const buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n{"a":2}\n')]);
    const p = tempFile(buf);
    for (const cs of [1, 2, 1024]) {
      const { recs, sum } = await readAll(p, cs);
      expect(recs.map((r) => r.value)).toEqual([{ a: 1 }, { a: 2 }]);
      expect(sum.sha256).toBe(sha(buf));
      expect(sum.bytes).toBe(19);
    }
  });

  it('rejects a BOM that is not at the start of the file as malformed JSON on its line', async () => {
    const p = tempFile('{"a":1}\n\ufeff{"a":2}\n');
    const msg = await userError(readAll(p));
    expect(msg).toMatch(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: malformed JSON \\(`));
  });

  it('refuses invalid UTF-8 with file:line (never replaces bytes)', async () => {
    const buf = Buffer.concat([Buffer.from('{"a":1}\n{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const p = tempFile(buf);
    const msg = await userError(readAll(p));
    expect(msg).toBe(`${p}:2: invalid UTF-8 byte sequence (the file must be UTF-8)`);
  });

  it('passes a properly encoded U+FFFD through unchanged', async () => {
    const p = tempFile('{"a":"x\uFFFDy"}\n');
    const { recs } = await readAll(p);
    expect(recs[0]!.value['a']).toBe('x\uFFFDy');
  });

  it('reports malformed JSON as file:line: malformed JSON (parser message)', async () => {
    const p = tempFile('{"a":1}\n\n{"a":}\n');
    const msg = await userError(readAll(p));
    expect(msg.startsWith(`${p}:3: malformed JSON (`)).toBe(true);
    expect(msg.endsWith(')')).toBe(true);
  });

  it('reports two objects on one line and a truncated last line', async () => {
    expect(await userError(readAll(tempFile('{"a":1}{"b":2}\n')))).toMatch(/:1: malformed JSON \(/);
    expect(await userError(readAll(tempFile('{"a":1}\n{"b":')))).toMatch(/:2: malformed JSON \(/);
  });

  it('refuses a line that is not an object', async () => {
    const cases: Array<[string, string]> = [
      ['[1,2]', 'an array'],
      ['42', 'a number'],
      ['"s"', 'a string'],
      ['null', 'null'],
      ['true', 'a boolean'],
    ];
    for (const [line, kind] of cases) {
      const p = tempFile(`{"ok":1}\n${line}\n`);
      expect(await userError(readAll(p))).toBe(`${p}:2: expected a JSON object, got ${kind}`);
    }
  });

  it('reads Python json.dumps tokens NaN / Infinity / -Infinity as null, leaving strings alone', async () => {
    const p = tempFile('{"stars":NaN,"a":[Infinity,-Infinity],"s":"NaN \\" Infinity"}\n');
    const { recs } = await readAll(p);
    expect(recs[0]!.value).toEqual({ stars: null, a: [null, null], s: 'NaN " Infinity' });
    // a token that is not one of those is still malformed
    expect(await userError(readAll(tempFile('{"a":NaNa}\n')))).toMatch(/:1: malformed JSON/);
  });

  it('says which file is missing', async () => {
    const p = join(makeTempDir(), 'nope.jsonl');
    expect(await userError(readAll(p))).toBe(`${p}: file not found`);
  });

  it('stops cleanly when the consumer breaks early', async () => {
    const p = tempFile('{"a":1}\n{"a":2}\n{"a":3}\n');
    const seen: number[] = [];
    for await (const r of readJsonl(p)) {
      seen.push(r.line);
      if (r.line === 2) break;
    }
    expect(seen).toEqual([1, 2]);
  });
});

describe('readJsonl with very long lines', () => {
  it('reads 2 MB lines across many chunks with no length cap, hash of the raw bytes', async () => {
    const big = (c: string) => c.repeat(2 * 1024 * 1024);
    const lines = [
      JSON.stringify({ id: 'a', body: big('x') }),
      JSON.stringify({ id: 'small' }),
      JSON.stringify({ id: 'b', body: big('é').slice(0, 1_500_000) + '\n' + big('y').slice(0, 600_000) }),
      JSON.stringify({ id: 'c', body: big('z') }),
    ];
    const text = lines.join('\r\n') + '\r\n';
    const buf = Buffer.from(text, 'utf8');
    const p = tempFile(buf);
    const { recs, sum } = await readAll(p, 256 * 1024);
    expect(recs.map((r) => [r.line, r.value['id'], (r.value['body'] as string | undefined)?.length ?? 0])).toEqual([
      [1, 'a', 2 * 1024 * 1024],
      [2, 'small', 0],
      [3, 'b', 2_100_001],
      [4, 'c', 2 * 1024 * 1024],
    ]);
    expect(sum).toEqual({ sha256: sha(buf), bytes: buf.length, records: 4 });
  });

  it.skipIf(process.platform === 'win32')('yields a record before the rest of the input exists (streams from a FIFO)', async () => {
    const fifo = join(makeTempDir(), 'pipe.jsonl');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      console.log('skipped FIFO streaming check: mkfifo not available');
      return;
    }
    const it = readJsonl(fifo, 64 * 1024);
    const firstP = it.next();
    const ws = createWriteStream(fifo);
    const line1 = JSON.stringify({ id: 'first', body: 'q'.repeat(2 * 1024 * 1024) }) + '\n';
    ws.write(line1);
    const first = await firstP; // the writer is still open: only line 1 exists so far
    expect(first.done).toBe(false);
    expect((first.value as JsonlRecord).value['id']).toBe('first');
    const line2 = JSON.stringify({ id: 'second' }) + '\n';
    ws.end(line2);
    const second = await it.next();
    expect((second.value as JsonlRecord).value['id']).toBe('second');
    const end = await it.next();
    expect(end.done).toBe(true);
    expect(end.value).toEqual({ sha256: sha(line1 + line2), bytes: Buffer.byteLength(line1 + line2), records: 2 });
  });
});

describe('record offsets', () => {
  it('gives each record the byte offset and length of its line (BOM, CRLF, lone CR, non-ASCII, any chunk size)', async () => {
    const lines = ['{"t":"é ü — 中文 🎉"}', '', '{"t":"b"}', '{"t":"\\u00e9 c"}', '  ', '{"t":"last"}'];
    const text = '\ufeff' + lines[0] + '\r\n' + lines[1] + '\r' + lines[2] + '\n' + lines[3] + '\r\n' + lines[4] + '\n' + lines[5];
    const bytes = Buffer.from(text, 'utf8');
    const p = tempFile(bytes);
    for (const chunk of [1, 2, 3, 5, 7, 64, 1 << 20]) {
      const seen: { line: number; text: string }[] = [];
      await readJsonlFile(p, (_v, line, offset, length) => seen.push({ line, text: bytes.subarray(offset, offset + length).toString('utf8') }), chunk);
      expect(seen).toEqual([
        { line: 1, text: lines[0] },
        { line: 3, text: lines[2] },
        { line: 4, text: lines[3] },
        { line: 6, text: lines[5] },
      ]);
    }
  });
});
