/**
 * The two media the experiment summary is rendered for: Markdown (summary.md) and the terminal
 * (`run -v`). The summary's renderers write through a Medium, so the same sections come out as
 * Markdown with its escapes, or as plain aligned text with no markup and no HTML entities.
 */
import { escapeInline } from '../util/terminal-text.js';
import { escapeMd, mdTable } from './markdown.js';

export interface Medium {
  /** Untrusted text (ids, names, warnings), escaped for the medium. */
  esc(text: string): string;
  /** A table; cells are inserted as given (escape untrusted ones first). Ends with a newline. */
  table(header: string[], rows: string[][], align?: ('l' | 'r')[]): string;
  h1(title: string): string;
  h2(title: string): string;
  h3(title: string): string;
  bold(text: string): string;
  /** A literal name of the tool (a config key, a command, a file name). */
  code(text: string): string;
  /** A literal asterisk (a significance mark in running text). */
  star: string;
}

export const MARKDOWN: Medium = {
  esc: escapeMd,
  table: mdTable,
  h1: (t) => `# ${t}`,
  h2: (t) => `## ${t}`,
  h3: (t) => `### ${t}`,
  bold: (t) => `**${t}**`,
  code: (t) => `\`${t}\``,
  star: '\\*',
};

const width = (s: string) => [...s].length;

/** Columns padded to their widest cell, two spaces apart, a rule under the header. */
function textTable(header: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const grid = [header, ...rows];
  const widths = header.map((_, j) => Math.max(...grid.map((r) => width(r[j] ?? ''))));
  const line = (r: string[]) =>
    r
      .map((c, j) => {
        const pad = ' '.repeat(widths[j]! - width(c));
        return (align?.[j] ?? 'l') === 'r' ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}

export const TERMINAL: Medium = {
  esc: escapeInline,
  table: textTable,
  h1: (t) => `${t}\n${'='.repeat(width(t))}`,
  h2: (t) => `${t}\n${'-'.repeat(width(t))}`,
  h3: (t) => `${t}:`,
  bold: (t) => t,
  code: (t) => t,
  star: '*',
};
