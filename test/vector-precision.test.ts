/** The precision dense vectors are searched (and explained) at: src/retrieval/dense/embedding/vector-precision.ts. */
import { describe, expect, it } from 'vitest';
import { findEmbedderPreset } from '../src/models/embedder-presets.js';
import { toBfloat16, toFloat16 } from '../src/models/float-formats.js';
import { roundVectors, vectorPrecisionOf } from '../src/retrieval/dense/embedding/vector-precision.js';

describe('vector precision', () => {
  it('the config wins, then the preset, then fp32', () => {
    const preset = findEmbedderPreset('glove-6b-100d-static')!;
    expect(vectorPrecisionOf(undefined, null)).toBe('fp32');
    expect(vectorPrecisionOf(undefined, { ...preset, vectorPrecision: 'bf16' })).toBe('bf16');
    expect(vectorPrecisionOf('fp16', { ...preset, vectorPrecision: 'bf16' })).toBe('fp16');
    expect(vectorPrecisionOf('fp32', { ...preset, vectorPrecision: 'bf16' })).toBe('fp32');
  });

  it("the model folder's torch_dtype counts without a preset or under a preset that leaves it to the checkpoint, never under a fixed one", () => {
    expect(vectorPrecisionOf(undefined, null, 'bf16')).toBe('bf16');
    expect(vectorPrecisionOf(undefined, findEmbedderPreset('harrier-oss-v1-270m'), 'bf16')).toBe('bf16');
    expect(vectorPrecisionOf(undefined, findEmbedderPreset('harrier-oss-v1-270m'), undefined)).toBe('fp32');
    // The bundled GloVe folder's config says float16 (its stored weights); its vectors are searched at fp32.
    expect(vectorPrecisionOf(undefined, findEmbedderPreset('glove-6b-100d-static'), 'fp16')).toBe('fp32');
    expect(vectorPrecisionOf(undefined, findEmbedderPreset('bge-small-en-v1.5'), 'bf16')).toBe('fp32');
    expect(vectorPrecisionOf(undefined, findEmbedderPreset('Qwen3-Embedding-0.6B'), 'fp32')).toBe('bf16');
  });

  it('rounds every component to the format (fp32: the same vectors)', () => {
    const v = Float32Array.from([0.1, -1.2345678, 3.3e-5, 65519]);
    const [same] = roundVectors([v], 'fp32');
    expect(same).toBe(v);
    const [b] = roundVectors([v], 'bf16');
    const [h] = roundVectors([v], 'fp16');
    expect([...b!]).toEqual([...v].map((x) => Math.fround(toBfloat16(x))));
    expect([...h!]).toEqual([...v].map((x) => Math.fround(toFloat16(x))));
    expect([...b!]).not.toEqual([...v]);
    expect(h![3]).toBe(65504);
  });
});
