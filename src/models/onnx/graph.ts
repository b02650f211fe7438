/**
 * A small typed wrapper over `onnx-proto` for writing ONNX models from code: initializer tensors from typed
 * arrays, typed graph inputs/outputs, nodes with tagged attributes, a graph builder that names intermediate
 * values deterministically, and model serialisation written atomically.
 *
 * Used by the GloVe converters (src/models/glove/) and by the tiny random-weight test models
 * (test/helpers/tiny-models.ts). Output is deterministic: the same calls give byte-identical files.
 * Tensor bytes are written little-endian (the ONNX raw_data convention).
 */
import onnxProto from 'onnx-proto';
import { writeFileAtomic } from '../../util/atomic.js';

const { onnx } = onnxProto;

export type TensorProto = onnxProto.onnx.ITensorProto;
export type NodeProto = onnxProto.onnx.INodeProto;
export type ValueInfoProto = onnxProto.onnx.IValueInfoProto;
export type GraphProto = onnxProto.onnx.IGraphProto;
export type ModelProto = onnxProto.onnx.IModelProto;
export type AttributeProto = onnxProto.onnx.IAttributeProto;

/** Element types this module writes (ONNX TensorProto.DataType codes). */
export const DataType = {
  float32: 1,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
} as const;
export type ElemType = keyof typeof DataType;

/** A dimension: a fixed size or a symbolic name such as 'batch_size'. */
export type Dim = number | string;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function leBytes(view: ArrayBufferView, elemSize: number): Uint8Array {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (LITTLE_ENDIAN || elemSize === 1) return bytes; // a view: the caller's array must not change before serialising
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += elemSize) {
    for (let k = 0; k < elemSize; k++) out[i + k] = bytes[i + elemSize - 1 - k]!;
  }
  return out;
}

function checkSize(name: string, dims: readonly number[], length: number): void {
  const n = dims.reduce((a, b) => a * b, 1);
  if (n !== length) throw new Error(`tensor ${name}: dims [${dims.join(', ')}] need ${n} values, got ${length}`);
}

/** A float32 initializer/constant tensor. */
export function floatTensor(name: string, dims: readonly number[], data: Float32Array | readonly number[]): TensorProto {
  const arr = data instanceof Float32Array ? data : Float32Array.from(data);
  checkSize(name, dims, arr.length);
  return { name, dims: [...dims], dataType: DataType.float32, rawData: leBytes(arr, 4) };
}

/** A float16 tensor from its raw IEEE half bit patterns. */
export function float16Tensor(name: string, dims: readonly number[], bits: Uint16Array): TensorProto {
  checkSize(name, dims, bits.length);
  return { name, dims: [...dims], dataType: DataType.float16, rawData: leBytes(bits, 2) };
}

/** An int64 initializer/constant tensor. */
export function int64Tensor(name: string, dims: readonly number[], data: BigInt64Array | readonly (number | bigint)[]): TensorProto {
  const arr = data instanceof BigInt64Array ? data : BigInt64Array.from(data, (x) => BigInt(x));
  checkSize(name, dims, arr.length);
  return { name, dims: [...dims], dataType: DataType.int64, rawData: leBytes(arr, 8) };
}

/** A typed graph input or output: element type and shape (numbers or symbolic names). */
export function valueInfo(name: string, elem: ElemType, dims: readonly Dim[]): ValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: DataType[elem],
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** Tagged attribute values, so integers and floats cannot be confused. */
export type Attr =
  | { kind: 'int'; v: number }
  | { kind: 'float'; v: number }
  | { kind: 'ints'; v: readonly number[] }
  | { kind: 'floats'; v: readonly number[] }
  | { kind: 'string'; v: string }
  | { kind: 'tensor'; v: TensorProto };
export const attr = {
  int: (v: number): Attr => ({ kind: 'int', v }),
  float: (v: number): Attr => ({ kind: 'float', v }),
  ints: (v: readonly number[]): Attr => ({ kind: 'ints', v }),
  floats: (v: readonly number[]): Attr => ({ kind: 'floats', v }),
  string: (v: string): Attr => ({ kind: 'string', v }),
  tensor: (v: TensorProto): Attr => ({ kind: 'tensor', v }),
};

const AT = onnx.AttributeProto.AttributeType;

function toAttributeProto(name: string, a: Attr): AttributeProto {
  switch (a.kind) {
    case 'int':
      return { name, type: AT.INT, i: a.v };
    case 'float':
      return { name, type: AT.FLOAT, f: a.v };
    case 'ints':
      return { name, type: AT.INTS, ints: [...a.v] };
    case 'floats':
      return { name, type: AT.FLOATS, floats: [...a.v] };
    case 'string':
      return { name, type: AT.STRING, s: new TextEncoder().encode(a.v) };
    case 'tensor':
      return { name, type: AT.TENSOR, t: a.v };
  }
}

/** One node. Attribute keys are written in sorted order (deterministic bytes). */
export function node(
  opType: string,
  inputs: readonly string[],
  outputs: readonly string[],
  attrs: Record<string, Attr> = {},
  name?: string,
): NodeProto {
  const attribute = Object.keys(attrs)
    .sort()
    .map((k) => toAttributeProto(k, attrs[k]!));
  return { opType, input: [...inputs], output: [...outputs], attribute, ...(name !== undefined ? { name } : {}) };
}

export interface GraphSpec {
  name: string;
  nodes: readonly NodeProto[];
  inputs: readonly ValueInfoProto[];
  outputs: readonly ValueInfoProto[];
  initializers?: readonly TensorProto[];
  docString?: string;
}

export function graph(s: GraphSpec): GraphProto {
  return {
    name: s.name,
    node: [...s.nodes],
    input: [...s.inputs],
    output: [...s.outputs],
    initializer: [...(s.initializers ?? [])],
    ...(s.docString !== undefined ? { docString: s.docString } : {}),
  };
}

export interface ModelOptions {
  /** Default-domain opset version (default 14: CumSum, Trilu-free ops, ReduceSum with axes input). */
  opset?: number;
  /** IR version (default 8, what onnx-proto 8 describes; accepted by onnxruntime 1.x). */
  irVersion?: number;
  producerName?: string;
  producerVersion?: string;
  docString?: string;
  /** metadata_props, written in sorted key order. */
  metadata?: Record<string, string>;
}

export function model(g: GraphProto, o: ModelOptions = {}): ModelProto {
  const meta = o.metadata ?? {};
  return {
    irVersion: o.irVersion ?? 8,
    opsetImport: [{ domain: '', version: o.opset ?? 14 }],
    producerName: o.producerName ?? 'skillret-eval',
    producerVersion: o.producerVersion ?? '0.1.0',
    graph: g,
    ...(o.docString !== undefined ? { docString: o.docString } : {}),
    metadataProps: Object.keys(meta)
      .sort()
      .map((key) => ({ key, value: meta[key]! })),
  };
}

/** Protobuf bytes of a model. */
export function serializeModel(m: ModelProto): Uint8Array {
  const err = onnx.ModelProto.verify(m);
  if (err) throw new Error(`invalid ONNX model: ${err}`);
  return onnx.ModelProto.encode(onnx.ModelProto.fromObject(m)).finish();
}

/** Writes a model to `path` atomically (temporary sibling + rename); returns its size in bytes. */
export function saveModel(path: string, m: ModelProto): number {
  const bytes = serializeModel(m);
  writeFileAtomic(path, bytes);
  return bytes.length;
}

/**
 * Builds a graph step by step: `op()` adds a node and returns the name of its (single) output, named
 * `<prefix><counter>` unless given; constants become initializers. Keeps graph code short and readable.
 */
export class GraphBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  private counter = 0;
  private readonly names = new Set<string>();

  /** Adds a node with one output; returns that output's name. */
  op(opType: string, inputs: readonly string[], attrs: Record<string, Attr> = {}, output?: string): string {
    const out = output ?? this.fresh(opType);
    this.nodes.push(node(opType, inputs, [out], attrs, `${opType}_${this.nodes.length}`));
    return out;
  }

  /** Adds a node with several outputs. */
  opMulti(opType: string, inputs: readonly string[], outputs: readonly string[], attrs: Record<string, Attr> = {}): void {
    this.nodes.push(node(opType, inputs, outputs, attrs, `${opType}_${this.nodes.length}`));
  }

  /** Registers an initializer; returns its name. */
  init(t: TensorProto): string {
    const name = t.name ?? '';
    if (name === '' || this.names.has(name)) throw new Error(`initializer name missing or duplicated: ${name}`);
    this.names.add(name);
    this.initializers.push(t);
    return name;
  }

  /** A float32 constant (initializer), scalar when dims = []. */
  constF(name: string, dims: readonly number[], data: Float32Array | readonly number[]): string {
    return this.init(floatTensor(name, dims, data));
  }

  /** An int64 constant (initializer), scalar when dims = []. */
  constI(name: string, dims: readonly number[], data: readonly (number | bigint)[] | BigInt64Array): string {
    return this.init(int64Tensor(name, dims, data));
  }

  build(s: Omit<GraphSpec, 'nodes' | 'initializers'>): GraphProto {
    return graph({ ...s, nodes: this.nodes, initializers: this.initializers });
  }

  private fresh(opType: string): string {
    let name: string;
    do name = `${opType.toLowerCase()}_${this.counter++}`;
    while (this.names.has(name));
    this.names.add(name);
    return name;
  }
}
