/**
 * `skillret-eval explain <results> --run <retriever>/<reranker> [--queries id,…|--failed|--hurt|--sample N]`:
 * renders what the library verb `explainRun` (src/api/explain.ts) returns.
 */
import { explainRun, type ExplainRunOptions } from '../api/explain.js';
import { renderExplainText } from '../report/explain-output.js';

export interface ExplainOptions extends Omit<ExplainRunOptions, 'progress' | 'write'> {
  quiet?: boolean;
}

export async function explainCommand(o: ExplainOptions): Promise<string> {
  const { quiet, ...rest } = o;
  const x = await explainRun({ ...rest, progress: !quiet, ...(quiet ? { log: () => {} } : { log: o.log ?? ((line: string) => void process.stderr.write(`${line}\n`)) }) });
  return renderExplainText(x, x.files);
}
