/**
 * The regression gate (issue 30 item 1): a config's `expect:` and `--expect FILE` on `run` and
 * `score`, on the bundled fixture (data/mini): exit 0 with a tally when every gate passes; exit 1
 * with one stderr line per failed gate after a deliberate regression, the results still written;
 * gates.json; `--junit` parsed by a real XML parser; $GITHUB_STEP_SUMMARY appended; bad entries
 * are exit 2 before any work, one line each naming file:line: expect[i].key.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeXml, junitXml } from '../src/report/gates.js';
import type { GateReport } from '../src/analysis/gates.js';
import { runCli } from './helpers/cli.js';
import { cleanupTemp, makeTempDir } from './fixtures/data/make-dataset.js';

const mini = resolve(__dirname, '../data/mini');

/** A config of two runs on the fixture: bm25/none (NDCG@10 84.31) and glove/none (65.01, significantly worse). */
function config(dir: string, expectLines: string[], name = 'gates'): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      `name: ${name}`,
      `dataset: { path: ${JSON.stringify(mini)}, split: test }`,
      'retrievers:',
      '  - { id: bm25, type: bm25, top_k: 20 }',
      '  - { id: glove, type: dense, model: glove-6b-100d-static, top_k: 20 }',
      'stats: { iterations: 2000 }',
      ...(expectLines.length ? ['expect:', ...expectLines] : []),
      `output: ${JSON.stringify(join(dir, 'out'))}`,
      '',
    ].join('\n'),
  );
  return file;
}

const PASSING = [
  '  - { run: bm25/none, metric: NDCG@10, value: 84.31 }',
  '  - { run: glove/none, metric: ndcg_cut_10, value: 65.0, tolerance: 0.05 }',
  '  - { run: glove/none, metric: Recall@10, at_least: 90, at_most: 95 }',
  '  - { run: bm25/none, metric: NDCG@10, not_worse_than: glove/none }',
];

/** An XML parser that throws on any error or warning. */
function parseXml(text: string): Document {
  return new DOMParser({
    onError: (level: string, message: string) => {
      throw new Error(`${level}: ${message}`);
    },
  }).parseFromString(text, 'text/xml') as unknown as Document;
}

afterAll(() => cleanupTemp());

describe('run with expect:', () => {
  it('every gate passes: exit 0, the gate table and a one-line tally, gates.json (same bytes on a rerun), no stderr line', async () => {
    const dir = makeTempDir('gates-pass-');
    const cfg = config(dir, PASSING);
    const r = await runCli(['run', cfg, '-q', '--no-cache']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Regression gate');
    expect(r.out).toMatch(/^gates: 4 of 4 passed\./m);
    const gates = JSON.parse(readFileSync(join(dir, 'out', 'gates.json'), 'utf8'));
    expect(gates).toMatchObject({ passed: 4, failed: 0, test: { name: 'randomization', correction: 'holm', alpha: 0.05, seed: 42, iterations: 2000, family: 1 } });
    expect(gates.gates.map((g: { run: string; metric: string; kind: string; measured: number; passed: boolean }) => [g.run, g.metric, g.kind, g.measured, g.passed])).toEqual([
      ['bm25/none', 'NDCG@10', 'value', 84.31, true],
      ['glove/none', 'NDCG@10', 'value', 65.01, true],
      ['glove/none', 'Recall@10', 'range', 91.27, true],
      ['bm25/none', 'NDCG@10', 'not_worse_than', 84.31, true],
    ]);
    expect(gates.gates[3].reference).toMatchObject({ run: 'glove/none', measured: 65.01, worse: false });
    expect(readFileSync(join(dir, 'out', 'summary.md'), 'utf8')).toContain('## Regression gate');
    const first = readFileSync(join(dir, 'out', 'gates.json'));
    expect((await runCli(['run', cfg, '-q', '--no-cache'])).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'gates.json')).equals(first)).toBe(true);
  });

  it('a config without expectations writes no gates.json and no gate table', async () => {
    const dir = makeTempDir('gates-none-');
    const r = await runCli(['run', config(dir, []), '-q', '--no-cache']);
    expect(r.code).toBe(0);
    expect(r.out).not.toContain('Regression gate');
    expect(existsSync(join(dir, 'out', 'gates.json'))).toBe(false);
    expect(readFileSync(join(dir, 'out', 'summary.md'), 'utf8')).not.toContain('Regression gate');
  });

  it('after a deliberate regression: exit 1, one stderr line per failed gate (run, metric, expected, measured, Δ), the results still written; a later passing run replaces gates.json', async () => {
    const dir = makeTempDir('gates-fail-');
    const cfg = config(dir, [
      '  - { run: bm25/none, metric: NDCG@10, value: 85.00, tolerance: 0.05 }', // the expectation moved: 84.31 measured
      '  - { run: glove/none, metric: NDCG@10, not_worse_than: bm25/none }', // against a stronger run
      '  - { run: glove/none, metric: Recall@10, at_least: 95 }',
      '  - { run: bm25/none, metric: Recall@10, at_most: 100 }',
    ]);
    const r = await runCli(['run', cfg, '-q', '--no-cache']);
    expect(r.code).toBe(1);
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe('skillret-eval: gate failed: bm25/none NDCG@10: expected 85.00 ± 0.05, measured 84.31, Δ -0.69; |Δ| > 0.05 (expect[0])');
    expect(lines[1]).toMatch(/^skillret-eval: gate failed: glove\/none NDCG@10: expected not worse than bm25\/none \(84\.31\), measured 65\.01, Δ -19\.30; p 0\.\d{4} after Holm over 1 gate < α 0\.05 \(expect\[1\]\)$/);
    expect(lines[2]).toBe('skillret-eval: gate failed: glove/none Recall@10: expected ≥ 95.00, measured 91.27, Δ -3.73 (expect[2])');
    expect(r.out).toMatch(/^gates: 1 of 4 passed, 3 failed\./m);
    for (const f of ['summary.md', 'report.html', 'manifest.json', 'bm25/none/metrics.json', 'glove/none/per-query.jsonl']) expect(existsSync(join(dir, 'out', f)), f).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'out', 'gates.json'), 'utf8'))).toMatchObject({ passed: 1, failed: 3 });
    // The gate's raw p is the leaderboard's own for the pair (same test, seed and iterations).
    expect(r.out).toMatch(/glove\/none +65\.01\*/);

    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^expect:[\s\S]*?(?=^output:)/m, ''));
    expect((await runCli(['run', cfg, '-q', '--no-cache'])).code).toBe(0);
    expect(existsSync(join(dir, 'out', 'gates.json'))).toBe(false);
  });

  it('--expect FILE adds to the config\'s; --junit writes JUnit XML that parses, with every untrusted text escaped', async () => {
    const dir = makeTempDir('gates-junit-');
    const odd = join(dir, `a&b<c>"d'e`);
    mkdirSync(odd);
    const expectFile = join(odd, 'expect.yaml');
    writeFileSync(expectFile, ['- { run: glove/none, metric: NDCG@10, not_worse_than: bm25/none }', '- { run: bm25/none, metric: MRR@10, at_least: 10 }', ''].join('\n'));
    const junit = join(dir, 'junit.xml');
    const r = await runCli(['run', config(dir, [PASSING[0]!]), '-q', '--no-cache', '--expect', expectFile, '--junit', junit]);
    expect(r.code).toBe(1);
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`(${expectFile} expect[0])`);
    const doc = parseXml(readFileSync(junit, 'utf8'));
    const suites = doc.getElementsByTagName('testsuite');
    expect(suites.length).toBe(1);
    const suite = suites[0]!;
    expect([suite.getAttribute('name'), suite.getAttribute('tests'), suite.getAttribute('failures')]).toEqual(['skillret-eval gates: gates', '3', '1']);
    const cases = [...Array.from({ length: doc.getElementsByTagName('testcase').length }, (_, i) => doc.getElementsByTagName('testcase')[i]!)];
    expect(cases.map((c) => c.getAttribute('name'))).toEqual(['bm25/none NDCG@10 = 84.31', 'glove/none NDCG@10 not worse than bm25/none (84.31)', 'bm25/none MRR@10 ≥ 10.00']);
    const failures = doc.getElementsByTagName('failure');
    expect(failures.length).toBe(1);
    expect(failures[0]!.getAttribute('message')).toBe(r.err.trimEnd().replace(/^skillret-eval: /, ''));
    expect(failures[0]!.parentNode).toBe(cases[1]);
    expect(failures[0]!.textContent).toContain(`(${expectFile} expect[0])`);
  });

  it('$GITHUB_STEP_SUMMARY: the compact summary (leaderboard and gate table) is appended to the file', async () => {
    const dir = makeTempDir('gates-step-');
    const step = join(dir, 'step-summary.md');
    writeFileSync(step, '# earlier step\n');
    const saved = process.env.GITHUB_STEP_SUMMARY;
    process.env.GITHUB_STEP_SUMMARY = step;
    try {
      expect((await runCli(['run', config(dir, PASSING), '-q', '--no-cache'])).code).toBe(0);
      appendFileSync(step, '# later step\n');
    } finally {
      if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
      else process.env.GITHUB_STEP_SUMMARY = saved;
    }
    const text = readFileSync(step, 'utf8');
    expect(text.startsWith('# earlier step\n### skillret-eval: gates\n')).toBe(true);
    expect(text).toContain('| bm25/none (baseline) | 84.31 |');
    expect(text).toContain('## Regression gate');
    expect(text).toContain('| glove/none | Recall@10 | 90.00 to 95.00 | 91.27 | +1.27 | – | pass |');
    expect(text.endsWith('\n\n# later step\n')).toBe(true);
  });
});

describe('bad expectations: exit 2 before any work, one line each (file:line: expect[i].key)', () => {
  it('in the config', async () => {
    const dir = makeTempDir('gates-bad-');
    const cfg = config(dir, [
      '  - { run: bm25/nne, metric: NDCG@10, value: 80 }',
      '  - { run: glove/none, metric: NDCG@20, at_least: 10 }',
      '  - { run: glove/none, metric: NDCG@10, not_worse_than: dense/none }',
      '  - { run: glove/none, metric: NDCG@10, value: 80, at_most: 90 }',
      '  - { run: glove/none, metric: NDCG@10, tolerance: 1, at_least: 1 }',
      '  - { run: glove/none, metric: NDCG@10 }',
      '  - { metric: NDCG@10, at_least: 1, colour: red }',
      '  - { run: glove/none, metric: nDCG, value: 101 }',
    ]);
    const r = await runCli(['run', cfg, '-q', '--no-cache']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(existsSync(join(dir, 'out'))).toBe(false);
    expect(r.err.trimEnd().split('\n')).toEqual([
      `skillret-eval: ${cfg}:8: expect[0].run: unknown run "bm25/nne" (did you mean "bm25/none"?)`,
      `skillret-eval: ${cfg}:9: expect[1].metric: NDCG@20 is not measured (measured: NDCG@5, NDCG@10, NDCG@15, MAP@5, MAP@10, MAP@15, Recall@5, Recall@10, Recall@15, Precision@5, Precision@10, Precision@15, Completeness@5, Completeness@10, Completeness@15, MRR@5, MRR@10, MRR@15); add its cutoff to k or the measure to measures`,
      `skillret-eval: ${cfg}:10: expect[2].not_worse_than: unknown run "dense/none" (runs: bm25/none, glove/none)`,
      `skillret-eval: ${cfg}:11: expect[3].at_most: cannot be combined with value in one entry; write two entries`,
      `skillret-eval: ${cfg}:12: expect[4].tolerance: only with value`,
      `skillret-eval: ${cfg}:13: expect[5]: give one of value (with tolerance), at_least / at_most, or not_worse_than`,
      `skillret-eval: ${cfg}:14: expect[6].colour: unknown key (allowed: run, metric, value, tolerance, at_least, at_most, not_worse_than)`,
      `skillret-eval: ${cfg}:14: expect[6].run: missing (expected the run it checks, one of bm25/none, glove/none)`,
      `skillret-eval: ${cfg}:15: expect[7].metric: measure "nDCG": needs a cutoff, e.g. NDCG@10`,
      `skillret-eval: ${cfg}:15: expect[7].value: expected number to be <=100, got number 101`,
    ]);
  });

  it('in an --expect file (a mapping with expect: too), listed with the --junit path problem', async () => {
    const dir = makeTempDir('gates-bad-file-');
    const file = join(dir, 'expect.yaml');
    writeFileSync(file, ['expect:', '  - run: glove/none', '    metric: Recall@10', '    at_least: 90', '  - run: bm25', '    metric: NDCG@10', '    value: 84.31', ''].join('\n'));
    const r = await runCli(['run', config(dir, []), '-q', '--no-cache', '--expect', file, '--junit', join(dir, 'nope', 'j.xml')]);
    expect(r.code).toBe(2);
    expect(r.err.trimEnd().split('\n')).toEqual([
      `skillret-eval: ${file}:5: expect[1].run: unknown run "bm25" (runs: bm25/none, glove/none)`,
      expect.stringMatching(/^skillret-eval: --junit: .*nope: no such folder$/),
    ]);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    for (const [text, want] of [
      ['', 'the expect file must be a list of expectations'],
      ['[{ run: bm25/none, metric: NDCG@10, value: 1 }', 'invalid YAML'],
    ] as const) {
      writeFileSync(file, text);
      const b = await runCli(['run', config(dir, []), '--dry-run', '--expect', file]);
      expect(b.code).toBe(2);
      expect(b.err.trimEnd().split('\n')).toHaveLength(1);
      expect(b.err).toContain(want);
    }
    const missing = await runCli(['run', config(dir, []), '--dry-run', '--expect', dir]);
    expect(missing.err).toBe(`skillret-eval: ${dir}: the expect file is not a file (a folder)\n`);
  });
});

describe('score --expect', () => {
  const qrels = join(mini, 'qrels', 'test.jsonl');
  it('passes and fails on one scored run (run: left out, or the run file\'s name); JSON carries the gates; JUnit parses', async () => {
    const dir = makeTempDir('gates-score-');
    const run = join(dir, 'bm25.trec');
    const base = makeTempDir('gates-score-run-');
    expect((await runCli(['run', config(base, []), '-q', '--no-cache'])).code).toBe(0);
    writeFileSync(run, readFileSync(join(base, 'out', 'bm25', 'none', 'run.trec')));
    const file = join(dir, 'expect.yaml');
    writeFileSync(file, ['- { metric: NDCG@10, value: 84.31 }', '- { run: bm25.trec, metric: Recall@10, at_least: 99 }', ''].join('\n'));
    const ok = await runCli(['score', '--qrels', qrels, '--run', run, '--expect', file]);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/^gates: 2 of 2 passed\./m);

    writeFileSync(file, ['- { metric: NDCG@10, value: 84.5, tolerance: 0.1 }', ''].join('\n'));
    const junit = join(dir, 'junit.xml');
    const bad = await runCli(['score', '--qrels', qrels, '--run', run, '--expect', file, '--format', 'json', '--junit', junit]);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe(`skillret-eval: gate failed: bm25.trec NDCG@10: expected 84.50 ± 0.10, measured 84.31, Δ -0.19; |Δ| > 0.10 (${file} expect[0])\n`);
    expect(JSON.parse(bad.out).gates).toMatchObject({ passed: 0, failed: 1, gates: [{ run: 'bm25.trec', metric: 'NDCG@10', measured: 84.31, delta: -0.19, passed: false }] });
    const doc = parseXml(readFileSync(junit, 'utf8'));
    expect(doc.getElementsByTagName('failure').length).toBe(1);

    writeFileSync(file, ['- { run: other.trec, metric: NDCG@10, not_worse_than: x/none }', ''].join('\n'));
    const refused = await runCli(['score', '--qrels', qrels, '--run', run, '--expect', file]);
    expect(refused.code).toBe(2);
    expect(refused.err.trimEnd().split('\n')).toEqual([
      `skillret-eval: ${file}:1: expect[0].run: unknown run "other.trec" (the scored run: bm25.trec)`,
      `skillret-eval: ${file}:1: expect[0].not_worse_than: score checks one run: there is no other run to compare it with (compare two results folders with \`compare\`, or run both in one config)`,
    ]);
  });
});

describe('JUnit XML', () => {
  it('escapes the five XML characters, line breaks in attributes and the characters XML 1.0 forbids; an empty gate list is an empty suite', () => {
    const nasty = `a&b<c>"d'e\u0001\u001b[31m\ud800x\nz`;
    const g: GateReport = {
      outcomes: [
        {
          expectation: { run: nasty, metric: 'NDCG@10', value: 1, from: nasty },
          kind: 'value',
          measured: 2,
          delta: 1,
          passed: false,
        },
      ],
      passed: 0,
      failed: 1,
      test: { name: 'randomization', correction: 'holm', alpha: 0.05, seed: 42, iterations: 10, family: 0 },
    };
    const doc = parseXml(junitXml(g, nasty));
    const tc = doc.getElementsByTagName('testcase')[0]!;
    expect(tc.getAttribute('name')).toBe(`a&b<c>"d'e\\u0001\\u001b[31m\\ud800x\nz NDCG@10 = 1.00`);
    expect(doc.getElementsByTagName('failure')[0]!.getAttribute('message')).toContain('a&b<c>"d\'e');
    expect(escapeXml('😀')).toBe('😀');
    const empty = parseXml(junitXml(undefined, 'x'));
    expect(empty.getElementsByTagName('testsuite')[0]!.getAttribute('tests')).toBe('0');
    expect(empty.getElementsByTagName('testcase').length).toBe(0);
  });
});
