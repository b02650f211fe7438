/**
 * The value checks of `npm run bench` (scripts/bench.mjs): before a section reports a speed, the
 * values of the path it times are compared with a reference (trec_eval's output, bm25s's rankings,
 * the plain path); a section whose values differ is reported as FAILED, with its first
 * differences, never with a speed, and the bench exits non-zero.
 *
 * - {@link Check}: one comparison, counting the values compared and keeping the first differences;
 *   a check that compared nothing fails too (a check must never disappear silently).
 * - {@link requireChecks} throws {@link ValuesDiffer} when a check failed; {@link runSections}
 *   (the bench's section loop) turns that into a FAILED section in report.md / report.json and a
 *   failure that makes {@link exitCodeFor} non-zero.
 * - Scoring: the plain readers of TREC qrels / runs and SkillRet qrels JSONL (whole files split on
 *   whitespace into Maps, none of the project's readers), trec_eval's output parsed and compared at
 *   the precision it prints (`%6.4f` stock, every bit when built with `%.17g`), {@link cFixed} (C's
 *   and Python's exact-value rounding), and {@link scoreChecks}: `skillret-eval score --format json`
 *   against trec_eval and against the project's Map-based evaluator on the plain reading.
 * - {@link resultsFolderChecks}: every stage of a results folder (metrics.json, per-query.jsonl)
 *   against the Map-based evaluator on its run.trec and the dataset's qrels, read plainly.
 * - {@link compareResultFiles}: byte-identical results files (the warm rerun).
 * - Dense: {@link plainTopK} (a plain dot-product search: double sums rounded once to float32,
 *   ties by id descending by UTF-8 bytes), {@link exactSampleCheck} (exactTopKFast against it on a
 *   sample of queries that crosses the GEMM path's query-block edges), {@link compareVectors}.
 * - Scripts that time in their own process (bench-stats, bench-onnx, bench-hnsw) print their checks
 *   as JSON (`checks`: Check.toJSON()); bench.mjs reads them back with Check.from.
 *
 * Functions that need the compiled project (dist/) import it lazily: run `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url);
/** Differences kept per check (all are counted). */
export const MAX_SHOWN = 10;

// ------------------------------------------------------------------------------- checks

/** One comparison of our values with a reference's. */
export class Check {
  /**
   * @param {string} name what is compared, e.g. "per-query values vs trec_eval"
   * @param {string} reference the reference, in words
   */
  constructor(name, reference) {
    this.name = name;
    this.reference = reference;
    this.compared = 0;
    this.differing = 0;
    /** @type {{where: string, ours: string, reference: string}[]} */
    this.differences = [];
    /** @type {string[]} */
    this.notes = [];
  }

  /** Counts one comparison; `ours` and `ref` equal by `eq` (default Object.is). Returns whether they were. */
  same(where, ours, ref, eq = Object.is) {
    if (eq(ours, ref)) {
      this.compared++;
      return true;
    }
    this.differ(where, ours, ref);
    return false;
  }

  /** Records a difference found by other means (counted as one comparison too). */
  differ(where, ours, ref) {
    this.compared++;
    this.differing++;
    if (this.differences.length < MAX_SHOWN) this.differences.push({ where, ours: show(ours), reference: show(ref) });
  }

  note(s) {
    this.notes.push(s);
  }

  get ok() {
    return this.differing === 0 && this.compared > 0;
  }

  /** One line of Markdown: what was compared and how it came out. */
  line() {
    if (this.compared === 0 && this.differing === 0) return `- FAILED: ${this.name} (against ${this.reference}): nothing was compared${this.notes.length ? ` (${this.notes.join('; ')})` : ''}`;
    if (this.ok) return `- ${this.name} (against ${this.reference}): ${this.compared === 1 ? '1 value, equal' : `${this.compared.toLocaleString('en')} values, all equal`}${this.notes.length ? ` (${this.notes.join('; ')})` : ''}`;
    return `- FAILED: ${this.name} (against ${this.reference}): ${this.differing.toLocaleString('en')} of ${this.compared.toLocaleString('en')} values differ${this.notes.length ? ` (${this.notes.join('; ')})` : ''}`;
  }

  toJSON() {
    return { name: this.name, reference: this.reference, ok: this.ok, compared: this.compared, differing: this.differing, differences: this.differences, notes: this.notes };
  }

  /** A check back from its JSON (a check made in another process). */
  static from(o) {
    const c = new Check(o.name, o.reference);
    c.compared = o.compared;
    c.differing = o.differing;
    c.differences = o.differences ?? [];
    c.notes = o.notes ?? [];
    return c;
  }
}

function show(v) {
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (v === undefined) return '(missing)';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

/** A section whose values differ from its reference: the bench reports it as FAILED. */
export class ValuesDiffer extends Error {
  /** @param {Check[]} checks */
  constructor(section, checks) {
    const bad = checks.filter((c) => !c.ok);
    super(`${section}: values differ from the reference (${bad.map((c) => c.name).join('; ')})`);
    this.name = 'ValuesDiffer';
    this.section = section;
    this.checks = checks;
  }
}

/** Throws ValuesDiffer unless every check passed (and there is at least one); returns the checks' Markdown lines. */
export function requireChecks(section, checks) {
  if (checks.length === 0 || checks.some((c) => !c.ok)) throw new ValuesDiffer(section, checks.length ? checks : [new Check(`${section}: no check`, 'nothing')]);
  return checksMarkdown(checks);
}

/** The checks as Markdown: one line each. */
export function checksMarkdown(checks) {
  return `Values checked before any timing is reported:\n\n${checks.map((c) => c.line()).join('\n')}\n`;
}

/** The Markdown of a section that failed its check: no speed, the first differences of each failed check. */
export function failedSectionMarkdown(title, checks) {
  const parts = [`## ${title}\n\nFAILED: the values of the timed path differ from the reference, so no speed is reported.\n\n${checks.map((c) => c.line()).join('\n')}\n`];
  for (const c of checks) {
    if (c.ok || c.differences.length === 0) continue;
    parts.push(
      `\nFirst differences, ${c.name}:\n\n| where | ours | ${c.reference} |\n|---|---|---|\n` +
        c.differences.map((d) => `| ${cell(d.where)} | ${cell(d.ours)} | ${cell(d.reference)} |`).join('\n') +
        (c.differing > c.differences.length ? `\n\n(${c.differing - c.differences.length} more)` : '') +
        '\n',
    );
  }
  return parts.join('');
}

const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 300);

/**
 * The bench's section loop: runs each wanted section in turn; a section that throws ValuesDiffer
 * is recorded as FAILED with its first differences (a report.md section, `json[name] = {failed,
 * checks}`), any other error as FAILED with its message. Returns the failures:
 * [{section, message, valuesDiffer}], none when every section passed.
 * @param {[string, () => unknown][]} plan
 * @param {{want: (name: string) => boolean, sections: string[], json: Record<string, unknown>, log: (s: string) => void}} o
 */
export async function runSections(plan, o) {
  const failures = [];
  for (const [name, fn] of plan) {
    if (!o.want(name)) continue;
    try {
      await fn();
    } catch (e) {
      if (e instanceof ValuesDiffer) {
        const bad = e.checks.filter((c) => !c.ok);
        failures.push({ section: name, message: `values differ from the reference (${bad.map((c) => c.name).join('; ')}); no speed reported`, valuesDiffer: true });
        o.sections.push(failedSectionMarkdown(`${name}: FAILED`, e.checks));
        o.json[name] = { failed: true, checks: e.checks.map((c) => c.toJSON()) };
        o.log(`${name} FAILED its value check: ${e.message}`);
      } else {
        const msg = e instanceof Error ? e.message : String(e);
        failures.push({ section: name, message: msg.slice(0, 500), valuesDiffer: false });
        o.sections.push(`## ${name}: FAILED\n\n${msg.slice(0, 500)}\n`);
        o.json[name] = { failed: true, error: msg.slice(0, 2000) };
        o.log(`${name} failed: ${msg}`);
      }
    }
  }
  return failures;
}

/** The bench's exit code: 1 when any section failed (a value check or an error), else 0. */
export function exitCodeFor(failures) {
  return failures.length > 0 ? 1 : 0;
}

// ------------------------------------------------------------------------------- plain readers

function rows(text) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const out = [];
  for (const line of text.split('\n')) {
    const c = line.split(/[ \t\r\f\v]+/).filter((x) => x !== '');
    if (c.length > 0) out.push(c);
  }
  return out;
}

/** TREC run text (`qid Q0 docid rank score tag`) → Map qid → [{docId, score}] in file order. */
export function plainReadTrecRun(text) {
  const run = new Map();
  for (const c of rows(text)) {
    if (c.length !== 6) throw new Error(`plain run reader: expected 6 columns, got ${c.length}: ${c.join(' ')}`);
    let l = run.get(c[0]);
    if (l === undefined) run.set(c[0], (l = []));
    l.push({ docId: c[2], score: Number(c[4]) });
  }
  return run;
}

/** TREC qrels text (`qid iter docid grade`) → Map qid → Map docid → grade (a repeated pair: the last wins). */
export function plainReadTrecQrels(text) {
  const q = new Map();
  for (const c of rows(text)) {
    if (c.length !== 4) throw new Error(`plain qrels reader: expected 4 columns, got ${c.length}: ${c.join(' ')}`);
    let m = q.get(c[0]);
    if (m === undefined) q.set(c[0], (m = new Map()));
    m.set(c[2], Number(c[3]));
  }
  return q;
}

/** SkillRet qrels JSONL ({query_id, skill_id, relevance}) → Map qid → Map skill id → grade. */
export function plainReadQrelsJsonl(text) {
  const q = new Map();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line);
    const qid = String(r.query_id);
    let m = q.get(qid);
    if (m === undefined) q.set(qid, (m = new Map()));
    m.set(String(r.skill_id), Number(r.relevance ?? 1));
  }
  return q;
}

/** Qrels Map → TREC qrels text (for trec_eval). */
export function trecQrelsText(qrels) {
  const out = [];
  for (const [q, m] of qrels) for (const [d, g] of m) out.push(`${q} 0 ${d} ${g}`);
  return out.join('\n') + '\n';
}

// ------------------------------------------------------------------------------- rounding, trec_eval

/**
 * `x` printed with `digits` decimals as C's printf("%.*f") and Python's format do: the exact binary
 * value rounded to nearest, exact ties to even (JavaScript's toFixed rounds exact ties away from
 * zero). Finite x only.
 */
export function cFixed(x, digits) {
  if (!Number.isFinite(x)) throw new RangeError(`cFixed: ${x}`);
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const neg = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  let exp = -1074;
  if (biased !== 0) {
    mant |= 1n << 52n;
    exp = biased - 1075;
  }
  // |x| * 10^digits = num / den exactly.
  let num = mant * 10n ** BigInt(digits);
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  let q = num / den;
  const r2 = (num - q * den) * 2n;
  if (r2 > den || (r2 === den && q % 2n === 1n)) q += 1n;
  let s = q.toString().padStart(digits + 1, '0');
  if (digits > 0) s = `${s.slice(0, s.length - digits)}.${s.slice(s.length - digits)}`;
  return neg ? `-${s}` : s;
}

/** trec_eval's output → Map measure → Map qid (or "all") → the printed value (a string). */
export function parseTrecEval(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c.length !== 3) continue;
    const [m, q, v] = c;
    if (!out.has(m)) out.set(m, new Map());
    out.get(m).set(q, v);
  }
  return out;
}

/** "4 decimals" when every printed value looks like %6.4f's, else "full" (a %.17g build). */
export function printedPrecision(parsed) {
  for (const byQ of parsed.values()) for (const v of byQ.values()) if (!/^-?\d+\.\d{4}$/.test(v)) return 'full';
  return '4 decimals';
}

/** Whether our double `ours` prints as trec_eval's `printed` at `precision`. */
export function agreesWithPrinted(ours, printed, precision) {
  if (typeof ours !== 'number' || !Number.isFinite(ours) || printed === undefined) return false;
  return precision === 'full' ? ours === Number(printed) : cFixed(ours, 4) === printed;
}

const TE_NAMES = { NDCG: 'ndcg_cut', MAP: 'map_cut', Recall: 'recall', Precision: 'P' };

/**
 * The default measures at `ks` (NDCG, MAP, Recall, Precision, Completeness, MRR) as trec_eval gives
 * them, from its per-query output (`-q`): the values it printed (strings), per query and "all".
 * Completeness@k = 1 where recall@k printed 1 (else 0), its mean computed here (a mean of 0s and 1s
 * is exact in any order); MRR@k = recip_rank with the run cut to k (`-M k`, applied after trec_eval
 * sorts the ranking). `run(args)` runs trec_eval and returns its stdout.
 * @returns {{precision: string, perQuery: Map<string, Record<string, string>>, means: Record<string, string>, qids: string[]}}
 */
export function trecEvalValues(run, qrelsPath, runPath, ks) {
  const main = parseTrecEval(run(['-q', ...Object.values(TE_NAMES).flatMap((m) => ['-m', `${m}.${ks.join(',')}`]), qrelsPath, runPath]));
  const cut = ks.map((k) => parseTrecEval(run(['-q', '-M', String(k), '-m', 'recip_rank', qrelsPath, runPath])));
  const precision = [main, ...cut].some((p) => printedPrecision(p) === 'full') ? 'full' : '4 decimals';
  const qids = [...(main.get(`P_${ks[0]}`)?.keys() ?? [])].filter((q) => q !== 'all');
  const perQuery = new Map(qids.map((q) => [q, {}]));
  const means = {};
  const take = (parsed, teName, key) => {
    const byQ = parsed.get(teName);
    if (!byQ) throw new Error(`trec_eval printed no ${teName}`);
    for (const [q, v] of byQ) {
      if (q === 'all') means[key] = v;
      else if (perQuery.has(q)) perQuery.get(q)[key] = v;
    }
  };
  for (const [name, te] of Object.entries(TE_NAMES)) for (const k of ks) take(main, `${te}_${k}`, `${name}@${k}`);
  ks.forEach((k, i) => take(cut[i], 'recip_rank', `MRR@${k}`));
  for (const k of ks) {
    let sum = 0;
    for (const rec of perQuery.values()) {
      const one = Number(rec[`Recall@${k}`]) === 1 ? 1 : 0;
      rec[`Completeness@${k}`] = String(one);
      sum += one;
    }
    // Exact (an integer over n): compared at every bit whatever trec_eval prints.
    means[`Completeness@${k}`] = String(sum / qids.length);
  }
  return { precision, perQuery, means, qids };
}

// ------------------------------------------------------------------------------- comparing evaluations

/**
 * Compares our per-query values and means with a reference's.
 * `ours`: {perQuery: Map qid → record, means: record}; `ref` likewise; `agree(ours, ref, key)`.
 * The evaluated query sets must be the same.
 */
export function compareEvaluations(check, ours, ref, keys, agree) {
  const refQ = [...ref.perQuery.keys()];
  const ourQ = new Set(ours.perQuery.keys());
  for (const q of refQ) if (!ourQ.has(q)) check.differ(`query ${q}`, 'not evaluated', 'evaluated');
  const refSet = new Set(refQ);
  for (const q of ourQ) if (!refSet.has(q)) check.differ(`query ${q}`, 'evaluated', 'not evaluated');
  for (const q of refQ) {
    const o = ours.perQuery.get(q);
    if (!o) continue;
    const r = ref.perQuery.get(q);
    for (const k of keys) check.same(`${q} ${k}`, o[k], r[k], (a, b) => agree(a, b, k));
  }
  for (const k of keys) check.same(`mean ${k}`, ours.means[k], ref.means[k], (a, b) => agree(a, b, k));
}

/** The CLI's rounded `metrics` against its unrounded means: each must be the mean rounded to 5 decimals (Python's round). */
export function compareRounding(check, metrics, means, keys) {
  for (const k of keys) {
    const x = means[k];
    check.same(`metrics ${k}`, metrics[k], typeof x === 'number' && Number.isFinite(x) ? Number(cFixed(x, 5)) : x);
  }
}

/** Plain `evaluate` (the project's Map-based evaluator) over Maps: {perQuery, means}. */
async function mapEvaluator() {
  const { evaluate } = await import(new URL('dist/metrics/evaluate.js', ROOT).href);
  const { defaultMeasures, measureKey } = await import(new URL('dist/metrics/measures.js', ROOT).href);
  return (qrels, run, ks) => {
    const measures = defaultMeasures(ks);
    const e = evaluate(qrels, run, measures);
    return { keys: measures.map(measureKey), perQuery: e.perQuery, means: e.aggregate };
  };
}

/** The Map-based evaluator on TREC qrels and run texts read plainly: {keys, perQuery, means}. */
export async function plainEvaluation(qrelsText, runText, ks) {
  const evaluate = await mapEvaluator();
  return evaluate(plainReadTrecQrels(qrelsText), plainReadTrecRun(runText), ks);
}

/** The default measure keys at `ks`, in the project's order. */
export function defaultKeys(ks) {
  return ['NDCG', 'MAP', 'Recall', 'Precision', 'Completeness', 'MRR'].flatMap((m) => ks.map((k) => `${m}@${k}`));
}

/**
 * Our `skillret-eval score --format json --per-query` on (qrels, run): {metrics, means, perQuery}.
 * Without `--per-query` in this build of the CLI, the per-query values and unrounded means come
 * from the library's scoreRun (the same reader and evaluator, in process), and a note says so.
 */
export async function ourScore(node, cli, qrelsPath, runPath, ks, notes = []) {
  const base = [cli, 'score', '--qrels', qrelsPath, '--run', runPath, '--format', 'json', '--k', ks.join(',')];
  let r = spawnSync(node, [...base, '--per-query'], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && /per-query/.test(r.stderr)) r = spawnSync(node, base, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`skillret-eval score failed (${r.status}): ${(r.stderr || r.stdout).slice(-1000)}`);
  const doc = JSON.parse(r.stdout);
  let perQuery = doc.per_query ? new Map(Object.entries(doc.per_query)) : null;
  let means = doc.means ?? null;
  if (!perQuery || !means) {
    const { scoreRun } = await import(new URL('dist/api/score.js', ROOT).href);
    const s = await scoreRun({ qrels: qrelsPath, run: runPath, k: ks });
    perQuery ??= s.evaluation.perQuery;
    means ??= s.evaluation.aggregate;
    notes.push('per-query values and unrounded means from the library (scoreRun); this CLI has no --per-query');
  }
  return { metrics: doc.metrics, means, perQuery };
}

/**
 * The score section's checks on one (qrels, run) pair of TREC files:
 * 1. the CLI's rounded metrics are its means rounded to 5 decimals;
 * 2. its per-query values and means equal, bit for bit, the project's Map-based evaluator
 *    (src/metrics/evaluate.ts) on a plain string-split reading of the two files (always run, so
 *    the check never disappears when trec_eval is not given);
 * 3. with `trecEval` (a binary path): they agree with trec_eval's at the precision it prints.
 * `tamper` (the bench's own test) moves one of our values by 1e-5 before comparing.
 * Returns the checks and the CLI's rounded metrics (what a timed run must print again).
 * @returns {Promise<{checks: Check[], metrics: Record<string, number>}>}
 */
export async function scoreChecks({ node, cli, qrelsPath, runPath, ks = [5, 10, 15], trecEval = null, label = '', tamper = false }) {
  const notes = [];
  const ours = await ourScore(node, cli, qrelsPath, runPath, ks, notes);
  const keys = defaultKeys(ks);
  if (tamper) tamperScore(ours, keys);
  const at = label ? ` (${label})` : '';
  const checks = [];

  const rounding = new Check(`skillret-eval score metrics = its means rounded to 5 decimals${at}`, "its means rounded as Python's round(x, 5)");
  compareRounding(rounding, ours.metrics, ours.means, keys);
  checks.push(rounding);

  const evaluate = await mapEvaluator();
  const plainQrels = plainReadTrecQrels(readFileSync(qrelsPath, 'utf8'));
  const plainRun = plainReadTrecRun(readFileSync(runPath, 'utf8'));
  const plain = evaluate(plainQrels, plainRun, ks);
  const exact = new Check(`skillret-eval score per-query values and means${at}`, 'the Map-based evaluator on a plain reading of the files, every bit');
  compareEvaluations(exact, ours, plain, keys, (a, b) => Object.is(a, b));
  for (const n of notes) exact.note(n);
  checks.push(exact);

  if (trecEval) {
    // trec_eval 10.0 exits on a qrels query absent from the run (9.0.8 skips it, as we do): it is
    // given the qrels of the run's queries only.
    const missing = [...plainQrels.keys()].filter((q) => !plainRun.has(q));
    let teQrels = qrelsPath;
    let tmp = null;
    if (missing.length > 0) {
      tmp = mkdtempSync(join(tmpdir(), 'bench-trec-eval-'));
      teQrels = join(tmp, 'qrels.trec');
      writeFileSync(teQrels, trecQrelsText(new Map([...plainQrels].filter(([q]) => plainRun.has(q)))));
    }
    let te;
    try {
      te = trecEvalValues((args) => {
        const r = spawnSync(trecEval, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
        if (r.status !== 0) throw new Error(`trec_eval ${args.join(' ')} failed (${r.status}): ${(r.stderr || '').slice(-500)}`);
        return r.stdout;
      }, teQrels, runPath, ks);
    } finally {
      if (tmp) rmSync(tmp, { recursive: true, force: true });
    }
    const c = new Check(`skillret-eval score per-query values and means${at}`, `trec_eval (${te.precision === 'full' ? 'every bit, %.17g' : 'to the 4 decimals it prints'})`);
    const refPer = new Map([...te.perQuery].map(([q, r]) => [q, r]));
    // Completeness is 0/1 per query and its mean exact: compared at every bit.
    const agree = (o, r, k) => (k.startsWith('Completeness@') ? o === Number(r) : agreesWithPrinted(o, r, te.precision));
    compareEvaluations(c, ours, { perQuery: refPer, means: te.means }, keys, agree);
    if (missing.length > 0) c.note(`${missing.length} qrels queries absent from the run, skipped by both: trec_eval was given the qrels of the run's queries (10.0 refuses the others)`);
    checks.push(c);
  }
  return { checks, metrics: ours.metrics };
}

function tamperScore(ours, keys) {
  const k = keys.includes('NDCG@10') ? 'NDCG@10' : keys[0];
  const q = ours.perQuery.keys().next().value;
  if (q !== undefined) ours.perQuery.set(q, { ...ours.perQuery.get(q), [k]: ours.perQuery.get(q)[k] + 1e-5 });
  ours.metrics = { ...ours.metrics, [k]: ours.metrics[k] + 1e-5 };
}

// ------------------------------------------------------------------------------- results folders

/** Every stage folder under `dir` holding run.trec and metrics.json (relative paths). */
export function stageFolders(dir) {
  const out = [];
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
    }
    if (existsSync(join(d, 'run.trec')) && existsSync(join(d, 'metrics.json'))) out.push(relative(dir, d) || '.');
  };
  walk(dir);
  return out.sort();
}

/**
 * One check per stage of a results folder: metrics.json (rounded to 5 decimals) and
 * per-query.jsonl (unrounded) against the Map-based evaluator on that stage's run.trec and the
 * dataset's qrels (`qrelsJsonl`: SkillRet qrels JSONL text), both read plainly. Cutoffs from the
 * keys of metrics.json.
 */
export async function resultsFolderChecks(dir, qrelsJsonl, label = '') {
  const evaluate = await mapEvaluator();
  const qrels = plainReadQrelsJsonl(qrelsJsonl);
  const checks = [];
  for (const stage of stageFolders(dir)) {
    const sd = join(dir, stage);
    const metrics = JSON.parse(readFileSync(join(sd, 'metrics.json'), 'utf8')).metrics ?? {};
    const ks = [...new Set(Object.keys(metrics).map((k) => Number(k.split('@')[1])).filter(Number.isInteger))].sort((a, b) => a - b);
    const c = new Check(`${label}${stage}: metrics.json and per-query.jsonl`, 'the Map-based evaluator on run.trec and the qrels, read plainly');
    if (ks.length === 0) {
      c.note('metrics.json has no measure');
      checks.push(c);
      continue;
    }
    const plain = evaluate(qrels, plainReadTrecRun(readFileSync(join(sd, 'run.trec'), 'utf8')), ks);
    const keys = plain.keys.filter((k) => k in metrics);
    for (const k of Object.keys(metrics)) if (!plain.keys.includes(k)) c.differ(`metrics ${k}`, metrics[k], '(not a default measure)');
    for (const k of keys) c.same(`metrics ${k}`, metrics[k], Number.isFinite(plain.means[k]) ? Number(cFixed(plain.means[k], 5)) : plain.means[k]);
    const pq = join(sd, 'per-query.jsonl');
    if (existsSync(pq)) {
      const seen = new Set();
      for (const line of readFileSync(pq, 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const r = JSON.parse(line);
        if (!r.metrics) continue;
        seen.add(r.id);
        const p = plain.perQuery.get(r.id);
        if (!p) {
          c.differ(`query ${r.id}`, 'in per-query.jsonl', 'not evaluated');
          continue;
        }
        for (const k of keys) c.same(`${r.id} ${k}`, r.metrics[k], p[k]);
      }
      for (const q of plain.perQuery.keys()) if (!seen.has(q)) c.differ(`query ${q}`, 'not in per-query.jsonl', 'evaluated');
    } else c.note('no per-query.jsonl: means only');
    checks.push(c);
  }
  if (checks.length === 0) {
    const c = new Check(`${label}results folder ${dir}`, 'the Map-based evaluator');
    c.note('no stage folder with run.trec and metrics.json');
    checks.push(c);
  }
  return checks;
}

// ------------------------------------------------------------------------------- results files

/** The results files of test/cache-state.test.ts: what a warm, cold or partly cached run must write identically. */
export const RESULT_FILES = ['metrics.json', 'run.trec', 'per-query.jsonl', 'breakdown.json', 'operating-points.json', 'report.html'];

/** Every results file (RESULT_FILES) under `dir`, by relative path → bytes. */
export function resultFileBytes(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (RESULT_FILES.includes(f)) out.set(relative(dir, p), readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/** Compares two snapshots of results files byte for byte (first differing byte shown); `prefix` starts each place named. */
export function compareResultFiles(check, ours, ref, prefix = '') {
  for (const [name, want] of ref) {
    const got = ours.get(name);
    if (got === undefined) {
      check.differ(`${prefix}${name}`, '(missing)', `${want.length} bytes`);
      continue;
    }
    check.same(`${prefix}${name}`, got, want, (a, b) => a.equals(b));
    if (!got.equals(want)) {
      let i = 0;
      while (i < got.length && i < want.length && got[i] === want[i]) i++;
      const d = check.differences[check.differences.length - 1];
      if (d && d.where === `${prefix}${name}`) {
        d.ours = `byte ${i}: …${got.subarray(Math.max(0, i - 20), i + 40).toString('utf8')}…`;
        d.reference = `…${want.subarray(Math.max(0, i - 20), i + 40).toString('utf8')}…`;
      }
    }
  }
  for (const name of ours.keys()) if (!ref.has(name)) check.differ(`${prefix}${name}`, 'present', '(missing)');
  if (ref.size === 0) check.note('the reference folder has no results file');
}

// ------------------------------------------------------------------------------- dense vectors

/**
 * Plain exact top-k by inner product of one query (row `q` of `queries`) over every document:
 * each score the double-precision sum of the float32 products, j ascending, rounded once to float32;
 * ranked by score descending, ties by document id descending by UTF-8 bytes.
 */
export function plainTopK(docs, ids, queries, q, k) {
  const d = docs.dim;
  const scores = new Float64Array(docs.rows);
  for (let r = 0; r < docs.rows; r++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += queries.data[q * d + j] * docs.data[r * d + j];
    scores[r] = Math.fround(s);
  }
  const keep = [];
  // Partial selection: keep the best k by a plain insertion (k is small).
  const better = (a, b) => scores[a] > scores[b] || (scores[a] === scores[b] && Buffer.compare(Buffer.from(ids[a]), Buffer.from(ids[b])) > 0);
  for (let r = 0; r < docs.rows; r++) {
    if (keep.length === k && !better(r, keep[k - 1])) continue;
    let p = keep.length === k ? k - 1 : keep.length;
    if (keep.length < k) keep.push(r);
    while (p > 0 && better(r, keep[p - 1])) {
      keep[p] = keep[p - 1];
      p--;
    }
    keep[p] = r;
  }
  return { indices: keep, scores: keep.map((r) => scores[r]) };
}

/**
 * The exact top-k (`exact[q]` for every query, as exactTopKFast returned it) against the plain
 * dot-product search on a sample of `count` queries: the first, the last, both sides of the GEMM
 * path's query-block edges (retrieval/dense/indexes/exact-fast.ts: blocks of about 16 M scores, ⌊2^24 / docs⌋
 * queries), then evenly spread.
 */
export function exactSampleCheck({ docs, ids, queries, exact, k, count = 16, label = '' }) {
  const Q = queries.rows;
  const N = docs.rows;
  const c = new Check(`${label}exact top-${k} (GEMM screen + exact re-scoring) of ${Math.min(count, Q)} of ${Q} queries over ${N.toLocaleString('en')} vectors`, 'a plain dot-product search (double sums, one float32 rounding, ties by id)');
  const block = Math.max(1, Math.min(Q, Math.floor((16 * 1024 * 1024) / Math.max(1, N))));
  const want = Math.min(count, Q);
  const pick = new Set([0, Q - 1]);
  for (let b = block; b < Q && pick.size < want; b += block) pick.add(b - 1).add(b);
  for (let i = 1; pick.size < want; i++) pick.add(Math.floor((i * Q) / (count + 1)) % Q);
  const sample = [...pick].filter((q) => q >= 0 && q < Q).sort((a, b) => a - b);
  for (const q of sample) compareTopK(c, `query ${q}`, exact[q], plainTopK(docs, ids, queries, q, k));
  c.note(`queries ${sample.join(', ')}; GEMM query block ${block}`);
  return c;
}

/** Compares a TopK ({indices, scores}) with the plain one of the same query. */
export function compareTopK(check, where, ours, plain) {
  const n = Math.max(ours.indices.length, plain.indices.length);
  for (let i = 0; i < n; i++) {
    const oi = ours.indices[i];
    const pi = plain.indices[i];
    const hit = (idx, score) => (idx === undefined ? '(none)' : `${idx} ${score}`);
    check.same(`${where} rank ${i + 1}`, hit(oi, ours.scores[i]), hit(pi, plain.scores[i]));
  }
}

/** Compares vectors (Float32Array[]) bit for bit. */
export function compareVectors(check, ours, ref, label = 'text') {
  if (ours.length !== ref.length) check.differ('vector count', ours.length, ref.length);
  for (let t = 0; t < Math.min(ours.length, ref.length); t++) {
    const a = ours[t];
    const b = ref[t];
    if (a.length !== b.length) {
      check.differ(`${label} ${t} dimension`, a.length, b.length);
      continue;
    }
    let first = -1;
    for (let j = 0; j < a.length; j++) if (!Object.is(a[j], b[j])) {
      first = j;
      break;
    }
    if (first < 0) check.same(`${label} ${t}`, 0, 0);
    else check.differ(`${label} ${t} component ${first}`, a[first], b[first]);
  }
}
