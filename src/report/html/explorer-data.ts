/**
 * The explorer's data as report.html embeds it: columns, compressed. The model's ExplorerData
 * (analysis/report-view.ts) holds one object per query and run with skill ids spelled out, about
 * 3 MB of JSON per run on the full-size split; the page instead carries
 *
 * - in the clear (the data block's JSON, `<` and friends escaped by page.ts `jsonForScript`): the
 *   main metric, its k and the runs (label, reranked), which the filter menu needs first;
 * - `data`: the rest as one JSON document of columns ({@link ExplorerColumns}: skills as parallel
 *   arrays in id order, referenced by index; per query its id, text, generator model and gold; per
 *   run one array per field, indexed like the queries), compressed with raw DEFLATE
 *   (node:zlib, level {@link LEVEL}) and written in base64.
 *
 * The page's script inflates it with the browser's DecompressionStream('deflate-raw') and reads
 * the columns (client.ts). The bytes are deterministic: the same data gives the same JSON, and
 * zlib at a fixed level gives the same stream for the same input and zlib version (Node bundles its
 * zlib, so a Node upgrade may change the compressed bytes, never what they inflate to). Texts are
 * carried as they are; the client sets them as text, never as markup.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ExplorerData } from '../../analysis/report-view.js';

/** zlib level: 4 is within 4% of 9's size on the full-size split at a third of its time. */
export const LEVEL = 4;
/** What `format` says: the layout of the inflated columns. */
export const FORMAT = 'explorer-columns/1';

/** The explorer's data block as embedded (before `jsonForScript`). */
export interface ExplorerBlock {
  format: typeof FORMAT;
  mainKey: string;
  k: number;
  runs: { label: string; reranked: boolean }[];
  encoding: 'deflate-raw;base64';
  /** ExplorerColumns as JSON, raw DEFLATE, base64. */
  data: string;
}

/** The inflated `data`: parallel arrays. */
export interface ExplorerColumns {
  /** Every skill the explorer shows, in id order; queries and runs refer to them by index. */
  skills: {
    id: string[];
    name: string[];
    major: (string | null)[];
    sub: (string | null)[];
    url: (string | null)[];
    rawUrl: (string | null)[];
    /** Only when some skill has a sibling family (analysis.siblings). */
    family?: (string | null)[];
  };
  queries: { id: string[]; text: string[]; generatorModel: (string | null)[]; gold: number[][] };
  /** One per run, in the runs' order; each array indexed like `queries`. */
  runs: {
    top: number[][];
    goldRanks: (number | null)[][];
    valueText: string[];
    /** 1: not every gold skill in the top k of the main metric. */
    failed: (0 | 1)[];
    vsNone: (number | null)[];
    vsNoneText: (string | null)[];
  }[];
}

/** The columns of `data`. */
export function explorerColumns(data: ExplorerData): ExplorerColumns {
  const ids = Object.keys(data.skills).sort();
  const index = new Map(ids.map((id, i) => [id, i]));
  const ref = (id: string): number => {
    const i = index.get(id);
    if (i === undefined) throw new Error(`explorer: skill ${id} is shown but not in the skills table`);
    return i;
  };
  const skills = ids.map((id) => data.skills[id]!);
  const hasFamily = skills.some((s) => s.family !== undefined);
  const qs = data.queries;
  return {
    skills: {
      id: ids,
      name: skills.map((s) => s.name),
      major: skills.map((s) => s.major),
      sub: skills.map((s) => s.sub),
      url: skills.map((s) => s.url),
      rawUrl: skills.map((s) => s.rawUrl),
      ...(hasFamily ? { family: skills.map((s) => s.family ?? null) } : {}),
    },
    queries: { id: qs.map((q) => q.id), text: qs.map((q) => q.text), generatorModel: qs.map((q) => q.generatorModel), gold: qs.map((q) => q.gold.map(ref)) },
    runs: data.runs.map((_, j) => ({
      top: qs.map((q) => q.runs[j]!.top.map(ref)),
      goldRanks: qs.map((q) => q.runs[j]!.goldRanks),
      valueText: qs.map((q) => q.runs[j]!.valueText),
      failed: qs.map((q) => (q.runs[j]!.failed ? 1 : 0)),
      vsNone: qs.map((q) => q.runs[j]!.vsNone),
      vsNoneText: qs.map((q) => q.runs[j]!.vsNoneText),
    })),
  };
}

/** The block report.html embeds for `data`. */
export function explorerBlock(data: ExplorerData): ExplorerBlock {
  const json = Buffer.from(JSON.stringify(explorerColumns(data)), 'utf8');
  return {
    format: FORMAT,
    mainKey: data.mainKey,
    k: data.k,
    runs: data.runs,
    encoding: 'deflate-raw;base64',
    data: deflateRawSync(json, { level: LEVEL }).toString('base64'),
  };
}

/** The columns of an embedded block (the page's script does the same in the browser): for tests and tools. */
export function readExplorerBlock(block: ExplorerBlock): ExplorerColumns {
  if (block.format !== FORMAT || block.encoding !== 'deflate-raw;base64') throw new Error(`explorer data: unknown format ${String(block.format)} / ${String(block.encoding)}`);
  return JSON.parse(inflateRawSync(Buffer.from(block.data, 'base64')).toString('utf8')) as ExplorerColumns;
}

/**
 * The explorer data of a report.html page, back in the model's shape (the skills' `family` only
 * where the page has families): for tests and tools.
 */
export function explorerDataOfPage(html: string): ExplorerData {
  const m = /<script type="application\/json" id="explorer-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('report.html: no explorer data block');
  const block = JSON.parse(m[1]!) as ExplorerBlock;
  const c = readExplorerBlock(block);
  const S = c.skills;
  const skills: ExplorerData['skills'] = Object.create(null) as ExplorerData['skills'];
  S.id.forEach((id, i) => {
    const family = S.family?.[i];
    skills[id] = { name: S.name[i]!, major: S.major[i]!, sub: S.sub[i]!, url: S.url[i]!, rawUrl: S.rawUrl[i]!, ...(family !== undefined && family !== null ? { family } : {}) };
  });
  const queries = c.queries.id.map((id, i) => ({
    id,
    text: c.queries.text[i]!,
    generatorModel: c.queries.generatorModel[i]!,
    gold: c.queries.gold[i]!.map((j) => S.id[j]!),
    runs: c.runs.map((r) => ({
      top: r.top[i]!.map((j) => S.id[j]!),
      goldRanks: r.goldRanks[i]!,
      valueText: r.valueText[i]!,
      failed: r.failed[i] === 1,
      vsNone: r.vsNone[i]!,
      vsNoneText: r.vsNoneText[i]!,
    })),
  }));
  return { mainKey: block.mainKey, k: block.k, runs: block.runs, queries, skills };
}
