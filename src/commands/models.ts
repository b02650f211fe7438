/**
 * `skillret-eval models list`: the embedder and reranker presets, with the exact prompts,
 * pooling and token limits of the paper's protocol, and where each model comes from.
 */
import { EMBEDDER_PRESETS } from '../models/embedder-presets.js';
import { RERANKER_PRESETS } from '../models/reranker-presets.js';

export function modelsListCommand(o: { format: 'table' | 'json' }): string {
  if (o.format === 'json') return JSON.stringify({ embedders: EMBEDDER_PRESETS, rerankers: RERANKER_PRESETS }, null, 2) + '\n';
  const lines: string[] = ['Embedder presets (retrievers[].model, type dense):'];
  for (const p of EMBEDDER_PRESETS) {
    const source = p.localFolder ? `bundled, built offline into models/${p.localFolder}` : p.hubId ? `hub ${p.hubId}` : 'no ONNX export known';
    lines.push(`  ${p.name}  (${source}${p.paperModel ? `; paper: ${p.paperModel}` : ''})`);
    lines.push(
      `      pooling ${p.pooling}, normalize ${p.normalize}, max tokens ${p.maxTokens ?? "model's"}, dtype ${p.defaultDtype}, ` +
        `query prefix ${JSON.stringify(p.queryPrefix)}, doc prefix ${JSON.stringify(p.docPrefix)}`,
    );
  }
  lines.push('', 'Reranker presets (rerankers[].model):');
  for (const p of RERANKER_PRESETS) {
    const source = p.local ? `bundled, built offline into models/${p.local}` : p.hubId ? `hub ${p.hubId}` : 'no ONNX export known: export it and point model at the folder';
    lines.push(`  ${p.name}  (type ${p.type}; ${source}; paper: ${p.sourceModel})`);
    lines.push(`      max tokens ${p.maxTokens}${p.template ? `, template ${p.template}` : ''}${p.dtype ? `, dtype ${p.dtype}` : ''}`);
  }
  return lines.join('\n') + '\n';
}
