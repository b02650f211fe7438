/** GitHub-flavoured Markdown rendering of a SystemsComparison (run labels escaped). */
import type { SystemsComparison } from '../../significance/systems.js';
import { escapeMd, mdTable } from '../markdown.js';
import { deltaTable, mainTable, methodNotes, pairsTable, type Cell, type TableModel } from './model.js';

function cellMd(c: Cell): string {
  const t = c.untrusted ? escapeMd(c.text) : c.text;
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '\\*' : '†')).join('');
  return (c.bold ? `**${t}**` : t) + marks;
}

/** A TableModel as a GitHub-flavoured Markdown table (untrusted cells escaped, marks as `\*` and `†`). */
export function renderTableMarkdown(t: TableModel): string {
  return table(t);
}

function table(t: TableModel): string {
  return mdTable(t.header.map(cellMd), t.rows.map((r) => r.map(cellMd)), t.align);
}

export function renderComparisonMarkdown(c: SystemsComparison): string {
  const out = [table(mainTable(c)), methodNotes(c, escapeMd).map((n) => n.replace(/\*:/g, '\\*:')).join('\n') + '\n'];
  if (c.rows.length > 1) out.push('Δ against the baseline (points ×100; p corrected):\n', table(deltaTable(c)));
  const p = pairsTable(c);
  if (p) out.push(`All pairs (${escapeMd(p.header[0]!.text)}):\n`, table(p), p.notes.map((n) => n.replace(/\*:/g, '\\*:')).join('\n') + '\n');
  return out.join('\n');
}
