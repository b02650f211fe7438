/**
 * Control characters in data never reach the terminal or the reports raw: C0 (but newline and
 * tab), DEL and C1 become visible `\uXXXX` escapes in stdout, stderr, summary.md and `compare`
 * output. End to end with a skill `major` holding ESC c (full reset), ESC 7 / ESC M and BEL, and a
 * query id holding the one-byte CSI U+009B.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControl, escapeInline } from '../src/util/terminal-text.js';
import { escapeMd } from '../src/report/markdown.js';
import { runCli } from './helpers/cli.js';

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('escapeControl', () => {
  it('escapes C0 (but newline and tab), DEL and C1 visibly; keeps everything else', () => {
    expect(escapeControl('a\u001bcb\u00077\u001bM\u009b31m\r\u007f\u0000')).toBe('a\\u001bcb\\u00077\\u001bM\\u009b31m\\u000d\\u007f\\u0000');
    expect(escapeControl('line 1\n\tline 2 — é ✓')).toBe('line 1\n\tline 2 — é ✓');
    expect(escapeControl('a\nb', '')).toBe('a\\u000ab');
  });
  it('keeps JSON valid and meaning the same (a C1 character JSON.stringify leaves raw)', () => {
    const v = { id: 'q\u009b1\u001b[2J', n: 1 };
    const out = escapeControl(JSON.stringify(v));
    expect(out).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(out)).toEqual(v);
  });
  it('escapeInline (table cells) escapes line breaks too: newline, tab, U+2028, U+2029', () => {
    expect(escapeInline('a\nb\tc\u2028d\u2029e\u001b')).toBe('a\\u000ab\\u0009c\\u2028d\\u2029e\\u001b');
    expect(escapeInline('plain — é ✓')).toBe('plain — é ✓');
  });
  it('escapes the bidirectional override, embedding and isolate controls (Trojan Source); keeps RTL text and marks', () => {
    const evil = 'admin\u202e\u2066// check\u2069\u2067x\u2068\u202a\u202b\u202c\u202d';
    expect(escapeControl(evil)).toBe('admin\\u202e\\u2066// check\\u2069\\u2067x\\u2068\\u202a\\u202b\\u202c\\u202d');
    expect(escapeInline('\u202e')).toBe('\\u202e');
    expect(escapeMd('a\u2066b')).toBe('a\\u2066b');
    expect(escapeControl('שלום \u200f عربي')).toBe('שלום \u200f عربي');
    const v = { id: 'q\u202e1' };
    expect(JSON.parse(escapeControl(JSON.stringify(v)))).toEqual(v);
  });
  it('escapeMd applies it too', () => {
    expect(escapeMd('x\u001bc|y')).toBe('x\\u001bc\\|y');
  });
});

describe('end to end: run, summary.md, compare', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'skillret-ctrl-'));
    const data = join(root, 'data');
    cpSync(resolve(__dirname, '..', 'data', 'mini'), data, { recursive: true });
    const skills = join(data, 'skills', 'test.jsonl');
    const lines = readFileSync(skills, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const s of lines) s.major = `Evil\u001bc\u001b7\u001bM\u0007 ${String(s.major)}`;
    writeFileSync(skills, lines.map((s) => JSON.stringify(s)).join('\n') + '\n');
    for (const [sub, key] of [
      ['queries', 'id'],
      ['qrels', 'query_id'],
    ] as const) {
      const f = join(data, sub, 'test.jsonl');
      writeFileSync(f, readFileSync(f, 'utf8').replaceAll(`"${key}":"q-00001"`, `"${key}":"q-\\u009b31m00001"`));
    }
    writeFileSync(
      join(root, 'c.yaml'),
      `name: ctrl\ndataset: { path: ${JSON.stringify(data)}, split: test }\nretrievers:\n  - { id: bm25, type: bm25, top_k: 10 }\n  - { id: bm25b, type: bm25, top_k: 10, k1: 1.2 }\nrerankers: [{ id: none }]\noutput: ${JSON.stringify(join(root, 'out'))}\n`,
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('no raw control character on stdout, stderr or in summary.md', async () => {
    const r = await runCli(['run', join(root, 'c.yaml'), '--no-cache']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    expect(r.err).not.toMatch(RAW_CONTROL);
    const summary = readFileSync(join(root, 'out', 'summary.md'), 'utf8');
    expect(summary).toContain('Evil\\u001bc\\u001b7\\u001bM\\u0007');
    expect(summary).not.toMatch(RAW_CONTROL);
    for (const format of ['table', 'json']) {
      const c = await runCli(['compare', join(root, 'out', 'bm25', 'none'), join(root, 'out', 'bm25b', 'none'), '--format', format, '--iterations', '200']);
      expect(c.code, c.err).toBe(0);
      expect(c.out + c.err).not.toMatch(RAW_CONTROL);
    }
  });
});
