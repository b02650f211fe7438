/**
 * The regression gate's renderings (the values are analysis/gates.ts `GateReport`): the gate table
 * of summary.md, the terminal and the GitHub step summary (through a Medium), one line per failed
 * gate, the tally line, gates.json (deterministic: no time, no absolute path of ours) and the JUnit
 * XML of `--junit`. Formatting only.
 */
import type { GateOutcome, GateReport } from '../analysis/gates.js';
import { formatFixed, roundHalfEven } from '../util/python-round.js';
import { plural } from '../util/plural.js';
import { escapeControl } from '../util/terminal-text.js';
import { pct, pval } from './cells.js';
import { MARKDOWN } from './medium.js';
import { escapeMd, mdTable } from './markdown.js';
import type { Medium } from './medium.js';

/** The name of the file of a results folder that holds the gate outcomes (written only when the experiment has expectations). */
export const GATES_FILE = 'gates.json';

/** Points as printed: 2 decimals, more when the number given has more. */
function pts(x: number): string {
  if (!Number.isFinite(x)) return '–';
  for (let d = 2; d <= 6; d++) if (Math.abs(roundHalfEven(x, d) - x) < 1e-9) return formatFixed(x, d);
  return String(x);
}

const signed = (x: number): string => (!Number.isFinite(x) ? '–' : x < 0 ? pts(x) : `+${pts(x)}`);

/** What a gate expects, in words: `75.08 ± 0.05`, `= 75.08`, `≥ 70.00`, `70.00 to 80.00`, `not worse than bm25/none (51.69)`. */
export function expectedText(o: GateOutcome, esc: (s: string) => string = (s) => s): string {
  const e = o.expectation;
  if (o.kind === 'value') return e.tolerance ? `${pts(e.value!)} ± ${pts(e.tolerance)}` : `= ${pts(e.value!)}`;
  if (o.kind === 'range') {
    if (e.at_least !== undefined && e.at_most !== undefined) return `${pts(e.at_least)} to ${pts(e.at_most)}`;
    return e.at_least !== undefined ? `≥ ${pts(e.at_least)}` : `≤ ${pts(e.at_most!)}`;
  }
  return `not worse than ${esc(e.not_worse_than!)} (${pts(o.reference!.measured)})`;
}

function correctionName(g: GateReport): string {
  const c = g.test.correction;
  return c === 'none' ? 'no correction' : c === 'holm' ? 'Holm' : 'Bonferroni';
}

/** The test behind the not_worse_than gates, in words (after the table). */
export function testText(g: GateReport): string {
  const t = g.test;
  const test = t.name === 't' ? 'paired t-test' : `paired randomisation test (${t.iterations} iterations, seed ${t.seed})`;
  return `not worse than: fails when the run is below the other run and the difference is significant at α = ${t.alpha}: ${test}, ${correctionName(g)} over the ${plural(t.family, 'not_worse_than gate')}`;
}

/** One failed gate, one line: run, metric, expected, measured and Δ (and the test of a not_worse_than). */
export function failureLine(o: GateOutcome, g: GateReport): string {
  const e = o.expectation;
  const test = o.reference
    ? `; p ${pval(o.reference.pCorrected)} after ${correctionName(g)} over ${plural(g.test.family, 'gate')} < α ${g.test.alpha}`
    : o.kind === 'value'
      ? `; |Δ| > ${pts(e.tolerance ?? 0)}`
      : '';
  return `gate failed: ${e.run} ${e.metric}: expected ${expectedText(o)}, measured ${pts(o.measured)}, Δ ${signed(o.delta)}${test} (${e.from})`;
}

/** The failed gates' lines, in gate order. */
export function failureLines(g: GateReport): string[] {
  return g.outcomes.filter((o) => !o.passed).map((o) => failureLine(o, g));
}

/** `gates: 3 of 3 passed` / `gates: 2 of 3 passed, 1 failed`. */
export function tallyLine(g: GateReport): string {
  const n = g.outcomes.length;
  return `gates: ${g.passed} of ${n} passed${g.failed > 0 ? `, ${g.failed} failed` : ''}`;
}

/** The gate table (one row per gate, in the order written) with the tally and the test under it. */
export function renderGateSection(g: GateReport, m: Medium): string {
  const header = ['Run', 'Metric', 'Expected', 'Measured', 'Δ', 'p (corr.)', 'Result'];
  const anyTest = g.outcomes.some((o) => o.reference);
  const cols = anyTest ? header : header.filter((h) => h !== 'p (corr.)');
  const rows = g.outcomes.map((o) => {
    const cells = [m.esc(o.expectation.run), m.esc(o.expectation.metric), expectedText(o, m.esc), pts(o.measured), signed(o.delta)];
    if (anyTest) cells.push(o.reference ? pval(o.reference.pCorrected) : '–');
    cells.push(o.passed ? 'pass' : m.bold('FAIL'));
    return cells;
  });
  const align = cols.map((h) => (h === 'Run' || h === 'Metric' || h === 'Expected' || h === 'Result' ? ('l' as const) : ('r' as const)));
  const notes = [`${tallyLine(g)}. Measured: the printed value (×100, 2 decimals); Δ in points against the expected value, the bound or the other run.`];
  if (anyTest) notes.push(`${testText(g)}.`);
  return `\n${m.h2('Regression gate')}\n\n${m.table(cols, rows, align)}\n${notes.join(' ')}\n`;
}

const r5 = (x: number) => (Number.isFinite(x) ? roundHalfEven(x, 5) : null);

/** gates.json: every gate with what it expected and measured (percent points), the tally and the test. */
export function gatesJson(g: GateReport): Record<string, unknown> {
  return {
    passed: g.passed,
    failed: g.failed,
    units: 'percent points (printed values: round(mean, 5) × 100, 2 decimals)',
    test: { name: g.test.name, correction: g.test.correction, alpha: g.test.alpha, seed: g.test.seed, iterations: g.test.iterations, family: g.test.family },
    gates: g.outcomes.map((o) => {
      const e = o.expectation;
      const expected =
        o.kind === 'value'
          ? { value: e.value, tolerance: e.tolerance ?? 0 }
          : o.kind === 'range'
            ? { ...(e.at_least !== undefined ? { at_least: e.at_least } : {}), ...(e.at_most !== undefined ? { at_most: e.at_most } : {}) }
            : { not_worse_than: e.not_worse_than };
      return {
        run: e.run,
        metric: e.metric,
        from: e.from,
        kind: o.kind,
        expected,
        measured: Number.isFinite(o.measured) ? o.measured : null,
        delta: Number.isFinite(o.delta) ? o.delta : null,
        ...(o.reference
          ? { reference: { run: e.not_worse_than, measured: o.reference.measured, worse: o.reference.worse, p: r5(o.reference.pRaw), p_corrected: r5(o.reference.pCorrected) } }
          : {}),
        passed: o.passed,
      };
    }),
  };
}

/**
 * Text for XML: control characters made visible (`\uXXXX`, util/terminal-text.ts, as in every other
 * output; newline and tab kept), the other characters XML 1.0 forbids (lone surrogates, U+FFFE,
 * U+FFFF) likewise, then the five special characters and the line breaks and tabs as references
 * (so an attribute keeps them).
 */
export function escapeXml(s: string): string {
  return escapeControl(s)
    .replace(/[\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

/**
 * The JUnit XML of `--junit`: one testsuite (`suite`: the experiment's name, or `score`), one
 * testcase per gate (classname the suite and run, name the run, metric and expectation), a
 * `<failure>` with the failure line for each failed one; no gate: an empty testsuite. Every text is
 * escaped (escapeXml).
 */
export function junitXml(g: GateReport | undefined, suite: string): string {
  const a = (s: string) => escapeXml(s);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="${a(`skillret-eval gates: ${suite}`)}" tests="${g?.outcomes.length ?? 0}" failures="${g?.failed ?? 0}" errors="0" skipped="0">`,
  ];
  for (const o of g?.outcomes ?? []) {
    const e = o.expectation;
    const open = `  <testcase classname="${a(`${suite}.${e.run}`)}" name="${a(`${e.run} ${e.metric} ${expectedText(o)}`)}"`;
    if (o.passed) lines.push(`${open}/>`);
    else {
      const line = failureLine(o, g!);
      lines.push(`${open}>`, `    <failure message="${a(line)}" type="regression">${a(line)}</failure>`, '  </testcase>');
    }
  }
  lines.push('</testsuite>');
  return lines.join('\n') + '\n';
}

/** What `score --expect` appends to $GITHUB_STEP_SUMMARY: the measures of the scored run (×100) and the gate table. */
export function renderScoreMarkdown(label: string, metrics: Readonly<Record<string, number>>, g: GateReport): string {
  const keys = Object.keys(metrics);
  return (
    `### skillret-eval score: ${escapeMd(label)}\n\n` +
    mdTable(['Measure', '×100'], keys.map((k) => [escapeMd(k), pct(metrics[k])]), ['l', 'r']) +
    renderGateSection(g, MARKDOWN) +
    '\n'
  );
}
