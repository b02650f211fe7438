/**
 * Library verb behind `skillret-eval audit-leakage`: what a test split shares with a training split
 * (training/leakage.ts): exact and near-duplicate queries, test queries whose nearest training query
 * is close, and shared gold skills. Both splits are read as the loader reads any split
 * (`<dir>/{skills,queries,qrels}/<split>.jsonl`), every query kept (with or without gold), gold from
 * the qrels file when there is one (else the query records), gold ids outside the corpus kept.
 * `out`: the JSON document of report/leakage-output.ts, written atomically.
 */
import { resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import { datasetFolderProblems, loadDataset, type Dataset } from '../data/dataset.js';
import { toolInfo } from '../pipeline/manifest.js';
import { leakageJson, leakageTable, type LeakageSplit } from '../report/leakage-output.js';
import { auditLeakage as audit, DEFAULT_LEAKAGE_SETTINGS, type LeakageAudit, type LeakageSettings, type SplitQuery } from '../training/leakage.js';
import { writeJsonAtomic } from '../util/atomic.js';
import { checkOutFile } from '../util/out-file.js';

export interface AuditLeakageOptions extends Partial<LeakageSettings> {
  /** Dataset folder of the test split (and of the training split, unless trainDataset). */
  dataset: string;
  /** Training split name (default train). */
  train?: string;
  /** Test split name (default test). */
  test?: string;
  /** Another dataset folder holding the training split. */
  trainDataset?: string;
  /** JSON file to write. */
  out?: string;
}

export interface AuditLeakageResult {
  audit: LeakageAudit;
  train: LeakageSplit;
  test: LeakageSplit;
  /** The terminal report. */
  text: string;
  out?: string;
}

function settingsOf(o: AuditLeakageOptions): LeakageSettings {
  const s: LeakageSettings = {
    shingle: o.shingle ?? DEFAULT_LEAKAGE_SETTINGS.shingle,
    permutations: o.permutations ?? DEFAULT_LEAKAGE_SETTINGS.permutations,
    seed: o.seed ?? DEFAULT_LEAKAGE_SETTINGS.seed,
    near: o.near ?? DEFAULT_LEAKAGE_SETTINGS.near,
    close: o.close ?? DEFAULT_LEAKAGE_SETTINGS.close,
  };
  const int = (flag: string, v: number, min: number, max: number) => {
    if (!Number.isSafeInteger(v) || v < min || v > max) throw new UserError(`${flag}: expected an integer from ${min} to ${max}, got ${v}`);
  };
  int('--shingle', s.shingle, 1, 64);
  int('--permutations', s.permutations, 1, 4096);
  int('--seed', s.seed, 0, Number.MAX_SAFE_INTEGER);
  for (const [flag, v] of [['--near', s.near], ['--close', s.close]] as const) if (!(v > 0 && v <= 1)) throw new UserError(`${flag}: expected a Jaccard threshold in (0, 1], got ${v}`);
  return s;
}

async function loadSplit(dir: string, split: string): Promise<Dataset> {
  return loadDataset({ path: dir, split, evaluation: 'official', gold: 'qrels', unknownGold: 'keep', textOnDemand: true });
}

function queriesOf(d: Dataset): SplitQuery[] {
  return d.queries.map((q) => ({ id: q.id, text: q.text, gold: [...(d.qrels.get(q.id) ?? [])].filter(([, g]) => g >= 1).map(([s]) => s) }));
}

function splitInfo(d: Dataset): LeakageSplit {
  return { dir: d.dir, split: d.split, queries: d.queries.length, files: d.files };
}

export async function auditLeakage(o: AuditLeakageOptions): Promise<AuditLeakageResult> {
  const settings = settingsOf(o);
  const trainSplit = o.train ?? 'train';
  const testSplit = o.test ?? 'test';
  const trainDir = o.trainDataset ?? o.dataset;
  if (trainDir === o.dataset && trainSplit === testSplit) throw new UserError(`--train and --test: both name the split ${JSON.stringify(trainSplit)} of ${o.dataset}; audit two different splits`);
  // Every path before any work: both splits' files, and the file written.
  const problems = [...datasetFolderProblems(o.dataset, testSplit).map((p) => `--test: ${p}`), ...datasetFolderProblems(trainDir, trainSplit).map((p) => `--train: ${p}`)];
  if (problems.length > 0) throw new UserError(problems);
  if (o.out !== undefined) checkOutFile(o.out, { inputs: [o.dataset, trainDir] });
  const test = await loadSplit(o.dataset, testSplit);
  const train = await loadSplit(trainDir, trainSplit);
  const a = audit(queriesOf(train), queriesOf(test), settings);
  const tr = splitInfo(train);
  const te = splitInfo(test);
  if (o.out !== undefined) writeJsonAtomic(resolve(o.out), leakageJson(a, tr, te, toolInfo()));
  return { audit: a, train: tr, test: te, text: leakageTable(a, tr, te), ...(o.out !== undefined ? { out: resolve(o.out) } : {}) };
}
