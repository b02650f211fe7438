import { describe, expect, it } from 'vitest';
import { escapeMd, mdTable } from '../src/report/markdown.js';

describe('markdown rendering', () => {
  it('escapes untrusted text: no HTML, no table breaks, no emphasis or links', () => {
    expect(escapeMd('<script>alert(1)</script>')).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(escapeMd('a|b')).toBe('a\\|b');
    expect(escapeMd('line1\nline2\r\nline3')).toBe('line1 line2 line3');
    expect(escapeMd('*bold* _it_ `code` [link](http://x)')).toBe('\\*bold\\* \\_it\\_ \\`code\\` \\[link\\](http://x)');
    expect(escapeMd('a & b')).toBe('a &amp; b');
  });

  it('renders a table with alignment', () => {
    expect(mdTable(['a', 'b'], [['1', '2']], ['l', 'r'])).toBe('| a | b |\n| --- | ---: |\n| 1 | 2 |\n');
  });
});
