/**
 * Library verbs behind `skillret-eval run`: plan an experiment (the `--dry-run` text) and run it —
 * every retriever × reranker pair, the results folder written — returning what was measured. Same
 * validation and errors as the CLI, which prints what these return.
 */
import { isUserError, UserError } from '../core/errors.js';
import type { StageContext } from '../core/context.js';
import { measureKey } from '../metrics/measures.js';
import { roundHalfEven } from '../util/python-round.js';
import type { Config } from '../pipeline/config.js';
import { runExperiment as runPipeline } from '../pipeline/experiment.js';
import { stopwatch } from '../pipeline/manifest.js';
import { formatPlan } from '../pipeline/plan.js';
import { isUserFile, runDir, writeResults } from '../report/results-folder.js';
import { analyze } from '../analysis/report.js';
import { writeReport } from '../report/html/write.js';
import { buildReportModel } from '../analysis/report-view.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { recordRuns } from './history.js';
import { cacheWriteFailed, cacheWritesFailed, isFsError, resetCacheWriteFailures } from '../cache/write-failures.js';
import type { ReportInput } from '../formats/report-input.js';
import { renderCompactMarkdown, renderTerminalSummary } from '../report/systems/run-leaderboard.js';
import { failureLines, junitXml } from '../report/gates.js';
import type { GateReport } from '../analysis/gates.js';
import type { Expectation } from '../pipeline/expect.js';
import { checkOutFile } from '../util/out-file.js';
import { appendFileSync } from 'node:fs';
import { writeFileAtomic } from '../util/atomic.js';
import { renderSummary } from '../report/summary.js';
import { TERMINAL } from '../report/medium.js';
import { escapeControl } from '../util/terminal-text.js';
import { createProgressFactory, silentProgress } from '../util/progress.js';
import { checkExperiment } from '../pipeline/validate.js';
import { acquireLock } from '../util/folder-lock.js';
import { lockPathFor, recoverFolder, StagedFolder } from '../util/staged-folder.js';
import { fsErrorText } from '../util/dirs.js';
import { plural } from '../util/plural.js';

export interface RunExperimentOptions {
  /** Cache root (default: the config's `cache_dir`, else $SKILLRET_CACHE_DIR, else the default cache folder). */
  cacheDir?: string;
  /** false: neither read nor write any cache (the CLI's --no-cache). Default true. */
  cache?: boolean;
  /** true: no network access at all (also SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1). */
  offline?: boolean;
  /** Informational lines (stage starts, cache notes). Default: none. */
  log?: (line: string) => void;
  /** Progress bars (or periodic lines when not a TTY) on stderr. Default false. */
  progress?: boolean;
  /**
   * Record the runs in the results history (`<cache root>/history/results.sqlite`, what
   * `leaderboard` reads). Default true; never with `cache: false` (nothing is written under the cache root then).
   */
  history?: boolean;
  /** Tags recorded with the runs in the history. */
  tags?: readonly string[];
  /**
   * On SIGINT or SIGTERM during the run: drop the staging folder, release the output's lock and exit
   * (130 / 143), leaving the previous results as they were. The CLI sets it; a library caller that
   * handles signals itself leaves it off (default false).
   */
  handleSignals?: boolean;
  /**
   * An expect file (`--expect`): expectations beyond the config's `expect:` (a list, or a mapping
   * with one `expect:` key), checked with the config before any work.
   */
  expect?: string;
  /** A file to write the gates to as JUnit XML (`--junit`), after the results; checked before any work like an `--out` path. */
  junit?: string;
  /**
   * A Markdown file the compact summary (the leaderboard and the gate table) is appended to, after
   * the results: the CLI passes $GITHUB_STEP_SUMMARY. Checked before any work (its folder exists, it is no folder).
   */
  stepSummary?: string;
}

/** One retriever × reranker pair of a finished experiment. */
export interface ExperimentRun {
  retriever: string;
  reranker: string;
  /** Its results folder, `<output>/<retriever>/<reranker>` (metrics.json, per-query.jsonl, run.trec, breakdown.json). */
  folder: string;
  /** Evaluated queries. */
  queries: number;
  /** Measure key (`NDCG@10`) → mean as a fraction, rounded like Python's round(x, 5): the values of metrics.json. */
  metrics: Record<string, number>;
  /** Query id → measure key → value (unrounded), as in per-query.jsonl. */
  perQuery: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

export interface ExperimentReport {
  /** The experiment's `name`. */
  name: string;
  /** The config file. */
  config: string;
  /** The results folder. */
  output: string;
  /** summary.md, as written (report.html is written beside it). */
  summary: string;
  /** The terminal summary `run` prints: the leaderboard, the paper's verdict, where the files are (report/terminal.ts). */
  terminal: string;
  /** Every section of summary.md rendered for the terminal (no Markdown markup, no HTML entities): what `run -v` prints. */
  details: string;
  runs: ExperimentRun[];
  /** The regression gate's outcomes (the config's `expect:` and the `expect` file's); undefined when there is no expectation. */
  gates: GateReport | undefined;
  /** One line per failed gate (report/gates.ts `failureLine`); empty when every gate passed or there is none. */
  gateFailures: string[];
}

interface Settings {
  config: Config;
  cacheDir: string;
  useCache: boolean;
  offline: boolean;
  expectations: Expectation[];
}

/**
 * The config and the settings of a run, once everything the plan needs has been checked (the
 * config, its models, presets, files and servers; for the real run, `writes`, every path it
 * writes): one UserError listing every problem, before any stage runs. An output given through a
 * symbolic link is written where the link points (and locked there): replacing the link by a folder
 * would leave the old results at the target without a word.
 */
function settings(config: Config | string, o: RunExperimentOptions, writes: boolean): Settings {
  if (o.cacheDir !== undefined && o.cacheDir.trim() === '') throw new UserError('--cache-dir: empty path (it would make the current folder the cache root)');
  const useCache = o.cache !== false;
  // The files written beside the results (--junit, the step summary), looked at with the config's problems.
  const early: string[] = [];
  const configFile = typeof config === 'string' ? config : config.file;
  const inputs = [configFile, ...(o.expect !== undefined ? [o.expect] : [])];
  for (const [path, flag] of [[o.junit, '--junit'], [o.stepSummary, '$GITHUB_STEP_SUMMARY']] as const) {
    if (path === undefined || !writes) continue;
    try {
      checkOutFile(path, { flag, inputs });
    } catch (e) {
      if (!isUserError(e)) throw e;
      early.push(...e.problems);
    }
  }
  let checked;
  try {
    checked = checkExperiment(config, { ...(o.cacheDir !== undefined ? { cacheDir: o.cacheDir } : {}), useCache, offline: Boolean(o.offline), writes, ...(o.expect !== undefined ? { expectFile: o.expect } : {}) });
  } catch (e) {
    if (isUserError(e) && early.length > 0) throw new UserError([...e.problems, ...early]);
    throw e;
  }
  if (early.length > 0) throw new UserError(early);
  const c = checked.config;
  const cacheDir = checked.cacheDir;
  let output = resolve(c.output);
  let ls;
  try {
    ls = lstatSync(output, { throwIfNoEntry: false });
  } catch {
    ls = undefined; // below a file (ENOTDIR): the checks above name it
  }
  if (ls?.isSymbolicLink()) {
    try {
      output = realpathSync(output);
    } catch {
      throw new UserError(`${c.file}: output: ${c.output} is a symbolic link to nothing (${readlinkSync(output)}); remove it or point it at a folder`);
    }
  }
  return { config: output === resolve(c.output) ? c : { ...c, output }, cacheDir, useCache, offline: checked.offline, expectations: checked.expectations };
}

/** A path as the terminal shows it: relative to the working folder when under it. */
function shownPath(p: string): string {
  const r = relative(process.cwd(), p);
  return r !== '' && !r.startsWith('..') && !isAbsolute(r) ? r : p;
}

/** A filesystem failure while running or writing, as one line: the previous results stay as they were. */
function asUserError(e: unknown, output: string): unknown {
  if (isUserError(e)) return e;
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err.code === 'string' && typeof err.syscall === 'string') {
    return new UserError(`${err.path ?? output}: ${err.syscall} failed: ${fsErrorText(err)}; nothing was written, the results in ${output} are as before`);
  }
  return e;
}

/** The expanded plan of an experiment (every resolved parameter, the run matrix, output folders), as `run --dry-run` prints it. */
export function planExperiment(config: Config | string, o: RunExperimentOptions = {}): string {
  const s = settings(config, o, false);
  return formatPlan(s.config, s);
}

/**
 * Runs an experiment (a config file or a loaded config) and writes its results folder. Throws a
 * UserError on bad input, before any stage runs where it can: every problem of the config and of
 * the models, presets, files, servers and folders its plan needs, one line each (`problems`).
 */
export async function runExperiment(config: Config | string, o: RunExperimentOptions = {}): Promise<ExperimentReport> {
  const s = settings(config, o, true);
  resetCacheWriteFailures();
  const ctx: StageContext = {
    cacheDir: s.cacheDir,
    useCache: s.useCache,
    offline: s.offline,
    progress: o.progress ? createProgressFactory() : silentProgress,
    log: o.log ?? (() => {}),
  };
  // Every path the run writes was checked before any work (settings); the output folder is locked
  // for the run (a lock file beside it naming the holder), the results are staged beside it and
  // swapped in whole at the end, so a failed or killed run leaves the previous results untouched.
  if (!s.useCache && o.cacheDir !== undefined) ctx.log(`note: --cache-dir ${o.cacheDir} is not used: --no-cache reads and writes no cache`);
  const largestK = Math.max(...s.config.k);
  for (const r of s.config.retrievers) {
    if (r.top_k < largestK) ctx.log(`warning: retrievers.${r.id}.top_k ${r.top_k} is below the largest k ${largestK}: @${largestK} metrics see only ${plural(r.top_k, 'document')} per query`);
  }
  const out = s.config.output;
  const lockFile = lockPathFor(out);
  const lock = acquireLock(lockFile, `skillret-eval run ${s.config.file}`);
  if (!lock.ok) {
    const h = lock.holder;
    const who = h ? `pid ${h.pid} on ${h.host} since ${h.started_at} (${h.what})` : 'an unknown process';
    throw new UserError(`${s.config.file}: output: ${out} is being written by another run, ${who}: ${lock.reason}; wait for it, or remove ${lockFile} if that process is gone`);
  }
  let res: Awaited<ReturnType<typeof runPipeline>>;
  let summary: string;
  let terminal: string;
  let details: string;
  let folder: ReportInput;
  let gates: GateReport | undefined;
  let compact: string;
  try {
    if (lock.staleTakenOver) ctx.log(`output: took over the stale lock of a killed run (pid ${lock.staleTakenOver.pid}, started ${lock.staleTakenOver.started_at})`);
    for (const line of recoverFolder(out)) ctx.log(`output: ${line}`);
    const staged = new StagedFolder(out);
    const onSignal = (signal: NodeJS.Signals) => {
      staged.abort();
      lock.release();
      process.stderr.write(`skillret-eval: ${signal}: run stopped; the results in ${out} are as before\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    if (o.handleSignals) for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, onSignal);
    try {
      const startedAt = new Date().toISOString();
      const total = stopwatch();
      res = await runPipeline(ctx, s.config);
      const report = analyze(res, { expectations: s.expectations });
      gates = report.gates;
      compact = renderCompactMarkdown(report);
      const written = writeResults(report, { startedAt, finishedAt: new Date().toISOString(), cacheDir: s.cacheDir, useCache: s.useCache, offline: s.offline, totalSeconds: total(), ...(o.tags?.length ? { tags: o.tags } : {}) }, { dir: staged.staging });
      summary = written.summary;
      folder = written.folder.input;
      details = escapeControl(renderSummary(report, TERMINAL));
      terminal = renderTerminalSummary(report, { summary: shownPath(join(out, 'summary.md')), html: shownPath(join(out, 'report.html')) });
      await writeReport(buildReportModel(written.folder.input, report.leaderboard), join(staged.staging, 'report.html'), s.useCache ? { cacheDir: s.cacheDir, log: ctx.log } : undefined);
      const info = staged.commit(isUserFile);
      if (info.removedRuns.length > 0) ctx.log(`output: run folders of an earlier config are gone with the old results (not in this config): ${info.removedRuns.join(', ')}`);
      if (info.kept.length > 0) ctx.log(`output: kept files you put in the results folder: ${info.kept.join(', ')}`);
      if (info.dropped.length > 0) ctx.log(`output: removed outputs of the earlier results (they described them): ${info.dropped.join(', ')}`);
    } catch (e) {
      staged.abort();
      throw asUserError(e, out);
    } finally {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.off(sig, onSignal);
    }
  } finally {
    lock.release();
  }
  // The results are in place; then the files beside them that CI reads.
  if (o.junit !== undefined) writeBeside(o.junit, junitXml(gates, s.config.name), out, (p, d) => writeFileAtomic(p, d));
  if (o.stepSummary !== undefined) writeBeside(o.stepSummary, compact, out, (p, d) => appendFileSync(p, d.endsWith('\n\n') ? d : `${d}\n`));
  // A history that cannot be written costs a warning, not the run (the cache's one warning when it
  // is the cache root that cannot be written; none more when it was given).
  if (s.useCache && o.history !== false && !cacheWritesFailed(s.cacheDir)) {
    try {
      const h = await recordRuns(folder, s.cacheDir);
      if (h.skipped.length) ctx.log(`history: not recorded (no dataset files): ${h.skipped.join(', ')}`);
    } catch (e) {
      if (isFsError(e)) cacheWriteFailed(s.cacheDir, e, ctx.log);
      else ctx.log(`warning: the runs were not recorded in the results history: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const keys = res.measures.map(measureKey);
  return {
    name: s.config.name,
    config: s.config.file,
    output: s.config.output,
    summary,
    terminal,
    details,
    gates,
    gateFailures: gates ? failureLines(gates) : [],
    runs: res.runs.map((r) => ({
      retriever: r.retriever,
      reranker: r.reranker,
      folder: runDir(s.config.output, r),
      queries: r.evaluation.counts.evaluated,
      metrics: Object.fromEntries(keys.map((k) => [k, roundHalfEven(r.evaluation.aggregate[k] ?? 0, 5)])),
      perQuery: r.evaluation.perQuery,
    })),
  };
}

/** Writes a file beside the results (--junit, the step summary); a failure is one line saying the results are in place. */
function writeBeside(path: string, data: string, output: string, write: (path: string, data: string) => void): void {
  try {
    write(path, data);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new UserError(`${path}: ${typeof err.code === 'string' ? fsErrorText(err) : String(e)}; the results in ${output} are written`);
  }
}
