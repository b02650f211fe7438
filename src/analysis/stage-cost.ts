/**
 * The cost of each stage of an experiment, typed: seconds, throughput, truncation and what the
 * caches answered, read once from the typed cost facts of the stage records' `info`
 * (core/stages.ts StageCostFacts, which every kind's info is checked against),
 * so the renderers (summary.md's Cost section) only format it.
 */
import type { StageCostFacts } from '../core/stages.js';
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

/** A finite number, else undefined (a fact a stage did not measure, or recorded as null). */
const num = (v: number | null | undefined): number | undefined => (typeof v === 'number' ? v : undefined);

export function stageCost(s: StageRecord): StageCost {
  const info: StageCostFacts = s.info;
  const { pairs, cachedPairs } = info;
  const allCached = pairs !== undefined && cachedPairs === pairs;
  const rates: StageCost['rates'] = [];
  const docsPerSec = num(info.throughput?.docsPerSec);
  const tokensPerSec = num(info.throughput?.tokensPerSec);
  if (docsPerSec !== undefined) rates.push({ value: docsPerSec, digits: 1, unit: 'docs/s' });
  if (tokensPerSec !== undefined) rates.push({ value: tokensPerSec, digits: 0, unit: 'tokens/s' });
  if (info.pairsPerSecond !== undefined && !allCached) rates.push({ value: info.pairsPerSecond, digits: 1, unit: 'pairs/s' });
  let truncation: StageCost['truncation'];
  const [dt, dn] = [info.truncation?.documentsTruncated, info.truncation?.documentsTotal];
  if (dt !== undefined && dn !== undefined && dn > 0) truncation = { count: dt, total: dn, of: 'documents' };
  else if (info.truncatedPairs !== undefined && pairs !== undefined && pairs > 0 && !allCached)
    truncation = { count: info.truncatedPairs, total: pairs - (cachedPairs ?? 0), of: 'scored pairs' };
  let hits: string | undefined;
  const cache = info.cache;
  if (typeof cache === 'object' && cache.stage === 'hit') hits = 'stage output reused';
  else if (typeof cache === 'object' && cache.hits !== undefined) hits = `${cache.hits} hit / ${cache.misses ?? 0} miss`;
  else if (info.runCache === true) hits = 'hits reused';
  else if (cache === 'hit') hits = 'index reused';
  else if (cache === 'miss' || cache === 'off') hits = 'index built';
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
