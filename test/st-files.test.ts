/** The sentence-transformers files of converted embedders (src/models/st-files.ts), read back as loaders read them. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readStConfig } from '../src/models/st-config.js';
import { writeStFiles } from '../src/models/st-files.js';

const root = mkdtempSync(join(tmpdir(), 'skillret-st-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('writeStFiles', () => {
  for (const pooling of ['cls', 'mean'] as const) {
    it(`${pooling} pooling, then L2 normalisation, at the given width`, () => {
      const dir = join(root, pooling);
      writeStFiles(dir, 384, pooling);
      const st = readStConfig(dir)!;
      expect(st.modules).toEqual(['sentence_transformers.models.Transformer', 'sentence_transformers.models.Pooling', 'sentence_transformers.models.Normalize']);
      expect(st.pooling?.mode).toBe(pooling);
      expect(st.pooling?.problem).toBeUndefined();
      expect(st.normalize).toBe(true);
      expect(st.unsupportedModules).toEqual([]);
      expect(JSON.parse(readFileSync(join(dir, '1_Pooling', 'config.json'), 'utf8')).word_embedding_dimension).toBe(384);
      expect(existsSync(join(dir, '2_Normalize'))).toBe(true);
    });
  }
});
