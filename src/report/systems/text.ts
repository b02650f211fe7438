/**
 * Plain-text (terminal) rendering of a SystemsComparison: aligned columns, no markup (no Markdown,
 * no HTML entities); the column's best carries `^` where the other renderers bold it.
 */
import type { SystemsComparison } from '../../significance/systems.js';
import { escapeInline } from '../../util/terminal-text.js';
import { deltaTable, detailTables, mainTable, methodNotes, pairsTable, type Cell, type TableModel } from './model.js';

/** Untrusted text in a plain-text table: the one rule of util/terminal-text.ts, line breaks included. */
export const escapeTerminal = escapeInline;

/** The mark of a column's best in plain text. */
export const BEST = '^';

function cellText(c: Cell): string {
  const t = c.untrusted ? escapeTerminal(c.text) : c.text;
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '*' : '†')).join('');
  return (c.bold ? `${t}${BEST}` : t) + marks;
}

export function renderTextTable(t: TableModel): string[] {
  const grid = [...(t.header.length ? [t.header.map(cellText)] : []), ...t.rows.map((r) => r.map(cellText))];
  const widths = t.align.map((_, j) => Math.max(...grid.map((r) => [...(r[j] ?? '')].length)));
  return grid.map((r) =>
    r
      .map((cell, j) => {
        const pad = ' '.repeat(widths[j]! - [...cell].length);
        return t.align[j] === 'l' ? cell + pad : pad + cell;
      })
      .join('  ')
      .trimEnd(),
  );
}

/** The comparison as text; `details: false` leaves out the per-run tables under the Δ table. */
export function renderComparisonText(c: SystemsComparison, o: { details?: boolean } = {}): string {
  const out = [...renderTextTable(mainTable(c)), '', ...methodNotes(c, escapeTerminal, BEST)];
  if (c.rows.length > 1) out.push('', `Δ against the baseline (points ×100; p corrected):`, ...renderTextTable(deltaTable(c)));
  const p = pairsTable(c);
  if (p) out.push('', `All pairs (${p.header[0]!.text}):`, ...renderTextTable(p), '', ...p.notes);
  const base = escapeTerminal(c.rows[c.settings.baseline]!.label);
  for (const d of o.details === false ? [] : detailTables(c)) {
    out.push('', `${escapeTerminal(d.label)} against ${base} (×100; CI: ${c.settings.iterations} bootstrap resamples, seed ${c.settings.seed}):`, ...renderTextTable(d.table));
    if (d.worst.length) {
      out.push(`Queries it lost most on ${c.settings.mainKey} (baseline → run, Δ):`);
      out.push(...renderTextTable({ header: [], align: ['l', 'r', 'l', 'r', 'r'], rows: d.worst, notes: [] }).map((l) => `  ${l}`));
    }
  }
  return out.join('\n') + '\n';
}
