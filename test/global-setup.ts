/**
 * Once before the suite: make sure the bundled GloVe and Universal Sentence Encoder Lite models exist under models/
 * (a clean clone has none; the conversion takes ~15-25 s and ~1.2 GB once),
 * exactly as `skillret-eval run configs/quickstart.yaml` would on first use.
 *
 * And one temporary folder for the whole run: TMPDIR points into it (the test processes, and the
 * CLI processes they start, make their folders there through os.tmpdir()), and it is removed at
 * the end, so a test run leaves nothing in the machine's /tmp whatever a test forgot to remove.
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureGloveModels } from '../src/models/glove/convert.js';
import { ensureUseLiteModel } from '../src/models/use-lite/convert.js';
import { modelsDir } from '../src/util/paths.js';

export default async function setup(): Promise<() => void> {
  // One seed for every property test of the run (test/helpers/fast-check-setup.ts), printed so a
  // failing CI run can be replayed with FC_SEED=<seed>.
  const given = Number(process.env['FC_SEED']);
  const seed = process.env['FC_SEED'] !== undefined && Number.isSafeInteger(given) ? given : randomInt(0x7fffffff);
  process.env['FC_SEED'] = String(seed);
  console.log(`[global setup] fast-check seed ${seed} (replay: FC_SEED=${seed} npm test)`);
  await ensureGloveModels(modelsDir(), { log: (line) => console.log(`[global setup] ${line}`) });
  await ensureUseLiteModel(modelsDir(), { log: (line) => console.log(`[global setup] ${line}`) });
  const root = mkdtempSync(join(tmpdir(), 'skillret-tests-'));
  process.env['TMPDIR'] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
