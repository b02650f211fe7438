/**
 * LaTeX rendering of a SystemsComparison: a booktabs `tabular` inside a `table`, run labels escaped,
 * best in \textbf, marks as superscripts ($^{*}$, $^{\dagger}$), the notes in \footnotesize under it.
 * Needs \usepackage{booktabs}.
 */
import type { SystemsComparison } from '../../significance/systems.js';
import { mainTable, methodNotes, pairsTable, type Cell, type TableModel } from './model.js';

const LATEX_SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
};

/** Escapes text for LaTeX (text mode); control characters and newlines become spaces. */
export function escapeLatex(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/[\\&%$#_{}~^<>|]/g, (ch) => LATEX_SPECIAL[ch]!);
}

function cellTex(c: Cell): string {
  const t = c.untrusted ? escapeLatex(c.text) : c.text.replace('Δ', '$\\Delta$').replace('–', '--');
  const marks = (c.marks ?? []).map((m) => (m === 'sig' ? '*' : '\\dagger')).join('');
  return (c.bold ? `\\textbf{${t}}` : t) + (marks ? `$^{${marks}}$` : '');
}

function tabular(t: TableModel, notes: string[]): string {
  const lines = [
    '\\begin{table}[t]',
    '\\centering',
    `\\begin{tabular}{${t.align.join('')}}`,
    '\\toprule',
    t.header.map(cellTex).join(' & ') + ' \\\\',
    '\\midrule',
    ...t.rows.map((r) => r.map(cellTex).join(' & ') + ' \\\\'),
    '\\bottomrule',
    '\\end{tabular}',
    '',
    `\\par\\smallskip\\footnotesize ${notes.map((n) => escapeLatex(n).replace(/†/g, '$^{\\dagger}$').replace(/α/g, '$\\alpha$').replace(/Δ/g, '$\\Delta$').replace(/×/g, '$\\times$').replace(/–/g, '--')).join(' ')}`,
    '\\end{table}',
  ];
  return lines.join('\n') + '\n';
}

export function renderComparisonLatex(c: SystemsComparison): string {
  const out = [tabular(mainTable(c), methodNotes(c, (s) => s))];
  const p = pairsTable(c);
  if (p) out.push(tabular(p, [...p.notes, ...methodNotes(c, (s) => s).slice(1, 2)]));
  return out.join('\n');
}
