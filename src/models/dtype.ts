/**
 * Model dtypes: which ONNX file of a Hugging Face model folder a dtype selects, exactly as
 * transformers.js 4.3.2 maps them (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING).
 */
import { UserError } from '../core/errors.js';

/** dtype → suffix of `onnx/model<suffix>.onnx`. */
export const DTYPE_SUFFIX: Readonly<Record<string, string>> = Object.freeze({
  fp32: '',
  fp16: '_fp16',
  int8: '_int8',
  uint8: '_uint8',
  q8: '_quantized',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
  q2: '_q2',
  q2f16: '_q2f16',
  q1: '_q1',
  q1f16: '_q1f16',
});

/** Throws a UserError naming `field` when `dtype` is not one transformers.js knows. */
export function checkDtype(dtype: string, field: string): void {
  if (!Object.hasOwn(DTYPE_SUFFIX, dtype)) {
    throw new UserError(`${field}: unknown dtype "${dtype}" (one of ${Object.keys(DTYPE_SUFFIX).join(', ')})`);
  }
}

/** The ONNX file (relative to the model folder) that a dtype selects. */
export function onnxFileFor(dtype: string, field = 'dtype'): string {
  checkDtype(dtype, field);
  return `onnx/model${DTYPE_SUFFIX[dtype]}.onnx`;
}
