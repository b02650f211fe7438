/** `models list` and the one-line error for an unknown model reference. */
import { describe, expect, it } from 'vitest';
import { modelsListCommand } from '../src/commands/models.js';
import { resolveModel } from '../src/models/resolve.js';
import { UserError } from '../src/core/errors.js';

describe('models list', () => {
  it('lists every preset with its exact prompts', () => {
    const text = modelsListCommand({ format: 'table' });
    expect(text).toContain('bge-small-en-v1.5  (hub Xenova/bge-small-en-v1.5; paper: BAAI/bge-small-en-v1.5)');
    expect(text).toContain('query prefix the model\'s prompt for the role, if any, then "query: ", doc prefix the model\'s prompt for the role, if any, then "passage: "');
    expect(text).toContain('query prefix "Instruct: Given a skill search query, retrieve relevant skills that match the query\\nQuery: "');
    expect(text).toContain('glove-6b-100d-maxsim');
    const json = JSON.parse(modelsListCommand({ format: 'json' }));
    expect(json.embedders.map((p: { name: string }) => p.name)).toContain('glove-6b-100d-static');
    expect(json.rerankers.map((p: { name: string }) => p.name)).toContain('qwen3-reranker-0.6b');
  });
});

describe('an unknown model reference', () => {
  const o = { offline: true, cacheDir: '/tmp/nowhere-cache', modelsDir: '/tmp/nowhere-models' };
  it('suggests the nearest preset', () => {
    expect(() => resolveModel('bge-smal-en-v1.5', o)).toThrow(UserError);
    expect(() => resolveModel('bge-smal-en-v1.5', o)).toThrow(/did you mean the preset "bge-small-en-v1\.5"\?/);
  });
  it('points to the preset list when nothing is near', () => {
    expect(() => resolveModel('zzzzzzzz', o)).toThrow(/\(presets: skillret-eval models list\)$/);
  });
});
