/**
 * The parts of summary.md's "Published results" section beyond one row per run (formatting only;
 * src/paper/published-categories.ts and published-golden.ts compute every number):
 * - paper Tables 6 and 16: the category rule, the group sizes against Table 16's n_queries (match or
 *   mismatch, stated), and per paired run and table its categories: queries, yours, published (its
 *   column's decimals), Δ and verdict;
 * - rows published as stored fractions (the BM25 golden dict): yours and published ×100 at 3
 *   decimals, Δ, verdict, and how many are exact.
 */
import { formatPercent } from '../metrics/official-percent.js';
import { describeTolerances } from '../metrics/verdict.js';
import { formatFixed } from '../util/python-round.js';
import { noun, plural } from '../util/plural.js';
import type { CategoryPairing, GroupSizeCheck } from '../paper/published-categories.js';
import type { GoldenComparison } from '../paper/published-golden.js';
import type { Tolerances } from '../metrics/verdict.js';
import type { Medium } from './medium.js';
import { publishedPct } from './cells.js';

const signed = (x: number | undefined, decimals = 2) => {
  if (x === undefined) return '–';
  const s = formatFixed(x === 0 ? 0 : x, decimals);
  return s.startsWith('-') ? s : `+${s}`;
};
const count = (n: number) => n.toLocaleString('en-US');
const other = (rule: string) => (rule === 'each_gold' ? 'primary_gold' : 'each_gold');

function sizeText(s: GroupSizeCheck, md: Medium): string {
  const rule = s.rule;
  const alt = other(rule) as keyof GroupSizeCheck['match'];
  const head =
    `Group sizes against ${md.esc(s.table)}'s n_queries (${s.rows.length} sub-categories, ${count(s.publishedTotal)} memberships): ` +
    (s.match[rule]
      ? `${md.bold('match')} under ${md.code(rule)}: every sub-category has its published n_queries (${count(s.totals[rule])} memberships over ${count(s.queries)} evaluated ${noun(s.queries, 'query', 'queries')}).`
      : `${md.bold('mismatch')} under ${md.code(rule)}: ${count(s.totals[rule])} memberships over ${count(s.queries)} evaluated ${noun(s.queries, 'query', 'queries')}.`) +
    ` Under ${md.code(alt)}: ${s.match[alt] ? 'match' : `mismatch (${count(s.totals[alt])})`}.`;
  if (s.match[rule]) return `${head}\n`;
  const rows = s.rows.filter((r) => r.yours[rule] !== r.published).map((r) => [md.esc(r.major), md.esc(r.sub), count(r.published), count(r.yours[rule]), count(r.yours[alt])]);
  for (const u of s.unlisted) rows.push(['', md.esc(u.group), '–', count(u.queries), '–']);
  return `${head}\n\n${md.table(['Major', 'Sub-category', 'paper n', `yours (${rule})`, `yours (${alt})`], rows, ['l', 'l', 'r', 'r', 'r'])}`;
}

/** Tables 6 and 16 (empty string when there is nothing to show). */
export function renderCategoryPairing(p: CategoryPairing | undefined, tolerances: Tolerances, md: Medium): string {
  if (!p) return '';
  const out = [`${md.h3('Per category (paper Tables 6 and 16)')}\n`];
  out.push(
    `Each query in the categories of its gold skills by ${md.code(`report.category_rule: ${p.rule}`)}; yours = the category's mean over its queries (the slices below), published values with their published decimals, Δ = yours − published in points.\n`,
  );
  for (const s of p.sizes) out.push(sizeText(s, md));
  if (p.runs.length === 0) {
    out.push('No run here is a model of Tables 6 and 16 (Qwen3-Embedding-0.6B/-8B, SkillRet-Embedding-0.6B/-8B) without a reranker.\n');
    return out.join('\n');
  }
  for (const r of p.runs) {
    const rows = r.cells.map((c) => [md.esc(c.column), c.queries === undefined ? '–' : count(c.queries), c.yours === undefined ? '–' : formatPercent(c.yours), publishedPct(c.published, c.decimals), signed(c.delta), c.verdict]);
    out.push(`${md.esc(r.retriever)} / ${md.esc(r.reranker)}: ${md.esc(r.row)} (${md.esc(r.table)}, by ${r.slice}), verdict ${md.bold(r.verdict)}.\n`);
    out.push(md.table(['Column', 'queries', 'yours', 'paper', 'Δ', 'verdict'], rows, ['l', 'r', 'r', 'r', 'r', 'l']));
  }
  out.push(`Per-category verdict: ${md.bold(p.verdict)} over ${plural(p.runs.length, 'paired table')} (${md.esc(describeTolerances(tolerances))}); a published category absent from the data counts as FAIL.\n`);
  return out.join('\n');
}

/** Rows published as stored fractions (empty string when none). */
export function renderGolden(golden: readonly GoldenComparison[] | undefined, tolerances: Tolerances, md: Medium): string {
  if (!golden || golden.length === 0) return '';
  const out: string[] = [];
  for (const g of golden) {
    out.push(`${md.h3(`Stored fractions (${md.esc(g.table)})`)}\n`);
    out.push(`${md.esc(g.source)}. Yours = round(mean, 5) and published, both ×100 (3 decimals); Δ in points.\n`);
    const cols = g.cells.map((c) => md.esc(c.metric));
    out.push(
      md.table(
        ['Run', '', ...cols],
        [
          [`${md.esc(g.retriever)} / ${md.esc(g.reranker)}`, 'yours', ...g.cells.map((c) => formatFixed(c.yours * 100, 3))],
          ['', 'paper', ...g.cells.map((c) => formatFixed(c.published * 100, 3))],
          ['', 'Δ', ...g.cells.map((c) => signed(c.delta, 3))],
          ['', 'verdict', ...g.cells.map((c) => c.verdict)],
        ],
        ['l', 'l', ...cols.map(() => 'r' as const)],
      ),
    );
    out.push(`${md.esc(g.row)}: ${g.exact} of ${g.cells.length} stored fractions equal to the published ones; verdict ${md.bold(g.verdict)} (${md.esc(describeTolerances(tolerances))}).\n`);
  }
  return out.join('\n');
}
