/**
 * Loads a SkillRet dataset folder `<dir>/{skills,queries,qrels}/<split>.jsonl` with the official
 * evaluation's fallbacks (docs/protocol.md §1), validating every record, and reports each file's
 * bytes and SHA-256.
 *
 * - Skills: `id` (non-empty string, unique), `name` / `description` strings (missing or null = ""),
 *   SKILL.md text from `skillMdField` (default `skill_md`); missing, null or blank after Python strip
 *   → the description is used in its place (counted in stats.skillMdFallbacks). If no record carries
 *   `skillMdField` at all, that is taken for a configuration mistake and refused.
 * - Queries: `id` (non-empty string, unique), `query` (string).
 * - Gold: `qrels/<split>.jsonl`, if present, is the truth (graded integer relevance, relevant = >= 1;
 *   queries absent from it have no gold). Otherwise each query's `labels` / `skill_ids` (gold.ts).
 *   Queries with no relevant judgement are left out of `queries` and listed in stats. Grades below 1
 *   of kept queries stay in `qrels` (judged non-relevant, as the official qrels dict keeps them).
 * - A gold skill id that is not in the corpus is an error, or with `unknownGold: 'drop'` is dropped and
 *   counted. A qrels query id that is not in the queries file is an error.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { splitNameProblem } from './split-name.js';
import { UserError, where } from '../core/errors.js';
import type { Qrels, Query, Skill } from '../core/types.js';
import { fail, quoteId, requireId, requireInteger, requireString, type RecordAt } from './fields.js';
import { goldFromQueryRecord, type GoldEntry } from './gold.js';
import { readJsonlFile } from './jsonl.js';
import { skillFromRecord } from './skill-record.js';
import { JsonlDocStore, fileDocSource, type SkillRecordRefs } from './doc-store.js';
import { applySkillFilter, type SkillFilter } from './skill-filter.js';
import { goldPolicy, type EvaluationPolicy, type GoldSourceChoice } from './evaluation-policy.js';
import { readSkillsIndex, skillsIndexKey, writeSkillsIndex, type SkillsIndex } from './skills-index.js';
import { fileVersion, memoisedFileSha256, rememberFileSha256 } from '../cache/file-sha256.js';
import { CacheStore } from '../cache/store.js';

export interface DatasetOptions {
  /** Dataset folder. */
  path: string;
  /** 'test' | 'train' | any name with a file. */
  split: string;
  /** Record field holding the SKILL.md text; default 'skill_md' (map e.g. 'body' explicitly). */
  skillMdField?: string;
  /**
   * A gold id that is not in the (filtered) skill corpus: 'error', 'drop' (and count) or 'keep' (the
   * judgement stays: it counts in recall's denominator and can never be retrieved, as in the official
   * code). Default: 'error' under the trec_eval policy, 'keep' under the official one.
   */
  unknownGold?: 'error' | 'drop' | 'keep';
  /**
   * Denominators (evaluation-policy.ts): 'trec_eval' (default) evaluates the queries that have a
   * judgement (all-non-positive ones score 0); 'official' evaluates every query (no gold = zeros).
   */
  evaluation?: EvaluationPolicy;
  /** Where the gold comes from; default: the policy's (trec_eval: the qrels file when present; official: the query records). */
  gold?: GoldSourceChoice;
  /** Restricts the searched corpus (official `skill_ids_filter`); gold outside it is unknown gold. */
  skillFilter?: SkillFilter;
  /** true: a missing qrels file is an error. Default false: fall back to the queries' labels/skill_ids. */
  requireQrels?: boolean;
  /**
   * true: skills keep no description or SKILL.md text in memory; reading `skill.description` or
   * `skill.skillMd` re-reads the record from the file by its offset (memory follows the number of
   * skills, not their text). Default false.
   */
  textOnDemand?: boolean;
  /**
   * With `textOnDemand`: the cache root whose skills-file index (skills-index.ts) spares a rerun over
   * the same skills file reading and parsing its records. Default: no index.
   */
  indexCacheDir?: string;
  /** Where a damaged skills-file index is reported (one line; default: nowhere). */
  cacheLog?: (line: string) => void;
}

export type DatasetRole = 'skills' | 'queries' | 'qrels';

export interface DatasetFileInfo {
  role: DatasetRole;
  path: string;
  bytes: number;
  sha256: string;
  records: number;
}

export interface DatasetStats {
  /** Skills left out by `skillFilter` (0 without one). */
  skillsFilteredOut: number;
  /** Evaluated queries whose judgements are all <= 0 (they score 0, as in trec_eval). */
  queriesWithoutRelevant: string[];
  /** Gold pairs kept although their skill is not in the (filtered) corpus (unknownGold 'keep'). */
  unknownGoldKept: number;
  /**
   * When the folder has both a qrels file and gold in the query records: queries on which the two
   * disagree (different ids or grades), in query order. Undefined when only one source exists.
   */
  goldDisagreement?: string[];
  /** Skills whose SKILL.md text was missing or blank, so the description took its place. */
  skillMdFallbacks: number;
  /** Queries (file order) without any judgement: left out (trec_eval policy) or scored 0 (official). */
  queriesWithoutGold: string[];
  /** Judgements dropped because their skill id is not in the corpus (unknownGold 'drop'). */
  droppedGoldPairs: number;
  /** Queries that had gold but lost all of it by that dropping (left out too). */
  droppedGoldQueries: string[];
  /**
   * The grades of the evaluated gold: the largest, and how many judgements carry a grade above 1.
   * The official Hub path judges every gold skill at 1 (`skill_ids`), so graded gold (a v1.1 "seed"
   * grade 2) gives another NDCG than the published one; the run then reports both.
   */
  grades: GradeSummary;
}

export interface GradeSummary {
  /** Judgements of the evaluated queries (any grade). */
  judgements: number;
  /** The largest grade (0 without any judgement). */
  maxGrade: number;
  /** Judgements with a grade above 1. */
  aboveOne: number;
}

/** The grade summary of evaluated gold. */
export function gradeSummary(qrels: Qrels): GradeSummary {
  let judgements = 0;
  let maxGrade = 0;
  let aboveOne = 0;
  for (const js of qrels.values())
    for (const g of js.values()) {
      judgements++;
      if (g > maxGrade) maxGrade = g;
      if (g > 1) aboveOne++;
    }
  return { judgements, maxGrade, aboveOne };
}

/**
 * The gold the official Hub path evaluates with (eval.py:584-589: every `skill_ids` entry at
 * relevance 1): each relevant judgement (grade >= 1) at 1, the others left out (they add nothing
 * to NDCG, Recall or Completeness).
 */
export function binaryGold(qrels: Qrels): Qrels {
  const out: Qrels = new Map();
  for (const [q, js] of qrels) out.set(q, new Map([...js].filter(([, g]) => g >= 1).map(([d]) => [d, 1])));
  return out;
}

export interface Dataset {
  dir: string;
  split: string;
  /** File order. */
  skills: Skill[];
  /** Where each of `skills` is in the skills file (for a document store, data/doc-store.ts). */
  skillRecords: SkillRecordRefs;
  /** The evaluated queries, file order (policy: with a judgement, or all). */
  queries: Query[];
  /** Judgements of those queries (query file order, then judgement order). */
  qrels: Qrels;
  goldSource: 'qrels' | 'queries';
  /** The evaluation policy the gold and denominators follow. */
  evaluation: EvaluationPolicy;
  files: DatasetFileInfo[];
  stats: DatasetStats;
}


/** Path of one dataset file. */
export function datasetFilePath(dir: string, role: DatasetRole, split: string): string {
  return join(dir, role, `${split}.jsonl`);
}

function layoutHint(dir: string, split: string): string {
  return `expected layout ${join(dir, '{skills,queries,qrels}', `${split}.jsonl`)} (qrels optional)`;
}

function checkSplit(dir: string, split: string): void {
  const problem = splitNameProblem(split);
  if (problem) throw new UserError(`${where(dir, undefined, 'split')}${problem}`);
}

function checkDir(dir: string, split: string): void {
  let ok = false;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) throw new UserError(`${where(dir)}dataset folder not found; ${layoutHint(dir, split)}`);
}

/** Splits that have a file for `role` in the folder (for error hints). */
function splitsPresent(dir: string, role: DatasetRole): string[] {
  try {
    return readdirSync(join(dir, role))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => f.slice(0, -'.jsonl'.length))
      .sort();
  } catch {
    return [];
  }
}

/** Why `role`'s file of `split` is not in the folder (naming the file and the splits there), or null. */
function missingFileProblem(dir: string, role: DatasetRole, split: string): string | null {
  const p = datasetFilePath(dir, role, split);
  if (existsSync(p)) return null;
  const present = splitsPresent(dir, role);
  const also = present.length > 0 ? `; splits present for ${role}: ${present.join(', ')}` : '';
  return `${where(p)}file not found; ${layoutHint(dir, split)}${also}`;
}

function requireFile(dir: string, role: DatasetRole, split: string): string {
  const problem = missingFileProblem(dir, role, split);
  if (problem) throw new UserError(problem);
  return datasetFilePath(dir, role, split);
}

/**
 * What `loadDataset` would refuse about the folder before reading a record: the split name, the
 * folder, the skills and queries files of the split (and the qrels file when `requireQrels`).
 * Each problem a self-contained text naming the file; none: [].
 */
export function datasetFolderProblems(dir: string, split: string, requireQrels = false): string[] {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir)
    return [
      `${dir}: no such folder (a relative path is resolved against the config's folder); ` +
        `put the dataset there (skills/, queries/, qrels/ with ${split}.jsonl) or point dataset.path at it; ` +
        '`skillret-eval data fetch --version v1.1` (or v1.0) downloads a pinned SkillRet test split into the cache and prints the dataset lines to use it',
    ];
  try {
    checkSplit(dir, split);
    checkDir(dir, split);
  } catch (e) {
    if (e instanceof UserError) return [e.message];
    throw e;
  }
  const roles: DatasetRole[] = requireQrels ? ['skills', 'queries', 'qrels'] : ['skills', 'queries'];
  return roles.map((role) => missingFileProblem(dir, role, split)).filter((p): p is string => p !== null);
}

interface LoadedSkills {
  skills: Skill[];
  ids: Set<string>;
  fallbacks: number;
  info: DatasetFileInfo;
  refs: SkillRecordRefs;
}

async function loadSkills(path: string, skillMdField: string, textOnDemand: boolean): Promise<LoadedSkills> {
  const skills: Skill[] = [];
  const firstLine = new Map<string, number>();
  const offsets: number[] = [];
  const lengths: number[] = [];
  let fallbacks = 0;
  let carriers = 0;
  // On demand, a skill's texts are re-read through this store (made once the file is read); no
  // record's texts are kept, not even while loading.
  let store: JsonlDocStore | undefined;
  const lazy = textOnDemandSkills((i) => {
    store ??= new JsonlDocStore(fileDocSource(refs));
    return store.skill(i);
  });
  const sum = await readJsonlFile(path, (rec, line, offset, length) => {
    const at: RecordAt = { file: path, line };
    const { skill, fallback, carrier } = skillFromRecord(rec, at, skillMdField);
    const first = firstLine.get(skill.id);
    if (first !== undefined) fail(at, 'id', `duplicate skill id ${quoteId(skill.id)} (first on line ${first})`);
    firstLine.set(skill.id, line);
    if (carrier) carriers++;
    if (fallback) fallbacks++;
    skills.push(textOnDemand ? lazy(skill, skills.length) : skill);
    offsets.push(offset);
    lengths.push(length);
  });
  if (sum.records === 0) throw new UserError(`${where(path)}no skill records (the file is empty)`);
  if (carriers === 0) {
    throw new UserError(
      `${where(path, undefined, skillMdField)}no record has this field (configured as the SKILL.md field); ` +
        `name the right one (e.g. skillMdField 'body'), or 'description' to index descriptions only`,
    );
  }
  const st = statSync(path);
  const refs: SkillRecordRefs = { path, bytes: st.size, mtimeMs: st.mtimeMs, skillMdField, ids: skills.map((x) => x.id), offsets, lengths };
  if (st.size !== sum.bytes) throw new UserError(`${where(path)}the file changed while it was read; load it again`);
  return { skills, ids: new Set(firstLine.keys()), fallbacks, info: { role: 'skills', path, ...sum }, refs };
}

/**
 * `loadSkills` with text on demand through the skills-file index (skills-index.ts): when the file
 * hash memo knows this version of the file and its index is stored, the file is not read; else it
 * is parsed as usual, its hash given to the memo and its index stored (a cache that cannot be
 * written costs a parse next time). Both ways give the same skills, in the same shape.
 */
async function loadSkillsIndexed(path: string, skillMdField: string, store: CacheStore): Promise<LoadedSkills> {
  const version = fileVersion(path);
  const known = memoisedFileSha256(path, store);
  if (known !== undefined) {
    const st = statSync(path);
    const index = readSkillsIndex(store, skillsIndexKey(known, skillMdField), { sha256: known, bytes: st.size, skillMdField });
    if (index && fileVersion(path) === version) return skillsFromIndex(path, st.mtimeMs, index);
  }
  const loaded = await loadSkills(path, skillMdField, true);
  rememberFileSha256(path, version, loaded.info.sha256, store);
  if (fileVersion(path) === version) {
    try {
      writeSkillsIndex(store, skillsIndexKey(loaded.info.sha256, skillMdField), {
        skillMdField,
        sha256: loaded.info.sha256,
        bytes: loaded.info.bytes,
        records: loaded.info.records,
        fallbacks: loaded.fallbacks,
        skills: loaded.skills.map((s) => ({ id: s.id, name: s.name, ...(s.major !== undefined ? { major: s.major } : {}), ...(s.sub !== undefined ? { sub: s.sub } : {}), ...(s.sourceUrl !== undefined ? { sourceUrl: s.sourceUrl } : {}) })),
        offsets: Array.from(loaded.refs.offsets),
        lengths: Array.from(loaded.refs.lengths),
      });
    } catch {
      /* a read-only cache: the next run parses the file again */
    }
  }
  return loaded;
}

/** The skills of a stored index, exactly as `loadSkills` makes them with text on demand. */
function skillsFromIndex(path: string, mtimeMs: number, index: SkillsIndex): LoadedSkills {
  const refs: SkillRecordRefs = { path, bytes: index.bytes, mtimeMs, skillMdField: index.skillMdField, ids: index.skills.map((s) => s.id), offsets: index.offsets, lengths: index.lengths };
  let store: JsonlDocStore | undefined;
  const lazy = textOnDemandSkills((i) => {
    store ??= new JsonlDocStore(fileDocSource(refs));
    return store.skill(i);
  });
  const skills = index.skills.map((s, i) => lazy(s as Skill, i));
  return { skills, ids: new Set(refs.ids), fallbacks: index.fallbacks, info: { role: 'skills', path, sha256: index.sha256, bytes: index.bytes, records: index.records }, refs };
}

/** Where a skill with text on demand keeps its record's position (not enumerable). */
const RECORD = Symbol('record');

/**
 * Makes skills without their texts: `description` and `skillMd` are own enumerable getters that
 * re-read the skill's record (`reread`), so an object holds the id, the name and the labels only.
 * The two getters are shared by every skill of a load and the position is a hidden property, so
 * the objects keep V8's compact layout (closures per skill would cost ~0.4 KB each).
 */
function textOnDemandSkills(reread: (i: number) => Skill): (skill: Skill, i: number) => Skill {
  type Lazy = Skill & { [RECORD]: number };
  const getters: PropertyDescriptorMap = {
    description: { get: function (this: Lazy) { return reread(this[RECORD]).description; }, enumerable: true, configurable: true },
    skillMd: { get: function (this: Lazy) { return reread(this[RECORD]).skillMd; }, enumerable: true, configurable: true },
  };
  return (skill, i) => {
    // Keys in the loader's order: id, name, description, skillMd, then the labels.
    const lazy = { id: skill.id, name: skill.name } as Lazy;
    Object.defineProperty(lazy, RECORD, { value: i });
    Object.defineProperties(lazy, getters);
    if (skill.major !== undefined) lazy.major = skill.major;
    if (skill.sub !== undefined) lazy.sub = skill.sub;
    if (skill.sourceUrl !== undefined) lazy.sourceUrl = skill.sourceUrl;
    return lazy;
  };
}

/** A judgement with the line it came from. */
interface Judgement extends GoldEntry {
  at: RecordAt;
  /** Field name for an unknown-id error. */
  field: string;
}

interface LoadedQueries {
  queries: Query[];
  /** Query id -> line of its record. */
  lines: Map<string, number>;
  /** Judgements from the records (only when asked for). */
  gold: Map<string, Judgement[]>;
  info: DatasetFileInfo;
}

async function loadQueries(path: string, withGold: boolean): Promise<LoadedQueries> {
  const queries: Query[] = [];
  const lines = new Map<string, number>();
  const gold = new Map<string, Judgement[]>();
  const sum = await readJsonlFile(path, (rec, line) => {
    const at: RecordAt = { file: path, line };
    const id = requireId(rec, 'id', at);
    const first = lines.get(id);
    if (first !== undefined) fail(at, 'id', `duplicate query id ${quoteId(id)} (first on line ${first})`);
    lines.set(id, line);
    const text = requireString(rec, 'query', at);
    const generatorModel = typeof rec.generator_model === 'string' && rec.generator_model.trim() !== '' ? rec.generator_model : undefined;
    queries.push(generatorModel !== undefined ? { id, text, generatorModel } : { id, text });
    if (withGold) {
      const g = goldFromQueryRecord(rec, at);
      if (g !== undefined) {
        gold.set(
          id,
          g.entries.map((e, i) => ({ ...e, at, field: g.field === 'labels' ? `labels[${i}].id` : `skill_ids[${i}]` })),
        );
      }
    }
  });
  if (sum.records === 0) throw new UserError(`${where(path)}no query records (the file is empty)`);
  return { queries, lines, gold, info: { role: 'queries', path, ...sum } };
}

async function loadQrelsFile(
  path: string,
  queryLines: Map<string, number> | undefined,
  queriesPath: string | undefined,
): Promise<{ gold: Map<string, Judgement[]>; info: DatasetFileInfo }> {
  const gold = new Map<string, Judgement[]>();
  const pairLine = new Map<string, Map<string, number>>();
  const sum = await readJsonlFile(path, (rec, line) => {
    const at: RecordAt = { file: path, line };
    const queryId = requireId(rec, 'query_id', at);
    const skillId = requireId(rec, 'skill_id', at);
    const relevance = requireInteger(rec, 'relevance', at);
    if (queryLines !== undefined && !queryLines.has(queryId)) {
      fail(at, 'query_id', `query ${quoteId(queryId)} is not in ${queriesPath ?? 'the queries file'}`);
    }
    let seen = pairLine.get(queryId);
    if (seen === undefined) {
      seen = new Map();
      pairLine.set(queryId, seen);
    }
    const first = seen.get(skillId);
    if (first !== undefined) {
      fail(at, 'skill_id', `duplicate judgement for query ${quoteId(queryId)} and skill ${quoteId(skillId)} (first on line ${first})`);
    }
    seen.set(skillId, line);
    let list = gold.get(queryId);
    if (list === undefined) {
      list = [];
      gold.set(queryId, list);
    }
    list.push({ skillId, relevance, at, field: 'skill_id' });
  });
  return { gold, info: { role: 'qrels', path, ...sum } };
}

interface GoldResult {
  qrels: Qrels;
  /** Ids of queries kept (evaluated), in `order`. */
  kept: Set<string>;
  queriesWithoutGold: string[];
  queriesWithoutRelevant: string[];
  droppedGoldPairs: number;
  droppedGoldQueries: string[];
  unknownGoldKept: number;
}

const hasRelevant = (js: readonly GoldEntry[]): boolean => js.some((j) => j.relevance >= 1);

/**
 * Turns judgements into Qrels for the queries in `order`, checking skill ids against `corpus`
 * (when given) with the unknownGold policy. `keepUnjudged`: a query without any judgement is kept
 * with an empty judgement set (it scores 0: the official denominators) instead of left out.
 */
function resolveGold(
  order: readonly string[],
  gold: Map<string, Judgement[]>,
  corpus: Set<string> | undefined,
  unknownGold: 'error' | 'drop' | 'keep',
  keepUnjudged: boolean,
): GoldResult {
  const qrels: Qrels = new Map();
  const kept = new Set<string>();
  const queriesWithoutGold: string[] = [];
  const queriesWithoutRelevant: string[] = [];
  const droppedGoldQueries: string[] = [];
  let droppedGoldPairs = 0;
  let unknownGoldKept = 0;
  for (const qid of order) {
    const js = gold.get(qid) ?? [];
    let usable = js;
    if (corpus !== undefined) {
      usable = [];
      for (const j of js) {
        if (corpus.has(j.skillId)) usable.push(j);
        else if (unknownGold === 'keep') {
          usable.push(j);
          unknownGoldKept++;
        } else if (unknownGold === 'drop') droppedGoldPairs++;
        else fail(j.at, j.field, `skill ${quoteId(j.skillId)} (gold for query ${quoteId(qid)}) is not in the skill corpus`);
      }
    }
    if (js.length === 0) queriesWithoutGold.push(qid);
    else if (usable.length === 0) droppedGoldQueries.push(qid);
    if (usable.length === 0 && !keepUnjudged) continue;
    if (!hasRelevant(usable)) queriesWithoutRelevant.push(qid);
    kept.add(qid);
    qrels.set(qid, new Map(usable.map((j) => [j.skillId, j.relevance])));
  }
  return { qrels, kept, queriesWithoutGold, queriesWithoutRelevant, droppedGoldPairs, droppedGoldQueries, unknownGoldKept };
}

/** Query ids (in `order`) whose judgements differ between two gold sources (ids or grades). */
function goldDisagreement(order: readonly string[], a: Map<string, Judgement[]>, b: Map<string, Judgement[]>): string[] {
  const key = (js: readonly Judgement[] | undefined) =>
    (js ?? [])
      .map((j) => `${j.skillId}\u0000${j.relevance}`)
      .sort()
      .join('\u0001');
  return order.filter((q) => key(a.get(q)) !== key(b.get(q)));
}

/** The records of `kept` (a subset of the loaded skills, in file order). */
function subsetRefs(all: SkillRecordRefs, kept: readonly Skill[]): SkillRecordRefs {
  const at = new Map(all.ids.map((id, i) => [id, i]));
  const rows = kept.map((s) => at.get(s.id)!);
  return { ...all, ids: kept.map((s) => s.id), offsets: rows.map((r) => all.offsets[r]!), lengths: rows.map((r) => all.lengths[r]!) };
}

/** Loads skills, queries and gold of one split (see the module comment for the rules). */
export async function loadDataset(o: DatasetOptions): Promise<Dataset> {
  const dir = o.path;
  const split = o.split;
  checkSplit(dir, split);
  checkDir(dir, split);
  const skillsPath = requireFile(dir, 'skills', split);
  const queriesPath = requireFile(dir, 'queries', split);
  const qrelsPath = datasetFilePath(dir, 'qrels', split);
  const hasQrels = existsSync(qrelsPath);
  if (!hasQrels && o.requireQrels === true) requireFile(dir, 'qrels', split);

  const policy = goldPolicy(o.evaluation ?? 'trec_eval', o.gold, o.unknownGold);
  const useQrels = policy.gold === 'qrels' ? hasQrels : false;
  if (policy.gold === 'qrels' && o.gold === 'qrels' && !hasQrels) requireFile(dir, 'qrels', split);

  const skAll =
    o.textOnDemand === true && o.indexCacheDir !== undefined
      ? await loadSkillsIndexed(skillsPath, o.skillMdField ?? 'skill_md', CacheStore.of({ cacheDir: o.indexCacheDir, useCache: true, log: o.cacheLog ?? (() => {}) }))
      : await loadSkills(skillsPath, o.skillMdField ?? 'skill_md', o.textOnDemand === true);
  const filtered = o.skillFilter ? applySkillFilter(skAll.skills, o.skillFilter) : { skills: skAll.skills, removed: 0 };
  const corpus = o.skillFilter ? new Set(filtered.skills.map((x) => x.id)) : skAll.ids;
  const qs = await loadQueries(queriesPath, true);
  const files: DatasetFileInfo[] = [skAll.info, qs.info];
  let gold = qs.gold;
  let disagreement: string[] | undefined;
  const order = qs.queries.map((q) => q.id);
  if (hasQrels) {
    const qr = await loadQrelsFile(qrelsPath, qs.lines, queriesPath);
    if (useQrels) gold = qr.gold;
    files.push(qr.info);
    if (qs.gold.size > 0) disagreement = goldDisagreement(order, qr.gold, qs.gold);
  }
  const r = resolveGold(order, gold, corpus, policy.unknownGold, policy.keepUnjudged);
  if (![...r.qrels.values()].some((js) => [...js.values()].some((g) => g >= 1))) {
    throw new UserError(`${where(useQrels ? qrelsPath : queriesPath)}no query has a relevant judgement (relevance >= 1); nothing to evaluate`);
  }
  return {
    dir,
    split,
    skills: filtered.skills,
    skillRecords: o.skillFilter ? subsetRefs(skAll.refs, filtered.skills) : skAll.refs,
    queries: qs.queries.filter((q) => r.kept.has(q.id)),
    qrels: r.qrels,
    goldSource: useQrels ? 'qrels' : 'queries',
    evaluation: policy.evaluation,
    files,
    stats: {
      skillMdFallbacks: skAll.fallbacks,
      skillsFilteredOut: filtered.removed,
      queriesWithoutGold: r.queriesWithoutGold,
      queriesWithoutRelevant: r.queriesWithoutRelevant,
      droppedGoldPairs: r.droppedGoldPairs,
      droppedGoldQueries: r.droppedGoldQueries,
      unknownGoldKept: r.unknownGoldKept,
      ...(disagreement !== undefined ? { goldDisagreement: disagreement } : {}),
      grades: gradeSummary(r.qrels),
    },
  };
}

/**
 * Gold only, for scoring a run against a dataset folder: `qrels/<split>.jsonl` if present (the
 * queries file is then not read), else the labels / skill_ids of `queries/<split>.jsonl`. No skills are
 * read, so gold ids are not checked against a corpus. Queries without relevant gold are left out of
 * `qrels` and listed in `queriesWithoutGold` (only known when the queries file is read).
 */
export async function loadGold(
  dir: string,
  split: string,
  o: Partial<DatasetOptions> = {},
): Promise<{ qrels: Qrels; goldSource: 'qrels' | 'queries'; files: DatasetFileInfo[]; queriesWithoutGold: string[] }> {
  checkSplit(dir, split);
  checkDir(dir, split);
  const qrelsPath = datasetFilePath(dir, 'qrels', split);
  let gold: Map<string, Judgement[]>;
  let order: string[];
  let files: DatasetFileInfo[];
  let goldSource: 'qrels' | 'queries';
  let sourcePath: string;
  if (existsSync(qrelsPath)) {
    const qr = await loadQrelsFile(qrelsPath, undefined, undefined);
    gold = qr.gold;
    order = [...qr.gold.keys()];
    files = [qr.info];
    goldSource = 'qrels';
    sourcePath = qrelsPath;
  } else {
    if (o.requireQrels === true) requireFile(dir, 'qrels', split);
    const queriesPath = requireFile(dir, 'queries', split);
    const qs = await loadQueries(queriesPath, true);
    gold = qs.gold;
    order = qs.queries.map((q) => q.id);
    files = [qs.info];
    goldSource = 'queries';
    sourcePath = queriesPath;
  }
  const r = resolveGold(order, gold, undefined, 'error', false);
  if (![...r.qrels.values()].some((js) => [...js.values()].some((g) => g >= 1))) {
    throw new UserError(`${where(sourcePath)}no query has a relevant judgement (relevance >= 1); nothing to score against`);
  }
  return { qrels: r.qrels, goldSource, files, queriesWithoutGold: r.queriesWithoutGold };
}
