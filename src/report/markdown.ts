/**
 * Markdown rendering primitives. Every untrusted string (ids from data files,
 * query ids, model names) goes through `escapeMd` before it reaches a report.
 */
import { escapeControl } from '../util/terminal-text.js';

/**
 * Escapes text for a Markdown table cell or paragraph: no HTML, no table breaks, no emphasis, and
 * control characters made visible (util/terminal-text.ts), so the file is safe to `cat` too.
 */
export function escapeMd(text: string): string {
  return escapeControl(text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1'));
}

/** A GitHub-flavoured Markdown table. Cells are inserted as given: escape untrusted ones first. */
export function mdTable(header: string[], rows: string[][], align?: ('l' | 'r')[]): string {
  const sep = header.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(sep), ...rows.map(line)].join('\n') + '\n';
}
