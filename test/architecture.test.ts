/**
 * Dependencies flow one way. Reads every import statement of src/ (type imports, re-exports and
 * dynamic import() included), maps each file to its top-level folder, and checks the folder graph
 * against the layer order of docs/architecture.md (whose table it checks too): no folder imports a folder of a higher
 * layer, and the folder graph has no cycle (not even between folders of one layer). Below the top
 * level too: no cycle between sub-folders (every folder at any depth, `pipeline` apart from
 * `pipeline/retrievers`) and none between files. Type-only imports count: a cycle of types is still
 * two modules that cannot be read apart.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Lowest first; a folder may import folders of its own layer or below (never above). */
export const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['util'],
  ['cache'],
  ['data', 'formats', 'metrics', 'stats'],
  ['significance', 'operating-points', 'history', 'training', 'siblings'],
  ['models', 'remote'],
  ['retrieval', 'rerank', 'fusion', 'query', 'explain'],
  ['pipeline'],
  ['paper'],
  ['analysis'],
  ['report'],
  ['api'],
  ['commands'],
  ['cli', 'index'],
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every module specifier a file imports: static (value or type), re-exports, dynamic import(). */
export function importSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specs: string[] = [];
  const patterns = [
    /(?:^|[;\s])(?:import|export)\s+(?:type\s+)?[^;'"`]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[;\s])import\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) specs.push(m[1]!);
  return specs;
}

/** The specifiers a file imports as values (a type-only import, `import type` or every name `type`, left out). */
export function valueImportSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const specs: string[] = [];
  for (const m of code.matchAll(/(?:^|[;\s])(import|export)\s+(type\s+)?([^;'"`]*?)\sfrom\s*['"]([^'"]+)['"]/g)) {
    if (m[2]) continue;
    const names = /^\{([\s\S]*)\}$/.exec(m[3]!.trim());
    if (names && names[1]!.split(',').map((n) => n.trim()).filter(Boolean).every((n) => n.startsWith('type '))) continue;
    specs.push(m[4]!);
  }
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs;
}

/** `src/retrieval/dense/x.ts` → `retrieval`; `src/cli.ts` → `cli`. */
function folderOf(file: string): string {
  const rel = relative(SRC, file).split(/[\\/]/);
  return rel.length === 1 ? rel[0]!.replace(/\.ts$/, '') : rel[0]!;
}

function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      const to = folderOf(target);
      if (to === from) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to)!.push(`${relative(SRC, file)} → ${spec}`);
    }
  }
  return graph;
}

/** Import edges between the units `unitOf` maps each file to (same-unit edges dropped). */
function unitGraph(unitOf: (file: string) => string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = unitOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const to = unitOf(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      if (to !== from) graph.get(from)!.add(to);
    }
  }
  return graph;
}

/** Every cycle a depth-first walk meets, as `a → b → a`. */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string> | ReadonlyMap<string, unknown>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const cycles: string[] = [];
  const visit = (n: string, path: string[]) => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'open') {
      cycles.push([...path.slice(path.indexOf(n)), n].join(' → '));
      return;
    }
    state.set(n, 'open');
    for (const to of graph.get(n)?.keys() ?? []) visit(to, [...path, n]);
    state.set(n, 'done');
  };
  for (const n of [...graph.keys()].sort()) visit(n, []);
  return cycles;
}

function layerOf(folder: string): number {
  return LAYERS.findIndex((l) => l.includes(folder));
}

describe('architecture', () => {
  it('reads type imports, re-exports and dynamic imports', () => {
    const text = [
      "import type { A } from '../core/types.js';",
      "import {\n  b,\n  type C,\n} from './b.js';",
      "export { d } from '../d.js';",
      "export * from './e.js';",
      "import './side-effect.js';",
      "const m = await import('../pipeline/x.js');",
      "// import { no } from './commented.js';",
      "const s = 'not an import from \"./string.js\"';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['../core/types.js', './b.js', '../d.js', './e.js', './side-effect.js', '../pipeline/x.js']);
  });

  it('docs/architecture.md lists the same folders on the same layers', () => {
    const doc = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| (\d+) \| ([^|]+) \|/gm)].map((m) => ({ layer: Number(m[1]), folders: [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]!) }));
    expect(rows.map((r) => [r.layer, [...r.folders].sort()]).sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(LAYERS.map((l, i) => [i + 1, [...l].sort()]));
  });

  it('every folder of src/ has a layer', () => {
    const unknown = [...folderGraph().keys()].filter((f) => layerOf(f) < 0);
    expect(unknown).toEqual([]);
  });

  it('no folder imports a folder of a higher layer', () => {
    const upward: string[] = [];
    for (const [from, edges] of folderGraph())
      for (const [to, where] of edges) if (layerOf(to) > layerOf(from)) upward.push(`${from} → ${to}: ${where.join(', ')}`);
    expect(upward).toEqual([]);
  });

  it('the folder graph has no cycle', () => {
    expect(cyclesOf(folderGraph())).toEqual([]);
  });

  it('no cycle between sub-folders at any depth', () => {
    expect(cyclesOf(unitGraph((f) => relative(SRC, dirname(f)) || '.'))).toEqual([]);
  });

  it('no cycle between files', () => {
    expect(cyclesOf(unitGraph((f) => relative(SRC, f)))).toEqual([]);
  });

  it('renderers compute nothing: report/ imports analysis/, significance/ and stats/ as types only', () => {
    const computing = ['analysis', 'significance', 'stats'];
    const found: string[] = [];
    for (const file of sourceFiles(join(SRC, 'report')))
      for (const spec of valueImportSpecifiers(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const to = folderOf(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
        if (computing.includes(to)) found.push(`${relative(SRC, file)} → ${spec}`);
      }
    expect(found).toEqual([]);
  });

  it('tells value imports from type-only ones', () => {
    const text = ["import type { A } from '../analysis/a.js';", "import { b } from '../analysis/b.js';", "import { type C, type D } from '../analysis/c.js';", "import { type E, f } from '../analysis/e.js';", "export { g } from '../analysis/g.js';"].join('\n');
    expect(valueImportSpecifiers(text)).toEqual(['../analysis/b.js', '../analysis/e.js', '../analysis/g.js']);
  });

  it('finds a cycle when there is one (the check has teeth)', () => {
    const g = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cyclesOf(g)).toEqual(['a → b → c → a']);
  });
});
