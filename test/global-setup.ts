/**
 * Once before the suite: make sure the bundled GloVe and Universal Sentence Encoder Lite models exist under models/
 * (a clean clone has none; the conversion takes ~15-25 s and ~1.2 GB once),
 * exactly as `skillret-eval run configs/quickstart.yaml` would on first use.
 */
import { ensureGloveModels } from '../src/models/glove/convert.js';
import { ensureUseLiteModel } from '../src/models/use-lite/convert.js';
import { modelsDir } from '../src/util/paths.js';

export default async function setup(): Promise<void> {
  await ensureGloveModels(modelsDir(), { log: (line) => console.log(`[global setup] ${line}`) });
  await ensureUseLiteModel(modelsDir(), { log: (line) => console.log(`[global setup] ${line}`) });
}
