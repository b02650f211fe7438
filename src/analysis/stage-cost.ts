/**
 * The cost of each stage of an experiment, typed: seconds, throughput, truncation and what the
 * caches answered, read once from the stage records' `info` (pipeline/experiment.ts StageRecord),
 * so the renderers (summary.md's Cost section) only format it.
 */
import type { StageRecord } from '../pipeline/experiment.js';

export interface StageCost {
  kind: StageRecord['kind'];
  id: string;
  /** A rerank stage: the first stage it reranks. */
  over?: string;
  seconds: number;
  /** Throughputs measured (cached work excluded), in display order. */
  rates: { value: number; digits: number; unit: 'docs/s' | 'tokens/s' | 'pairs/s' }[];
  /** Documents cut at the model's window, or scored pairs truncated. */
  truncation?: { count: number; total: number; of: 'documents' | 'scored pairs' };
  /** What the caches answered, in words (`stage output reused`, `12 hit / 3 miss`, …). */
  cache?: string;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const bag = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' ? (v as Record<string, unknown>) : {});

export function stageCost(s: StageRecord): StageCost {
  const info = bag(s.info);
  const thr = bag(info.throughput);
  const trunc = bag(info.truncation);
  const cache = bag(info.cache);
  const pairs = num(info.pairs);
  const cachedPairs = num(info.cachedPairs);
  const allCached = pairs !== undefined && cachedPairs === pairs;
  const rates: StageCost['rates'] = [];
  if (num(thr.docsPerSec) !== undefined) rates.push({ value: num(thr.docsPerSec)!, digits: 1, unit: 'docs/s' });
  if (num(thr.tokensPerSec) !== undefined) rates.push({ value: num(thr.tokensPerSec)!, digits: 0, unit: 'tokens/s' });
  if (num(info.pairsPerSecond) !== undefined && !allCached) rates.push({ value: num(info.pairsPerSecond)!, digits: 1, unit: 'pairs/s' });
  let truncation: StageCost['truncation'];
  const [dt, dn] = [num(trunc.documentsTruncated), num(trunc.documentsTotal)];
  if (dt !== undefined && dn !== undefined && dn > 0) truncation = { count: dt, total: dn, of: 'documents' };
  else if (num(info.truncatedPairs) !== undefined && pairs !== undefined && pairs > 0 && !allCached)
    truncation = { count: num(info.truncatedPairs)!, total: pairs - (cachedPairs ?? 0), of: 'scored pairs' };
  let hits: string | undefined;
  if (cache.stage === 'hit') hits = 'stage output reused';
  else if (num(cache.hits) !== undefined) hits = `${num(cache.hits)} hit / ${cache.misses ?? 0} miss`;
  else if (info.runCache === true) hits = 'hits reused';
  else if (info.cache === 'hit') hits = 'index reused';
  else if (info.cache === 'miss' || info.cache === 'off') hits = 'index built';
  else if (cachedPairs !== undefined && pairs !== undefined) hits = `${cachedPairs} / ${pairs} pairs cached`;
  return {
    kind: s.kind,
    id: s.id,
    ...(s.kind === 'rerank' ? { over: s.over ?? '' } : {}),
    seconds: s.seconds,
    rates,
    ...(truncation ? { truncation } : {}),
    ...(hits !== undefined ? { cache: hits } : {}),
  };
}
