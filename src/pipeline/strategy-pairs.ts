/**
 * Which run a query-strategy run is compared with: its `whole` twin. The twin of a retriever (or
 * reranker) entry with a non-whole `query:` is the entry of the same list whose config is
 * identical apart from `id` (and `group`) and `query` and whose strategy is whole (no `query:` or
 * `{strategy: whole}`); the first such entry in config order. The baseline of a run
 * <retriever>/<reranker> replaces each side that has a strategy by its twin; a side without a
 * twin leaves the run without a baseline.
 */
import { stableStringify } from '../util/hash.js';

interface Entry {
  id: string;
  query?: { strategy: string } | undefined;
}

const isWhole = (e: Entry) => !e.query || e.query.strategy === 'whole';

function identity(e: Entry): string {
  // `group` is the id as written (a depth list's), so it differs between twins like `id` does.
  const { id: _id, query: _query, group: _group, ...rest } = e as Entry & Record<string, unknown>;
  return stableStringify(rest);
}

/** The whole twin's id of `e` among `all`; `e.id` itself when `e` is whole; undefined when none. */
export function wholeTwin(e: Entry, all: readonly Entry[]): string | undefined {
  if (isWhole(e)) return e.id;
  const key = identity(e);
  return all.find((x) => x.id !== e.id && isWhole(x) && identity(x) === key)?.id;
}

export interface StrategyBaseline {
  retriever: string;
  reranker: string;
}

/**
 * The baseline run of <retriever>/<reranker>, or undefined when neither side has a strategy or a
 * side with a strategy has no whole twin.
 */
export function strategyBaseline(retriever: Entry, reranker: Entry, retrievers: readonly Entry[], rerankers: readonly Entry[]): StrategyBaseline | undefined {
  if (isWhole(retriever) && isWhole(reranker)) return undefined;
  const r = wholeTwin(retriever, retrievers);
  const rr = wholeTwin(reranker, rerankers);
  if (r === undefined || rr === undefined) return undefined;
  return { retriever: r, reranker: rr };
}

export function hasStrategy(e: Entry): boolean {
  return !isWhole(e);
}
