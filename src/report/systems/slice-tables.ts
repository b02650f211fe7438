/**
 * Renderings of a `compare --slice` result (analysis/slice-comparison.ts): the slice's rule once,
 * then each group's comparison in the chosen format under a heading naming the group and its query
 * count (group names are untrusted taxonomy labels or model names: escaped for each medium). CSV is
 * one table with two leading columns, `slice` and `group`; JSON one object with every group.
 */
import type { SliceComparison } from '../../analysis/slice-comparison.js';
import type { SystemsComparison } from '../../significance/systems.js';
import { escapeMd } from '../markdown.js';
import { csvField } from './csv.js';
import { escapeLatex } from './latex.js';
import { escapeTerminal } from './text.js';

export type SliceFormat = 'table' | 'md' | 'latex' | 'csv' | 'json';

function header(s: SliceComparison): string {
  const rule = s.slice === 'major' || s.slice === 'sub' ? ` Category rule: ${s.rule}.` : '';
  return `${s.note}${rule} Each group is compared on its own queries; the correction's family is per group.`;
}

export function renderSliceComparison(s: SliceComparison, format: SliceFormat, render: (c: SystemsComparison) => string): string {
  const title = (g: { group: string; queries: number }) => `${s.slice}: ${g.group} (${g.queries} ${g.queries === 1 ? 'query' : 'queries'})`;
  switch (format) {
    case 'json':
      return (
        JSON.stringify(
          {
            slice: s.slice,
            category_rule: s.rule,
            note: s.note,
            overlapping: s.overlapping,
            ...(s.boundaries ? { boundaries: s.boundaries } : {}),
            groups: s.groups.map((g) => ({ group: g.group, queries: g.queries, comparison: JSON.parse(render(g.comparison)) as unknown })),
          },
          null,
          2,
        ) + '\n'
      );
    case 'csv': {
      const lines: string[] = [];
      s.groups.forEach((g, i) => {
        const [head, ...rows] = render(g.comparison).trimEnd().split('\n');
        if (i === 0) lines.push(`slice,group,${head}`);
        for (const r of rows) lines.push(`${csvField(s.slice)},${csvField(g.group)},${r}`);
      });
      return lines.join('\n') + '\n';
    }
    case 'latex':
      return [`% ${header(s).replace(/\n/g, ' ')}`, ...s.groups.map((g) => `% ${escapeLatex(title(g)).replace(/\n/g, ' ')}\n${render(g.comparison)}`)].join('\n');
    case 'md':
      return [`${escapeMd(header(s))}\n`, ...s.groups.map((g) => `## ${escapeMd(title(g))}\n\n${render(g.comparison)}`)].join('\n');
    default:
      return [`${escapeTerminal(header(s))}\n`, ...s.groups.map((g) => `== ${escapeTerminal(title(g))} ==\n${render(g.comparison)}`)].join('\n');
  }
}
