/**
 * The paper's counterpart of a model reranker entry (every reranker kind declares it through this):
 * the preset its `model` names, and how the entry's settings differ from the protocol's. A served
 * reranker (`remote`) uses the server's template and truncation, and its scores as sent unless the
 * config asks for a precision.
 */
import type { PaperCounterpart } from '../../core/stages.js';
import { findRerankerPreset } from '../../models/reranker-presets.js';

export interface RerankerEntryFacts {
  type: string;
  model: string;
  max_tokens?: number | undefined;
  instruction?: string | undefined;
  template?: string | undefined;
  score_precision?: string | undefined;
}

export function rerankerCounterpart(r: RerankerEntryFacts, o: { remote: boolean }): PaperCounterpart | undefined {
  const preset = findRerankerPreset(r.model);
  if (!preset) return undefined;
  const deviations: string[] = [];
  if (!o.remote && r.type !== preset.type) deviations.push(`type ${r.type} (preset ${preset.type})`);
  if (o.remote) deviations.push("scored by a remote endpoint (its template and truncation are the server's)");
  if (r.max_tokens !== undefined && r.max_tokens !== preset.maxTokens) deviations.push(`reranker max_tokens ${r.max_tokens} (protocol ${preset.maxTokens})`);
  if (r.instruction !== undefined && r.instruction !== preset.instruction) deviations.push('reranker instruction differs from the protocol');
  if (r.template !== undefined && r.template !== preset.template) deviations.push(`template ${r.template} (protocol ${preset.template ?? 'qwen3'})`);
  // Local rerankers default to the official precision; a server's scores are used as sent unless the config says.
  const precision = r.score_precision ?? (o.remote ? undefined : preset.scorePrecision);
  if (precision !== preset.scorePrecision) deviations.push(`score precision ${precision ?? 'as the server sends it'} (official ${preset.scorePrecision}: ties and order differ)`);
  return { model: preset.sourceModel, deviations };
}
