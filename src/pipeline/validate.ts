/**
 * Validation before work: everything `run --dry-run` and the start of `run` can know is wrong
 * before any stage runs, listed together, one self-contained line each (`file:line: key.path:
 * message`, config.ts `formatProblems`):
 *  - the config's own problems (schema, cross-entry rules: config.ts);
 *  - what its plan needs, for every entry that is valid on its own (resourceProblems): the dataset
 *    folder and its split's files (or, offline, a hub dataset's files in the cache; a hub pin that
 *    is no pin), a skill_filter ids file, each kind's models, presets and files (`resources` of
 *    the kinds: an unknown model with the nearest known name, a preset's missing export, a saved
 *    run's file), servers refused offline (`endpoints`), and results or caches inside the installed
 *    package. Names and existence only: no server is contacted, nothing is built or downloaded;
 *  - for the real run, every path it writes (preflight.ts), first only looked at (nothing created
 *    while any problem is left), then probed.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { isUserError, UserError } from '../core/errors.js';
import type { ConfigIssue, ResourceContext, StageConfig, StageEndpoint } from '../core/stages.js';
import { datasetFolderProblems } from '../data/dataset.js';
import { hubDatasetDir, hubPinProblem, missingHubFiles } from '../data/hub.js';
import { offlineEndpointProblem } from '../remote/endpoint.js';
import { defaultCacheDir, insideInstalledPackage, modelsDir, offlineFromEnv } from '../util/paths.js';
import { expectationProblems, expectationsOf, type Expectation } from './expect.js';
import { experimentTargets } from './plan.js';
import {
  checkExpectFile,
  checkConfigText,
  formatProblems,
  linesOfText,
  partsOfConfig,
  readConfigText,
  type Config,
  type ConfigCheck,
  type ConfigParts,
  type ConfigProblem,
} from './config.js';
import { preflightProblems } from './preflight.js';
import { rerankerKind, retrieverKind } from './registry.js';

/** The dataset the plan reads: its folder and split files, or a usable hub pin (offline: its files in the cache); a skill_filter ids file. */
function datasetProblems(ds: NonNullable<ConfigParts['dataset']>, rc: ResourceContext): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (ds.path !== undefined) {
    for (const text of datasetFolderProblems(ds.path, ds.split, ds.gold === 'qrels')) problems.push({ path: ['dataset', 'path'], text });
  } else if (ds.hub !== undefined) {
    const pin = hubPinProblem(ds.hub.repo, ds.hub.revision);
    if (pin) problems.push({ path: ['dataset', 'hub', pin.key], text: pin.text });
    else if (rc.offline) {
      const missing = missingHubFiles(rc.cacheDir, ds.hub.repo, ds.hub.revision, ds.split);
      if (missing.length > 0)
        problems.push({
          path: ['dataset', 'hub'],
          text:
            `offline, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the cache: fill ${hubDatasetDir(rc.cacheDir, ds.hub.repo, ds.hub.revision)} ` +
            `(skillret-eval data fetch --repo ${ds.hub.repo} --revision ${ds.hub.revision} --split ${ds.split}, online), or run online`,
        });
    }
  }
  const filter = ds.skill_filter;
  if (filter !== undefined && 'ids_file' in filter && !existsSync(filter.ids_file)) {
    problems.push({ path: ['dataset', 'skill_filter', 'ids_file'], text: `${filter.ids_file}: no such file` });
  }
  return problems;
}

/** One entry's problems: its kind's `resources`, and its servers offline. */
function entryProblems<C extends StageConfig>(
  kind: { resources?(c: C, rc: ResourceContext, issue: ConfigIssue): void; endpoints?(c: C): StageEndpoint[] },
  entry: C,
  at: readonly (string | number)[],
  rc: ResourceContext,
  problems: ConfigProblem[],
): void {
  kind.resources?.(entry, rc, (path, text) => problems.push({ path: [...at, ...path], text }));
  for (const e of kind.endpoints?.(entry) ?? []) {
    const text = offlineEndpointProblem(e.url, rc.offline);
    if (text) problems.push({ path: [...at, ...e.path], text });
  }
}

/**
 * What the plan of a config's valid parts needs and this machine lacks: the dataset, each entry's
 * models, presets and files (its kind's `resources`), and servers refused offline. No network.
 */
export function resourceProblems(parts: ConfigParts, rc: ResourceContext): ConfigProblem[] {
  const problems: ConfigProblem[] = parts.dataset ? datasetProblems(parts.dataset, rc) : [];
  for (const { index, entry } of parts.retrievers) entryProblems(retrieverKind(entry.type), entry, ['retrievers', index], rc, problems);
  // A tuned fusion reads its tuning split's files too (src/pipeline/fusion-tuning.ts).
  for (const { index, entry } of parts.retrievers) {
    if (entry.type !== 'fusion' || !entry.tune || !parts.dataset) continue;
    const at = ['retrievers', index, 'tune', 'split'];
    const ds = parts.dataset;
    if (ds.path !== undefined) for (const text of datasetFolderProblems(ds.path, entry.tune.split)) problems.push({ path: at, text });
    else if (ds.hub !== undefined && rc.offline && !hubPinProblem(ds.hub.repo, ds.hub.revision)) {
      const missing = missingHubFiles(rc.cacheDir, ds.hub.repo, ds.hub.revision, entry.tune.split);
      if (missing.length > 0) problems.push({ path: at, text: `offline, and the tuning split's ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in the cache (skillret-eval data fetch --repo ${ds.hub.repo} --revision ${ds.hub.revision} --split ${entry.tune.split}, online)` });
    }
  }
  for (const { index, entry } of parts.rerankers) entryProblems(rerankerKind(entry.type), entry, ['rerankers', index], rc, problems);
  return problems;
}

export interface ExperimentCheckOptions {
  /** The cache root the caller gives (--cache-dir); else the config's `cache_dir`, $SKILLRET_CACHE_DIR, the default. */
  cacheDir?: string;
  /** false: --no-cache. */
  useCache: boolean;
  /** --offline (SKILLRET_OFFLINE=1 and HF_HUB_OFFLINE=1 count too). */
  offline: boolean;
  /** The real run: also every path it writes (preflight.ts). false: `--dry-run`. */
  writes: boolean;
  /** `--expect FILE`: more expectations, checked against the config's runs and metrics with it. */
  expectFile?: string;
}

export interface CheckedExperiment {
  config: Config;
  /** The cache root in effect. */
  cacheDir: string;
  /** Offline, by option or environment. */
  offline: boolean;
  /** The regression gate: the config's `expect:` entries, then those of the `--expect` file. */
  expectations: Expectation[];
}

function cacheDirSource(o: ExperimentCheckOptions, parts: ConfigParts): string | undefined {
  if (o.cacheDir !== undefined) return '--cache-dir';
  if (parts.cacheDir !== undefined) return undefined; // the config's cache_dir key
  if (process.env.SKILLRET_CACHE_DIR !== undefined) return '$SKILLRET_CACHE_DIR';
  return 'cache folder';
}

/**
 * A config (a file, or a config already loaded) checked for everything its plan needs before any
 * stage runs. Throws one UserError listing every problem found (UserError.problems), the config's
 * own and those of its models, presets, files and servers together; returns the config and the
 * settings the run uses.
 */
export function checkExperiment(input: Config | string, o: ExperimentCheckOptions): CheckedExperiment {
  const check: Pick<ConfigCheck, 'file' | 'lineOf' | 'problems' | 'config' | 'parts'> =
    typeof input === 'string'
      ? checkConfigText(readConfigText(input), input)
      : { file: input.file, lineOf: linesOfText(input.text), problems: [], config: input, parts: partsOfConfig(input) };
  const parts = check.parts;
  const problems = [...check.problems];
  const offline = o.offline || offlineFromEnv();
  const cacheDir = o.cacheDir ?? parts.cacheDir ?? defaultCacheDir();
  const source = cacheDirSource(o, parts);

  // An installed package folder may be read-only and is shared: never write results or caches into it.
  const inside = (dir: string) => `${dir} is inside the installed skillret-eval package, which is never written; run \`skillret-eval init\` for a config of your own, or copy this one`;
  if (parts.output !== undefined && insideInstalledPackage(parts.output)) problems.push({ path: ['output'], text: inside(parts.output) });
  if (insideInstalledPackage(cacheDir)) problems.push(source === undefined ? { path: ['cache_dir'], text: inside(cacheDir) } : { text: `${source}: ${inside(cacheDir)}` });

  // The cache and the output must not hold each other: a run replaces its output folder whole, and
  // `cache prune` empties the cache.
  if (o.useCache && parts.output !== undefined) {
    const within = (a: string, b: string) => {
      const r = relative(resolve(b), resolve(a));
      return r === '' || (!r.startsWith('..') && !isAbsolute(r));
    };
    const from = source ?? 'cache_dir';
    if (within(cacheDir, parts.output)) problems.push({ path: ['output'], text: `${parts.output} holds the cache root ${cacheDir} (${from}): every run replaces its output folder and would throw the cache away; put them apart` });
    else if (within(parts.output, cacheDir)) problems.push({ path: ['output'], text: `${parts.output} is inside the cache root ${cacheDir} (${from}): \`cache prune\` would delete your results; put them apart` });
  }
  problems.push(...resourceProblems(parts, { configDir: parts.configDir, modelsDir: modelsDir(), cacheDir, offline }));
  const paths = { cacheDir, useCache: o.useCache, ...(source !== undefined ? { cacheDirSource: source } : {}) };
  // The paths the run writes: only looked at while anything else is wrong (nothing is created for a refused run).
  if (o.writes) problems.push(...preflightProblems(parts, { ...paths, probe: false }));
  if (problems.length === 0 && o.writes) problems.push(...preflightProblems(parts, paths));
  const expectFile = o.expectFile !== undefined ? expectFileProblems(o.expectFile, check.config) : { lines: [], expectations: [] };
  const lines = [...formatProblems(check.file, check.lineOf, problems), ...expectFile.lines];
  if (lines.length > 0 || check.config === undefined) throw new UserError(lines.length > 0 ? lines : formatProblems(check.file, check.lineOf, problems));
  const own = expectationsOf((check.config.expect ?? []).map((entry, index) => ({ index, entry })), (i) => `expect[${i}]`);
  return { config: check.config, cacheDir, offline, expectations: [...own, ...expectFile.expectations] };
}

/**
 * The problems of an `--expect` file, as printed lines (`file:line: expect[i].key: …`): its own,
 * and, when the config is valid, each entry against the config's runs and metrics; its
 * expectations when there is none.
 */
function expectFileProblems(file: string, config: Config | undefined): { lines: string[]; expectations: Expectation[] } {
  let f;
  try {
    f = checkExpectFile(file);
  } catch (e) {
    if (isUserError(e)) return { lines: [...e.problems], expectations: [] };
    throw e;
  }
  const problems = [...f.problems];
  if (config !== undefined) expectationProblems(f.entries, experimentTargets(config), (path, text) => problems.push({ path: ['expect', ...path], text }));
  const lines = formatProblems(file, f.lineOf, problems);
  return { lines, expectations: lines.length > 0 ? [] : expectationsOf(f.entries, (i) => `${file} expect[${i}]`) };
}
