import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { Skill } from '../src/core/types.js';
import { buildDocumentText, pyStrip } from '../src/data/text.js';

/**
 * Python 3.11: [c for c in range(0x110000) if chr(c).isspace()] — the set str.strip() removes.
 * Hand-checked: JS trim() differs on U+001C..U+001F, U+0085 (Python only) and U+FEFF (JS only).
 */
const PYTHON_311_WHITESPACE = [
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004,
  0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
];

function python3(): string | undefined {
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
    return 'python3';
  } catch {
    return undefined;
  }
}

describe('pyStrip', () => {
  it('removes exactly the single characters Python strips (every code point)', () => {
    const expected = new Set(PYTHON_311_WHITESPACE);
    const stripped: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      if (pyStrip(String.fromCodePoint(c)) === '') stripped.push(c);
    }
    expect(stripped).toEqual([...expected]);
  });

  it.skipIf(python3() === undefined)('agrees with the local python3 on its whitespace set', () => {
    const out = execFileSync('python3', ['-c', 'import sys; print(",".join(str(c) for c in range(sys.maxunicode+1) if chr(c).isspace()))'], {
      encoding: 'utf8',
    });
    expect(out.trim().split(',').map(Number)).toEqual(PYTHON_311_WHITESPACE);
  });

  it('handles the edge cases', () => {
    expect(pyStrip('')).toBe('');
    expect(pyStrip(' \t\n\r\x0b\x0c ')).toBe('');
    expect(pyStrip('\x1c\x1d a b \x1e\x1f')).toBe('a b'); // JS trim keeps \x1c..\x1f
    expect(pyStrip('\u0085x\u0085')).toBe('x'); // NEL: Python whitespace, not JS
    expect(pyStrip('\ufeffx\ufeff')).toBe('\ufeffx\ufeff'); // BOM: JS whitespace, not Python
    expect(pyStrip('\u00a0\u2028x y\u2029\u3000')).toBe('x y');
    expect(pyStrip('\u200bx\u200b')).toBe('\u200bx\u200b'); // zero-width space is not whitespace
    expect(pyStrip('\u180ex')).toBe('\u180ex'); // Mongolian vowel separator: Cf since Unicode 6.3
    expect(pyStrip('  𝄞 a\n\nb 𝄞  ')).toBe('𝄞 a\n\nb 𝄞'); // inner whitespace and astral chars kept
    const s = 'no-op';
    expect(pyStrip(s)).toBe(s);
  });
});

describe('buildDocumentText', () => {
  const skill: Skill = { id: 'x', name: '  Name\x1c', description: '\n desc  ', skillMd: '\u0085# Body\n\ntext\n' };

  it('strips each field and joins name | description | skill_md', () => {
    expect(buildDocumentText(skill)).toBe('Name | desc | # Body\n\ntext');
  });

  it('uses "" for empty fields and keeps the separators', () => {
    expect(buildDocumentText({ id: 'y', name: '', description: '   ', skillMd: '' })).toBe(' |  | ');
  });

  it('takes other fields and separators', () => {
    expect(buildDocumentText(skill, ['description', 'name'], '\n')).toBe('desc\nName');
    expect(buildDocumentText(skill, ['skill_md'])).toBe('# Body\n\ntext');
  });

  it('does not cut long text', () => {
    const body = 'w '.repeat(100_000) + 'end';
    expect(buildDocumentText({ id: 'z', name: 'n', description: 'd', skillMd: body })).toBe(`n | d | ${body}`);
  });
});
