/**
 * `skillret-eval models list`: the embedder and reranker presets, with the exact prompts,
 * pooling, token limits and score precision of the paper's protocol, where each setting comes
 * from, and where each model comes from (its ONNX export, or the command that makes one).
 */
import { describePrompt, EMBEDDER_PRESETS } from '../models/embedder-presets.js';
import { RERANKER_PRESETS } from '../models/reranker-presets.js';

export function modelsListCommand(o: { format: 'table' | 'json' }): string {
  if (o.format === 'json') return JSON.stringify({ embedders: EMBEDDER_PRESETS, rerankers: RERANKER_PRESETS }, null, 2) + '\n';
  const lines: string[] = ['Embedder presets (retrievers[].model, type dense):'];
  for (const p of EMBEDDER_PRESETS) {
    const source = p.localFolder ? `bundled, built offline into models/${p.localFolder}` : p.hubId ? `hub ${p.hubId}` : 'no ONNX export published';
    lines.push(`  ${p.name}  (${source}${p.paperModel ? `; paper: ${p.paperModel}` : ''}${p.aliases.length ? `; also ${p.aliases.join(', ')}` : ''})`);
    lines.push(
      `      pooling ${p.pooling === 'model' ? "model's own" : p.pooling}, normalize ${p.normalize === 'model' ? "model's own" : p.normalize}, ` +
        `max tokens ${p.maxTokens ?? "model's"}, dtype ${p.defaultDtype} (official ${p.officialDtype}), ` +
        `vectors ${p.vectorPrecision ?? 'fp32'}, ` +
        `query prefix ${describePrompt(p.queryPrefix)}, doc prefix ${describePrompt(p.docPrefix)}`,
    );
    if (p.paperSettings) lines.push(`      paper: ${p.paperSettings}`);
    lines.push(`      source: ${p.source}`);
    if (p.unsupported) lines.push(`      not runnable locally: ${p.unsupported}`);
    if (p.exportCommand) lines.push(`      export: ${p.exportCommand}`);
  }
  lines.push('', 'Reranker presets (rerankers[].model):');
  for (const p of RERANKER_PRESETS) {
    const source = p.local ? `bundled, built offline into models/${p.local}` : p.hubId ? `hub ${p.hubId}` : 'no ONNX export published';
    lines.push(`  ${p.name}  (type ${p.type}; ${source}; paper: ${p.sourceModel}${p.aliases.length ? `; also ${p.aliases.join(', ')}` : ''})`);
    lines.push(
      `      max tokens ${p.maxTokens}${p.template ? `, template ${p.template}` : ''}${p.dtype ? `, dtype ${p.dtype}` : ''}` +
        `${p.officialDtype ? ` (official ${p.officialDtype})` : ''}, score precision ${p.scorePrecision}` +
        `${p.instruction !== undefined ? `, instruction ${JSON.stringify(p.instruction)}` : ''}`,
    );
    lines.push(`      source: ${p.source}`);
    if (p.exportCommand) lines.push(`      export: ${p.exportCommand}`);
  }
  return lines.join('\n') + '\n';
}
