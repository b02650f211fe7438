/**
 * From a config's `RerankerSpec` to everything needed to load it (pure): the preset it names
 * (by `preset`, or by `model` = preset name / original model id / export id), the model
 * reference to load, and the protocol settings with their defaults.
 */
import { UserError } from '../core/errors.js';
import { findRerankerPreset, rerankerPresetNames, type RerankerPreset } from '../models/reranker-presets.js';
import type { RerankerSpec } from './types.js';
import type { ScorePrecision } from './score-precision.js';

/** Default batches in flight. */
export const DEFAULT_CONCURRENCY = 1;

export interface ResolvedRerankerSpec {
  id: string;
  type: string;
  preset?: RerankerPreset;
  /** What to load: a hub id `org/name[@rev]`, a folder, or (local preset) the bundled model's name. */
  modelRef: string;
  /** Bundled model to build on demand before loading. */
  local?: RerankerPreset['local'];
  /** Explicit or preset limit; undefined = the model's own (cross-encoders only). */
  maxTokens?: number;
  batchSize: number;
  dtype?: string;
  threads?: number;
  depth: number;
  /** The config's, else the preset's official precision, else fp32. */
  scorePrecision: ScorePrecision;
}

function prefix(spec: RerankerSpec): string {
  return `reranker "${spec.id}": `;
}

/**
 * `exportFolder`: where a preset without a published export would have been exported to (the
 * folder its export command writes, `models/<preset>`), if that folder holds a model.
 */
export function resolveRerankerSpec(
  spec: RerankerSpec,
  defaults: { batchSize: number; maxTokens?: number },
  o: { exportFolder?: (p: RerankerPreset) => string | undefined } = {},
): ResolvedRerankerSpec {
  let preset: RerankerPreset | undefined;
  if (spec.preset !== undefined) {
    preset = findRerankerPreset(spec.preset);
    if (!preset) throw new UserError(`${prefix(spec)}preset: unknown preset "${spec.preset}" (known: ${rerankerPresetNames().join(', ')})`);
  }
  const byModel = findRerankerPreset(spec.model);
  preset ??= byModel;
  if (preset && preset.type !== spec.type) {
    throw new UserError(`${prefix(spec)}type: "${spec.type}" but ${preset.name} is a ${preset.type} reranker (set type: ${preset.type})`);
  }
  if (!Number.isInteger(spec.depth) || spec.depth < 1) throw new UserError(`${prefix(spec)}depth: expected a positive integer, got ${spec.depth}`);

  // The model to load: the preset's export when `model` names the preset, else `model` itself.
  let modelRef = spec.model.trim();
  let local: RerankerPreset['local'];
  const presetModel = preset !== undefined && (byModel === preset || modelRef === '');
  if (preset && presetModel) {
    if (preset.local) {
      local = preset.local;
      modelRef = preset.local;
    } else if (preset.hubId !== null) {
      modelRef = preset.revision !== undefined ? `${preset.hubId}@${preset.revision}` : preset.hubId;
    } else {
      const folder = o.exportFolder?.(preset);
      if (folder === undefined) throw new UserError(`${prefix(spec)}model: ${preset.note ?? `no ONNX export of ${preset.sourceModel} is known`}`);
      modelRef = folder;
    }
  }
  if (modelRef === '') throw new UserError(`${prefix(spec)}model: empty`);

  const maxTokens = spec.maxTokens ?? preset?.maxTokens ?? defaults.maxTokens;
  for (const [k, v] of [
    ['max_tokens', spec.maxTokens],
    ['batch_size', spec.batchSize],
    ['threads', spec.threads],
  ] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new UserError(`${prefix(spec)}${k}: expected a positive integer, got ${v}`);
  }

  const out: ResolvedRerankerSpec = {
    id: spec.id,
    type: spec.type,
    modelRef,
    batchSize: spec.batchSize ?? defaults.batchSize,
    depth: spec.depth,
    scorePrecision: spec.scorePrecision ?? preset?.scorePrecision ?? 'fp32',
  };
  if (preset) out.preset = preset;
  if (local) out.local = local;
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  // The preset's dtype names a file of the preset's own export only.
  const dtype = spec.dtype ?? (presetModel ? preset?.dtype : undefined);
  if (dtype !== undefined) out.dtype = dtype;
  if (spec.threads !== undefined) out.threads = spec.threads;
  return out;
}
