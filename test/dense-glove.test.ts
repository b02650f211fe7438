/**
 * End to end on real data: the bundled GloVe static embedder over the shared sample (287 skills,
 * 30 queries). Skips when the sample is absent; the model is built by the global setup.
 */
import { SAMPLE_DIR } from './helpers/shared.js';
import { describe, expect, it, afterAll } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from '../src/data/dataset.js';
import { evaluate } from '../src/metrics/evaluate.js';
import { defaultMeasures } from '../src/metrics/measures.js';
import { denseRetrieve } from '../src/retrieval/dense/retriever.js';
import { gloveModelComplete, GLOVE_EMBEDDER_NAME, gloveEmbedderDir } from '../src/models/glove/convert.js';
import { modelsDir } from '../src/util/paths.js';
import { silentProgress } from '../src/util/progress.js';

const SAMPLE = SAMPLE_DIR;
const haveSample = existsSync(join(SAMPLE, 'skills', 'test.jsonl'));
// test/global-setup.ts builds the model before the suite, as first use does.
const haveModel = gloveModelComplete(gloveEmbedderDir(modelsDir()), GLOVE_EMBEDDER_NAME);
if (!haveSample) console.log(`skipping GloVe end-to-end test: ${SAMPLE} not found`);
if (!haveModel) throw new Error(`${gloveEmbedderDir(modelsDir())} missing: the global setup should have built it`);

const cacheDir = mkdtempSync(join(tmpdir(), 'skr-glove-'));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

describe.skipIf(!haveSample || !haveModel)('GloVe static embedder on the shared sample', () => {
  it('retrieves with the preset settings, far above chance, and the second run is served from the cache', async () => {
    const ds = await loadDataset({ path: SAMPLE, split: 'test' });
    const docs = ds.skills.map((s) => ({ id: s.id, text: [s.name.trim(), s.description.trim(), s.skillMd.trim()].join(' | ') }));
    const queries = ds.queries.map((q) => ({ id: q.id, text: q.text }));
    const logs: string[] = [];
    const ctx = { cacheDir, useCache: true, offline: true, progress: silentProgress, log: (l: string) => logs.push(l) };
    const spec = { id: 'glove', model: 'glove-6b-100d-static', topK: 20, index: { type: 'exact' as const } };
    const a = await denseRetrieve(ctx, spec, docs, queries);
    expect(a.info.model).toMatchObject({ source: 'local', preset: 'glove-6b-100d-static', warning: null });
    expect(a.info.options).toMatchObject({ pooling: 'mean', normalize: true, queryPrefix: '', docPrefix: '' });
    expect(a.info.dims).toBe(100);
    expect(a.info.truncation).toMatchObject({ documentsTruncated: 0, documentsTotal: 287 });
    const ndcg10 = evaluate(ds.qrels, a.run, defaultMeasures([10])).aggregate['NDCG@10']!;
    // Random ranking of 287 skills gives ~0.03; a working static model is far above.
    expect(ndcg10).toBeGreaterThan(0.15);
    const b = await denseRetrieve(ctx, spec, docs, queries);
    expect(b.info.cache).toMatchObject({ hits: 317, misses: 0 });
    expect(b.run).toEqual(a.run);
    expect(logs).toEqual([]);
  });
});
