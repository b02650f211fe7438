/**
 * The rerank pool of a saved run keeps the file's order among equal scores, as the official
 * reranking does (it sorts the first stage's candidates with Python's stable `sorted(...,
 * reverse=True)` and cuts at the depth): a tie straddling the depth takes the candidate the file
 * lists first, where trec order (doc id descending) would take another; the same for the saved
 * run's top_k cut. Both through `run` on the bundled fixture, TREC and official JSON runs alike.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const root = resolve(__dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'pool-ties-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jsonl = (f: string) => readFileSync(join(root, 'data/mini', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string });
const skills = jsonl('skills/test.jsonl').map((s) => s.id);
const queries = jsonl('queries/test.jsonl').map((q) => q.id).slice(0, 3);
// Three skills whose ids sort small < mid < big (UTF-8 bytes): a file lists the tied pair small-first.
const [small, mid, big] = [...skills].sort().slice(0, 3) as [string, string, string];

function experiment(name: string, runPath: string, topK: number, depth: number): string {
  const f = join(dir, `${name}.yaml`);
  writeFileSync(
    f,
    [
      `name: ${name}`,
      `dataset: { path: ${join(root, 'data/mini')}, split: test }`,
      'retrievers:',
      `  - { id: saved, type: run, path: ${runPath}, top_k: ${topK} }`,
      'rerankers:',
      '  - { id: none }',
      `  - { id: maxsim, type: cross-encoder, model: glove-6b-100d-maxsim, depth: ${depth} }`,
      'stats: { iterations: 100 }',
      `output: ${join(dir, 'out', name)}`,
    ].join('\n') + '\n',
  );
  return f;
}

/** The doc ids of each query of a results run.trec. */
function docsOf(trec: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of readFileSync(trec, 'utf8').trim().split('\n')) {
    const [q, , d] = l.split(/\s+/);
    out.set(q!, [...(out.get(q!) ?? []), d!].sort());
  }
  return out;
}

async function run(f: string) {
  const r = await runCli(['run', f, '--quiet', '--cache-dir', join(dir, 'cache')]);
  expect(r.code, r.err).toBe(0);
}

describe('saved runs keep their order among ties', () => {
  // Each query: `mid` scores 2, then `small` and `big` tie at 1, listed small first (trec order: big first).
  const lines = queries.flatMap((q) => [`${q} Q0 ${mid} 1 2 x`, `${q} Q0 ${small} 2 1 x`, `${q} Q0 ${big} 3 1 x`]);

  it('TREC: the pool at depth 2 and the top_k cut at 2 take the tied candidate listed first', async () => {
    const trec = join(dir, 'first.trec');
    writeFileSync(trec, lines.join('\n') + '\n');
    await run(experiment('trec', trec, 2, 2));
    const want = new Map(queries.map((q) => [q, [mid, small].sort()]));
    expect(docsOf(join(dir, 'out', 'trec', 'saved', 'none', 'run.trec'))).toEqual(want);
    expect(docsOf(join(dir, 'out', 'trec', 'saved', 'maxsim', 'run.trec'))).toEqual(want);
  }, 120_000);

  it('official JSON: the pool at depth 2 (top_k 3) takes the tied candidate listed first', async () => {
    const json = join(dir, 'first.json');
    const dict = Object.fromEntries(queries.map((q) => [q, { [mid]: 2, [small]: 1, [big]: 1 }]));
    writeFileSync(json, JSON.stringify({ metrics: {}, retrieval: { test: dict } }));
    await run(experiment('json', json, 3, 2));
    expect(docsOf(join(dir, 'out', 'json', 'saved', 'none', 'run.trec'))).toEqual(new Map(queries.map((q) => [q, [mid, small, big].sort()])));
    expect(docsOf(join(dir, 'out', 'json', 'saved', 'maxsim', 'run.trec'))).toEqual(new Map(queries.map((q) => [q, [mid, small].sort()])));
  }, 120_000);
});
