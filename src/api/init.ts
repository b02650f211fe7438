/**
 * Library verb behind `skillret-eval init [dir]`: write a commented starter config
 * (`skillret-eval.yaml`) that runs as written. By default it evaluates BM25 and the bundled GloVe embedder on the bundled fixture, which
 * is copied next to the config (the installed package folder is never referenced or written).
 */
import { copyFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { closest, distance } from 'fastest-levenshtein';
import { splitNameProblem } from '../data/split-name.js';
import { UserError, where } from '../core/errors.js';
import { findRelease, SKILLRET_RELEASES } from '../data/hub.js';
import { embedderPresetNames, findEmbedderPreset } from '../models/embedder-presets.js';
import { findRerankerPreset } from '../models/reranker-presets.js';
import { HUB_ID } from '../models/resolve.js';
import { parseConfig } from '../pipeline/config.js';
import { packageInfo } from '../pipeline/manifest.js';
import { starterConfigText, type StarterDataset, type StarterModel } from '../pipeline/starter-config.js';
import { writeFileAtomic } from '../util/atomic.js';
import { insideInstalledPackage, packageFile } from '../util/paths.js';
import { makeDirs } from '../util/dirs.js';

export const STARTER_FILE = 'skillret-eval.yaml';
export const STARTER_NAME = 'starter';
const DEFAULT_MODEL = 'glove-6b-100d-static';
/** The bundled fixture's files, relative to data/mini. */
const FIXTURE_FILES = ['README.md', 'skills/test.jsonl', 'queries/test.jsonl', 'qrels/test.jsonl'];

export interface InitOptions {
  /** Folder to write into (created if missing; default the current folder). */
  dir?: string;
  /** A dataset folder in the official layout, instead of the bundled fixture. */
  dataset?: string;
  /** Split of `dataset` (default test). */
  split?: string;
  /** A pinned SkillRet release (v1.1, v1.0), instead of the bundled fixture. */
  hub?: string;
  /** Embedder: a preset name, a local model folder or a hub id (default glove-6b-100d-static). */
  model?: string;
  /** Overwrite an existing config (and a differing copy of the fixture). */
  force?: boolean;
  /** Folder that relative paths in the options are resolved against (default process.cwd()). */
  cwd?: string;
}

export interface InitResult {
  /** Absolute path of the config written. */
  config: string;
  /** The copy of the bundled fixture the config reads (absolute), when it uses the fixture. */
  fixture?: string;
  /** Files written besides the config (absolute paths; empty when an identical fixture copy was there). */
  copied: string[];
}

/** `../x` or `./x` from `from` to `to` (a model reference must start with ./ or ../ or be absolute). */
function relativeRef(from: string, to: string): string {
  const rel = relative(from, to);
  if (rel === '') return '.';
  if (isAbsolute(rel)) return to;
  const posix = rel.split(sep).join('/');
  return posix.startsWith('../') || posix === '..' ? posix : `./${posix}`;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function datasetFromFolder(path: string, split: string, dir: string): StarterDataset {
  const splitProblem = splitNameProblem(split);
  if (splitProblem) throw new UserError(`--split: ${splitProblem}`);
  if (!isDir(path)) throw new UserError(`--dataset: ${path}: dataset folder not found`);
  for (const role of ['skills', 'queries']) {
    const f = join(path, role, `${split}.jsonl`);
    if (!existsSync(f)) throw new UserError(`--dataset: ${where(f)}file not found; expected layout ${join(path, '{skills,queries,qrels}', `${split}.jsonl`)} (qrels optional)`);
  }
  return { kind: 'folder', path: relativeRef(dir, path), split };
}

function datasetFromHub(version: string): StarterDataset {
  const r = findRelease(version);
  if (!r) throw new UserError(`--hub: unknown SkillRet release "${version}" (pinned: ${SKILLRET_RELEASES.map((x) => x.version).join(', ')})`);
  return { kind: 'hub', version: r.version, repo: r.repo, revision: r.revision };
}

/** Resolves `--model` to what the starter config names. */
export function starterModel(ref: string, cwd: string, dir: string): StarterModel {
  const trimmed = ref.trim();
  if (trimmed === '') throw new UserError('--model: empty model reference');
  const looksLikePath = trimmed.startsWith('./') || trimmed.startsWith('../') || isAbsolute(trimmed) || trimmed === '.' || trimmed === '..';
  const asPath = resolve(cwd, trimmed);
  if (looksLikePath || isDir(asPath)) {
    if (!isDir(asPath)) throw new UserError(`--model: ${asPath}: model folder not found`);
    if (!existsSync(join(asPath, 'config.json'))) throw new UserError(`--model: ${asPath}: not a Hugging Face layout model folder (no config.json)`);
    return { kind: 'folder', path: relativeRef(dir, asPath) };
  }
  const preset = findEmbedderPreset(trimmed);
  if (preset) {
    if (!preset.hubId && !preset.localFolder) throw new UserError(`--model: preset "${preset.name}" has no ONNX export known; export it and pass its folder (--model ./folder)`);
    return { kind: 'preset', name: preset.name, bundled: preset.localFolder !== null };
  }
  if (findRerankerPreset(trimmed)) throw new UserError(`--model: "${trimmed}" is a reranker preset; --model adds an embedder (presets: skillret-eval models list)`);
  if (HUB_ID.test(trimmed) && !trimmed.includes('..')) return { kind: 'hub', id: trimmed };
  const near = closest(trimmed, embedderPresetNames());
  const close = distance(trimmed.toLowerCase(), near.toLowerCase()) <= 3 || near.toLowerCase().startsWith(trimmed.toLowerCase());
  const hint = close ? ` (did you mean the preset "${near}"?)` : ' (presets: skillret-eval models list)';
  throw new UserError(`--model: "${trimmed}" is not an embedder preset, a model folder or a hub id "org/name"${hint}`);
}

/** Copies the bundled fixture to `<dir>/data/mini` unless an identical copy is there. */
function copyFixture(dir: string, force: boolean): { target: string; copied: string[] } {
  const src = packageFile('data', 'mini');
  const target = join(dir, 'data', 'mini');
  const plan = FIXTURE_FILES.map((f) => ({ from: join(src, f), to: join(target, f) }));
  const differing = plan.filter((p) => existsSync(p.to) && !readFileSync(p.to).equals(readFileSync(p.from)));
  if (differing.length > 0 && !force) {
    throw new UserError(`${differing[0]!.to}: already exists and differs from the bundled fixture; pass --force to overwrite it`);
  }
  const copied: string[] = [];
  for (const p of plan) {
    if (existsSync(p.to) && readFileSync(p.to).equals(readFileSync(p.from))) continue;
    makeDirs(dirname(p.to));
    copyFileSync(p.from, p.to);
    copied.push(p.to);
  }
  return { target, copied };
}

/** Writes the starter config (and the fixture copy); returns what was written. */
export function initProject(o: InitOptions = {}): InitResult {
  const cwd = resolve(o.cwd ?? process.cwd());
  const dir = resolve(cwd, o.dir ?? '.');
  if (existsSync(dir) && !isDir(dir)) throw new UserError(`init: ${dir}: not a folder`);
  if (insideInstalledPackage(dir)) throw new UserError(`init: ${dir}: inside the installed skillret-eval package, which is never written; give a folder of your own`);
  if (o.dataset !== undefined && o.hub !== undefined) throw new UserError('--dataset and --hub: give one of them');
  if (o.split !== undefined && o.dataset === undefined) throw new UserError('--split: only with --dataset (the bundled fixture and the hub releases use the test split)');
  const config = join(dir, STARTER_FILE);
  if (existsSync(config) && !o.force) throw new UserError(`${config}: already exists; pass --force to overwrite it`);

  // Validate everything before writing anything.
  const model = starterModel(o.model ?? DEFAULT_MODEL, cwd, dir);
  let dataset: StarterDataset;
  if (o.hub !== undefined) dataset = datasetFromHub(o.hub);
  else if (o.dataset !== undefined) dataset = datasetFromFolder(resolve(cwd, o.dataset), o.split ?? 'test', dir);
  else dataset = { kind: 'bundled', path: 'data/mini' };

  const real = findRelease('v1.1')!;
  const text = starterConfigText({
    name: STARTER_NAME,
    dataset,
    model,
    version: packageInfo().version,
    realSplit: { version: real.version, repo: real.repo, revision: real.revision },
  });
  try {
    parseConfig(text, config);
  } catch (e) {
    throw new Error(`skillret-eval init: the starter config does not validate (a bug): ${(e as Error).message}`);
  }

  makeDirs(dir);
  const fixture = dataset.kind === 'bundled' ? copyFixture(dir, Boolean(o.force)) : undefined;
  writeFileAtomic(config, text);
  return { config, copied: fixture?.copied ?? [], ...(fixture ? { fixture: fixture.target } : {}) };
}
