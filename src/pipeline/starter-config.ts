/**
 * The text of the starter experiment config written by `skillret-eval init`: commented YAML that
 * runs as written. Pure: every path arrives already relative to the config's folder.
 */
import { stringify } from 'yaml';

/** Where the starter's dataset comes from. */
export type StarterDataset =
  | { kind: 'bundled'; path: string }
  | { kind: 'folder'; path: string; split: string }
  | { kind: 'hub'; version: string; repo: string; revision: string };

/** The dense first stage of the starter. */
export type StarterModel =
  | { kind: 'preset'; name: string; bundled: boolean }
  | { kind: 'folder'; path: string }
  | { kind: 'hub'; id: string };

export interface StarterOptions {
  /** Experiment name (letters, digits, . _ -); also names the results folder. */
  name: string;
  dataset: StarterDataset;
  model: StarterModel;
  /** skillret-eval version, for the header. */
  version: string;
  /** The pinned real split named in a comment beside the bundled fixture. */
  realSplit: { version: string; repo: string; revision: string };
}

/** A YAML scalar (block context) that is always read back as this exact string: plain when that is safe, else quoted. */
function q(s: string): string {
  return stringify(s, { lineWidth: 0 }).trimEnd();
}

function datasetLines(d: StarterDataset, real: StarterOptions['realSplit']): string[] {
  switch (d.kind) {
    case 'bundled':
      return [
        '# The dataset: a folder in the official SkillRet layout ({skills,queries,qrels}/<split>.jsonl).',
        '# data/mini is the small fixture shipped with skillret-eval (45 skills, 21 queries), copied next to',
        '# this file. It was written for the project: it is NOT SkillRet data, and numbers on it are not',
        `# comparable with the paper. For the real ${real.version} test split (downloaded once) use instead:`,
        `#   dataset: { hub: { repo: ${real.repo}, revision: ${real.revision} }, split: test }`,
        'dataset:',
        `  path: ${q(d.path)}`,
        '  split: test',
      ];
    case 'folder':
      return [
        '# The dataset: a folder in the official SkillRet layout ({skills,queries,qrels}/<split>.jsonl),',
        '# relative to this file.',
        'dataset:',
        `  path: ${q(d.path)}`,
        `  split: ${q(d.split)}`,
      ];
    case 'hub':
      return [
        `# The dataset: the pinned SkillRet ${d.version} test split, downloaded into the cache on the first run`,
        '# (network needed once) and checked against its published SHA-256. Compare only with the paper\'s',
        `# ${d.version} tables (\`skillret-eval paper --split ${d.version}\`).`,
        'dataset:',
        '  hub:',
        `    repo: ${q(d.repo)}`,
        `    revision: ${q(d.revision)}`,
        '  split: test',
      ];
  }
}

function modelLines(m: StarterModel): string[] {
  const head = ['  # A dense embedder: exact cosine search over every skill.'];
  switch (m.kind) {
    case 'preset':
      if (m.bundled && m.name === 'glove-6b-100d-static') {
        head.push(
          '  # glove-6b-100d-static: static GloVe word vectors (a baseline far below BM25, not a transformer),',
          '  # built offline into the models folder on the first run (about 20 s, once).',
        );
      } else if (m.bundled) {
        head.push(`  # ${m.name}: bundled with skillret-eval, built offline into the models folder on the first run (once).`);
      } else {
        head.push('  # A preset: the paper\'s prompts, pooling and token limit; its ONNX export is downloaded once.');
      }
      head.push('  # Other presets: `skillret-eval models list`; a local Hugging Face folder works too (./path).');
      break;
    case 'folder':
      head.push('  # A local Hugging Face layout folder (config.json, tokenizer.json, onnx/model.onnx), relative to this file.');
      break;
    case 'hub':
      head.push('  # A hub model id (org/name[@revision]) with an ONNX export, downloaded once into the cache.');
      break;
  }
  const ref = m.kind === 'preset' ? m.name : m.kind === 'folder' ? m.path : m.id;
  return [
    ...head,
    '  - id: dense',
    '    type: dense',
    `    model: ${q(ref)}`,
    '    index: { type: exact }       # or { type: hnsw } for an approximate index, audited against exact',
    '    top_k: 20',
  ];
}

/** The starter config text (ends with a newline). */
export function starterConfigText(o: StarterOptions): string {
  const lines = [
    `# skillret-eval experiment, written by \`skillret-eval init\` (skillret-eval ${o.version}).`,
    '# Run it with:   npx skillret-eval run <this file>',
    '# Check it with: npx skillret-eval run <this file> --dry-run',
    '# Every key is described in skillret-eval\'s docs/config.md ("Config reference"); paths are relative to this file.',
    `name: ${q(o.name)}`,
    '',
    ...datasetLines(o.dataset, o.realSplit),
    '',
    '# Cutoffs of NDCG@k, Recall@k and Completeness@k.',
    'k: [5, 10, 15]',
    '',
    '# First stages: each one retrieves top_k skills per query.',
    'retrievers:',
    '  # BM25 exactly as the official evaluation runs it (bm25s 0.3.3, k1 1.5, b 0.75).',
    '  - { id: bm25, type: bm25, top_k: 20 }',
    ...modelLines(o.model),
    '',
    '# Rerankers: every retriever is evaluated with each of them; `none` keeps the first-stage order.',
    'rerankers:',
    '  - { id: none }',
    '  # An untrained GloVe MaxSim scorer (built offline like the embedder), reranking the top 20:',
    '  # - { id: glove-maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: 20 }',
    '',
    '# Results folder (per-query values, metrics.json, summary.md, manifest), relative to this file.',
    `output: ${q(`results/${o.name}`)}`,
  ];
  return lines.join('\n') + '\n';
}
