/**
 * Long-query strategies (a retriever or reranker option): `whole` is the SkillRet protocol (the
 * query as one text); `sentences` retrieves with each sentence and fuses per query; `windows`
 * retrieves with overlapping windows of `size` sentences every `stride`.
 *
 * `segmentQueries` turns queries into segment queries with opaque ids (`owner` maps them back), so
 * the segments go through a first stage exactly like whole queries, caches included.
 */
import type { Query } from '../core/types.js';
import { rangeText, sentenceWindows, splitSentences, type SentenceRange } from './segment.js';

export type SegmentFuse = 'rrf' | 'max' | 'mean';

export type QueryStrategy =
  | { strategy: 'whole' }
  | { strategy: 'sentences'; fuse: SegmentFuse; rrfK: number }
  | { strategy: 'windows'; size: number; stride: number; fuse: SegmentFuse; rrfK: number };

export const WHOLE: QueryStrategy = Object.freeze({ strategy: 'whole' });

/** Short label for tables: "whole", "sentences·rrf", "windows 3/1·max". */
export function strategyLabel(s: QueryStrategy): string {
  switch (s.strategy) {
    case 'whole':
      return 'whole';
    case 'sentences':
      return `sentences·${s.fuse}`;
    case 'windows':
      return `windows ${s.size}/${s.stride}·${s.fuse}`;
  }
}

/** The segment texts of one query under a strategy (whole, or a query with no sentence: the text itself). */
export function querySegments(text: string, s: QueryStrategy): string[] {
  if (s.strategy === 'whole') return [text];
  const sentences = splitSentences(text);
  if (sentences.length === 0) return [text];
  const ranges: SentenceRange[] =
    s.strategy === 'sentences' ? sentences.map((_, i) => ({ from: i, to: i + 1 })) : sentenceWindows(sentences.length, s.size, s.stride);
  return ranges.map((r) => rangeText(text, sentences, r));
}

export interface SegmentedQueries {
  /** Segment queries, every query's segments in order, queries in input order. */
  segments: Query[];
  /** Segment id → owning query id. */
  owner: Map<string, string>;
  /** Query id → its segment ids in order. */
  byQuery: Map<string, string[]>;
}

/** Segment ids are `<n>` in one sequence: opaque, never parsed (a query id may hold any character). */
export function segmentQueries(queries: readonly Query[], s: QueryStrategy): SegmentedQueries {
  const segments: Query[] = [];
  const owner = new Map<string, string>();
  const byQuery = new Map<string, string[]>();
  for (const q of queries) {
    const ids: string[] = [];
    for (const text of querySegments(q.text, s)) {
      const id = `seg${segments.length}`;
      segments.push({ id, text });
      owner.set(id, q.id);
      ids.push(id);
    }
    byQuery.set(q.id, ids);
  }
  return { segments, owner, byQuery };
}

/** Segment counts for the manifest: total, per query min / mean / max. */
export function segmentCounts(seg: SegmentedQueries): { segments: number; queries: number; per_query: { min: number; mean: number; max: number } } {
  const counts = [...seg.byQuery.values()].map((ids) => ids.length);
  const n = counts.length;
  return {
    segments: seg.segments.length,
    queries: n,
    per_query: { min: n ? Math.min(...counts) : 0, mean: n ? seg.segments.length / n : 0, max: n ? Math.max(...counts) : 0 },
  };
}
