/**
 * `skillret-eval explain <results> --run <retriever>/<reranker> [--queries id,…|--failed|--hurt|--sample N] [--mask [k]]`:
 * renders what the library verbs `explainRun` and, with `--mask`, `explainMask` (src/api/explain.ts) return.
 */
import { explainMask, explainRun, type ExplainRunOptions } from '../api/explain.js';
import { UserError } from '../core/errors.js';
import { renderExplainText } from '../report/explain-output.js';
import { renderMaskText } from '../report/mask-output.js';
import { DEFAULT_MASK_LEVELS } from '../pipeline/explain-mask.js';

export interface ExplainOptions extends Omit<ExplainRunOptions, 'progress' | 'write'> {
  quiet?: boolean;
  /** `--mask` (true: the default levels) or `--mask <k>` (as typed). */
  mask?: boolean | string;
}

/** `--mask [k]`: the highest masking level; a value that is not a whole number is one line. */
function maskLevels(v: boolean | string): number {
  if (v === true) return DEFAULT_MASK_LEVELS;
  const s = String(v).trim();
  if (!/^[0-9]+$/.test(s)) throw new UserError(`--mask: expected an integer from 1 to 10 (sentences masked at the highest level), got ${JSON.stringify(String(v))}`);
  return Number(s);
}

export async function explainCommand(o: ExplainOptions): Promise<string> {
  const { quiet, mask, ...rest } = o;
  const common = { ...rest, progress: !quiet, ...(quiet ? { log: () => {} } : { log: o.log ?? ((line: string) => void process.stderr.write(`${line}\n`)) }) };
  if (mask !== undefined && mask !== false) {
    const levels = maskLevels(mask);
    const x = await explainMask({ ...common, levels });
    return renderMaskText(x, x.paper, x.files);
  }
  const x = await explainRun(common);
  return renderExplainText(x, x.files);
}
