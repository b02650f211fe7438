/**
 * Gold judgements carried by a query record (used when there is no qrels file), read as the official
 * `_normalize_query_labels` does: `labels` if the key is present (an array, or a JSON string holding
 * one, of `{"id", "relevance"}`, relevance as given), else each `skill_ids` entry at relevance 1,
 * else no gold at all.
 *
 * A `null` value counts as absent (a Hub table gives every row every column, null where a record
 * lacked it); the official local reader would crash on a null `labels` instead.
 */
import { describeValue, fail, quoteId, type RecordAt } from './fields.js';

/** One judgement: a skill id and its integer grade (relevant = grade >= 1). */
export interface GoldEntry {
  skillId: string;
  relevance: number;
}

/** Where the gold of a query record came from. */
export type QueryGoldField = 'labels' | 'skill_ids';

function checkEntryObject(x: unknown, at: RecordAt, label: string): Record<string, unknown> {
  if (x === null || typeof x !== 'object' || Array.isArray(x)) fail(at, label, `must be an object {"id", "relevance"}, got ${describeValue(x)}`);
  return x as Record<string, unknown>;
}

function fromLabels(raw: unknown, at: RecordAt): GoldEntry[] {
  let labels = raw;
  if (typeof labels === 'string') {
    try {
      labels = JSON.parse(labels);
    } catch (e) {
      fail(at, 'labels', `is a string but not valid JSON (${e instanceof Error ? e.message.slice(0, 120) : String(e)})`);
    }
  }
  if (!Array.isArray(labels)) fail(at, 'labels', `must be an array (or a JSON string of one) of {"id", "relevance"}, got ${describeValue(labels)}`);
  const out: GoldEntry[] = [];
  const seen = new Set<string>();
  labels.forEach((x: unknown, i: number) => {
    const o = checkEntryObject(x, at, `labels[${i}]`);
    const id = o['id'];
    if (typeof id !== 'string' || id === '') fail(at, `labels[${i}].id`, `must be a non-empty string, got ${describeValue(id)}`);
    const rel = o['relevance'];
    if (typeof rel !== 'number' || !Number.isSafeInteger(rel)) fail(at, `labels[${i}].relevance`, `must be an integer, got ${describeValue(rel)}`);
    if (seen.has(id)) fail(at, `labels[${i}].id`, `duplicate skill id ${quoteId(id)} in this query's labels`);
    seen.add(id);
    out.push({ skillId: id, relevance: rel });
  });
  return out;
}

function fromSkillIds(raw: unknown, at: RecordAt): GoldEntry[] {
  if (!Array.isArray(raw)) fail(at, 'skill_ids', `must be an array of skill ids, got ${describeValue(raw)}`);
  const out: GoldEntry[] = [];
  const seen = new Set<string>();
  raw.forEach((id: unknown, i: number) => {
    if (typeof id !== 'string' || id === '') fail(at, `skill_ids[${i}]`, `must be a non-empty string, got ${describeValue(id)}`);
    if (seen.has(id)) fail(at, `skill_ids[${i}]`, `duplicate skill id ${quoteId(id)} in this query's skill_ids`);
    seen.add(id);
    out.push({ skillId: id, relevance: 1 });
  });
  return out;
}

/**
 * The judgements a query record carries, and which field they came from; `undefined` when the
 * record has neither `labels` nor `skill_ids` (the query then has no gold).
 */
export function goldFromQueryRecord(
  rec: Record<string, unknown>,
  at: RecordAt,
): { field: QueryGoldField; entries: GoldEntry[] } | undefined {
  const labels = rec['labels'];
  if (labels !== undefined && labels !== null) return { field: 'labels', entries: fromLabels(labels, at) };
  const skillIds = rec['skill_ids'];
  if (skillIds !== undefined && skillIds !== null) return { field: 'skill_ids', entries: fromSkillIds(skillIds, at) };
  return undefined;
}
