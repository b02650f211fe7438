/**
 * The documentation's commands run as written. Every `skillret-eval …` / `npx skillret-eval …` command
 * line of the fenced ```sh, ```bash and ```console blocks of README.md and docs/*.md (console: the
 * `$ ` lines) runs in this process against the bundled fixture, offline, in one temporary work
 * folder that is the working directory of every command, with one cache root and one results folder
 * shared by all of them (so later commands read what earlier ones wrote, in document order: README.md
 * first, then docs/*.md by name). A command line written twice runs once. For each command:
 * - every `--flag` / `-f` it uses is listed by that command's `--help` (src/cli.ts);
 * - it exits 0 (or the code in EXIT_CODES) and prints no stack trace.
 * Every ```yaml block validates as a config (a block that starts with a list entry is a retriever
 * entry: it is put under `retrievers:` of the README's my-model.yaml). Every relative link resolves (file and
 * heading anchor). README.md stays ≤ 350 lines.
 *
 * Nothing is skipped silently, with or without CI=true: SKIPPED below is the only exception, each
 * entry names why (it needs the Hugging Face hub or a GPU server, which cannot exist offline), a
 * skipped command's flags are still checked, and an entry no document uses any more fails the test.
 *
 * What stands in for what the docs assume (the placeholder table; no command text is rewritten):
 * | In the docs                          | Here                                                                  |
 * |--------------------------------------|-----------------------------------------------------------------------|
 * | `configs/<name>.yaml`                 | `<work>/configs/<name>.yaml`: a copy, `../data/mini` made absolute     |
 * | `skillret-v1.1` (the fetched split)   | a copy of data/mini                                                   |
 * | its `train` split (`data fetch --split train`) | data/mini's skills, every second query of data/mini with its qrels (so the leakage audit has duplicates to find) |
 * | the pinned v1.1 split in the cache, as `data fetch --version v1.1` leaves it (what an offline `run --dry-run` of a `dataset: { hub }` config looks for) | a copy of data/mini's files at `<cache root>/datasets/ThakiCloud/SKILLRET/<v1.1 revision>/` |
 * | `my-model.yaml`                       | the README's `# my-model.yaml` block, as written                      |
 * | `emb/…` (the README's Python output)  | docs.npy/docs.txt/queries.npy/queries.txt: deterministic unit vectors of data/mini's skills and queries in file order, run.trec: their top 20 by inner product, as the README's script writes it |
 * | `./models/my-embedder` (your export)  | a link to the bundled USE Lite export (ONNX + sentence-transformers files, the recipe's layout) |
 * | `results/paper-v1.1-small-embedders`  | a results folder whose bm25/none metrics.json carries the `paper` block `run` writes on the pinned v1.1 split, reproducing the BM25 row |
 * | the cache root, the history           | `<work>/.cache` ($SKILLRET_CACHE_DIR); SKILLRET_OFFLINE=1              |
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubDatasetDir, SKILLRET_RELEASES } from '../src/data/hub.js';
import { parseConfig } from '../src/pipeline/config.js';
import { modelsDir, packageRoot } from '../src/util/paths.js';
import { runCli } from './helpers/cli.js';
import { idsText, npyBytes } from './helpers/vector-files.js';

const root = packageRoot();

/** The only commands that do not run, each with the reason. */
const SKIPPED: Record<string, string> = {
  'skillret-eval data fetch --version v1.1': 'downloads the pinned v1.1 test split (118 MB) from the Hugging Face hub',
  'skillret-eval run configs/paper-v1.1-small-embedders.yaml': 'downloads the pinned v1.1 split and the ONNX exports of six embedders from the Hugging Face hub',
  'skillret-eval run configs/remote-tei.yaml': 'needs TEI servers on 127.0.0.1:8080 and :8081 (Qwen3-Embedding-8B and bge-reranker-v2-m3, a GPU box) and the v1.1 split from the hub',
};

/** Documented exit codes other than 0. */
const EXIT_CODES: Record<string, number> = {};

const DOCS = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

interface DocCommand {
  /** file:line of its first appearance. */
  where: string;
  /** The command as written (`npx ` and a `$ ` prompt removed, comment cut), tokens joined by one space. */
  text: string;
  args: string[];
}

/** Shell words of a line up to an unquoted comment; the operators `&&`, `;`, `|`, `>`, `<` come out as their own words. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '"' || c === "'") {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed quote in: ${line}`);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (cur !== null) words.push(cur);
      cur = null;
    } else if (c === '#' && cur === null) {
      break;
    } else if (cur === null && (line.startsWith('&&', i) || c === ';' || c === '|' || c === '>' || c === '<')) {
      const op = line.startsWith('&&', i) ? '&&' : c;
      words.push(op);
      i += op.length - 1;
    } else {
      cur = (cur ?? '') + c;
    }
  }
  if (cur !== null) words.push(cur);
  return words;
}

/** The skillret-eval command lines of one Markdown file's shell blocks. */
function docCommands(file: string): DocCommand[] {
  const out: DocCommand[] = [];
  let lang: string | null = null;
  readFileSync(join(root, file), 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const fence = /^\s*```\s*(\S*)\s*$/.exec(raw);
      if (fence) {
        lang = lang === null ? fence[1]! : null;
        return;
      }
      if (lang === null || !['sh', 'bash', 'shell', 'console'].includes(lang)) return;
      let line = raw.trim();
      if (lang === 'console') {
        if (!line.startsWith('$ ')) return;
        line = line.slice(2);
      }
      if (!/\bskillret-eval\b/.test(line)) return;
      const words = shellWords(line);
      const segments: string[][] = [[]];
      for (const w of words) {
        if (w === '&&' || w === ';') segments.push([]);
        else segments[segments.length - 1]!.push(w);
      }
      for (let seg of segments) {
        if (seg[0] === 'npx') seg = seg.slice(1);
        if (seg[0] !== 'skillret-eval') continue;
        const args = seg.slice(1);
        const shell = args.find((a) => ['|', '>', '<'].includes(a) || /[$`*]|^~/.test(a) || /^<.*>$/.test(a) || a.endsWith('\\'));
        if (shell !== undefined) throw new Error(`${file}:${i + 1}: "${line}": "${shell}" is a shell construct or a placeholder this test cannot run; write the command as it runs`);
        out.push({ where: `${file}:${i + 1}`, text: ['skillret-eval', ...args].join(' '), args });
      }
    });
  if (lang !== null) throw new Error(`${file}: unclosed code fence`);
  return out;
}

/** The ```yaml blocks of a Markdown file. */
function yamlBlocks(file: string): { where: string; text: string }[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => ({ where: `${file}:${text.slice(0, m.index).split('\n').length}`, text: m[1]! }));
}

function myModelYaml(): string {
  const block = yamlBlocks('README.md').find((b) => b.text.startsWith('# my-model.yaml\n'));
  if (!block) throw new Error('README.md has no ```yaml block starting with "# my-model.yaml"');
  return block.text;
}

const all = DOCS.flatMap(docCommands);
const commands = all.filter((c, i) => all.findIndex((d) => d.text === c.text) === i);

/** The option words `skillret-eval <path> --help` lists. */
async function helpOptions(path: string[]): Promise<Set<string>> {
  const r = await runCli([...path, '--help']);
  expect(r.code, `skillret-eval ${path.join(' ')} --help`).toBe(0);
  const options = new Set<string>();
  let inOptions = false;
  for (const line of r.out.split('\n')) {
    if (/^Options:/.test(line)) inOptions = true;
    else if (/^\S/.test(line)) inOptions = false;
    else if (inOptions && /^\s+-/.test(line)) {
      for (const m of line.trim().split(/\s{2,}/)[0]!.matchAll(/(?:^|[\s,])(--?[A-Za-z][\w-]*)/g)) options.add(m[1]!);
    }
  }
  expect(options.size, `no options parsed from skillret-eval ${path.join(' ')} --help`).toBeGreaterThan(1);
  return options;
}

/** The command path of the args: `run`, `models list`, `data fetch`, `cache info`. */
function commandPath(args: string[]): string[] {
  return ['models', 'data', 'cache'].includes(args[0]!) ? args.slice(0, 2) : args.slice(0, 1);
}

/** Deterministic unit vectors: 8 components from the SHA-256 of the id. */
function vectorOf(id: string): number[] {
  const h = createHash('sha256').update(id).digest();
  const v = Array.from({ length: 8 }, (_, i) => h.readInt16LE(2 * i) / 32768);
  const n = Math.hypot(...v);
  return v.map((x) => Math.fround(x / n));
}

function jsonl(file: string): { id: string }[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { id: string });
}

/** What the README's Python scripts write into emb/, for data/mini. */
function writeEmb(dir: string): void {
  mkdirSync(dir);
  const skills = jsonl(join(root, 'data/mini/skills/test.jsonl')).map((s) => s.id);
  const queries = jsonl(join(root, 'data/mini/queries/test.jsonl')).map((q) => q.id);
  const docs = skills.map(vectorOf);
  const qs = queries.map(vectorOf);
  writeFileSync(join(dir, 'docs.npy'), npyBytes(docs));
  writeFileSync(join(dir, 'docs.txt'), idsText(skills));
  writeFileSync(join(dir, 'queries.npy'), npyBytes(qs));
  writeFileSync(join(dir, 'queries.txt'), idsText(queries));
  const lines: string[] = [];
  queries.forEach((q, i) => {
    const scored = skills.map((s, j) => ({ s, score: docs[j]!.reduce((a, x, k) => a + x * qs[i]![k]!, 0) }));
    scored.sort((a, b) => b.score - a.score);
    scored.slice(0, 20).forEach((d, r) => lines.push(`${q} Q0 ${d.s} ${r + 1} ${d.score} my-model\n`));
  });
  writeFileSync(join(dir, 'run.trec'), lines.join(''));
}

/** A results folder as `run` writes it on the pinned v1.1 split, bm25/none reproducing the paper's BM25 row. */
function writePaperResults(dir: string): void {
  const run = join(dir, 'bm25', 'none');
  mkdirSync(run, { recursive: true });
  const m = { 'NDCG@5': 0.4931, 'NDCG@10': 0.5169, 'Recall@10': 0.5941, 'Completeness@10': 0.4456 };
  writeFileSync(join(run, 'per-query.jsonl'), ['q1', 'q2', 'q3'].map((id) => JSON.stringify({ id, metrics: m, gold: ['s1'], retrieved: ['s1'] }) + '\n').join(''));
  const paper = { release: 'v1.1', table: 'v1.1-embedding', row: 'BM25', units: 'percent' };
  writeFileSync(join(run, 'metrics.json'), JSON.stringify({ experiment: 'paper-v1.1-small-embedders', retriever: 'bm25', reranker: 'none', metrics: m, paper }));
}

/** The stand-in train split of skillret-v1.1: data/mini's skills, every second query with its qrels. */
function writeTrainSplit(dir: string): void {
  cpSync(join(root, 'data/mini/skills/test.jsonl'), join(dir, 'skills', 'train.jsonl'));
  const lines = (f: string) => readFileSync(join(root, 'data/mini', f), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const queries = lines('queries/test.jsonl').filter((_, i) => i % 2 === 1);
  const ids = new Set(queries.map((l) => (JSON.parse(l) as { id: string }).id));
  writeFileSync(join(dir, 'queries', 'train.jsonl'), queries.map((l) => `${l}\n`).join(''));
  writeFileSync(join(dir, 'qrels', 'train.jsonl'), lines('qrels/test.jsonl').filter((l) => ids.has((JSON.parse(l) as { query_id: string }).query_id)).map((l) => `${l}\n`).join(''));
}

describe('the commands of README.md and docs/*.md', () => {
  const work = mkdtempSync(join(tmpdir(), 'docs-commands-'));
  const saved = { cwd: process.cwd(), cache: process.env.SKILLRET_CACHE_DIR, offline: process.env.SKILLRET_OFFLINE };

  beforeAll(() => {
    mkdirSync(join(work, 'configs'));
    for (const f of readdirSync(join(root, 'configs')).filter((f) => f.endsWith('.yaml'))) {
      writeFileSync(join(work, 'configs', f), readFileSync(join(root, 'configs', f), 'utf8').replaceAll('../data/mini', join(root, 'data/mini')));
    }
    cpSync(join(root, 'data/mini'), join(work, 'skillret-v1.1'), { recursive: true });
    writeTrainSplit(join(work, 'skillret-v1.1'));
    const v11 = SKILLRET_RELEASES.find((r) => r.version === 'v1.1')!;
    const hubCopy = hubDatasetDir(join(work, '.cache'), v11.repo, v11.revision);
    for (const subset of ['skills', 'queries', 'qrels']) cpSync(join(root, 'data/mini', subset, 'test.jsonl'), join(hubCopy, subset, 'test.jsonl'));
    writeFileSync(join(work, 'my-model.yaml'), myModelYaml());
    writeEmb(join(work, 'emb'));
    mkdirSync(join(work, 'models'));
    symlinkSync(join(modelsDir(), 'use-lite-512'), join(work, 'models', 'my-embedder'), 'dir');
    writePaperResults(join(work, 'results', 'paper-v1.1-small-embedders'));
    process.env.SKILLRET_CACHE_DIR = join(work, '.cache');
    process.env.SKILLRET_OFFLINE = '1';
    process.chdir(work);
  });

  afterAll(() => {
    process.chdir(saved.cwd);
    for (const [k, v] of [['SKILLRET_CACHE_DIR', saved.cache], ['SKILLRET_OFFLINE', saved.offline]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    rmSync(work, { recursive: true, force: true });
  });

  it('README.md is a guide of at most 350 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(350);
  });

  it('finds the commands (README: the main job, init, run, score, compare, report, leaderboard, paper)', () => {
    const readme = commands.filter((c) => c.where.startsWith('README.md:')).map((c) => c.args[0]);
    for (const verb of ['run', 'init', 'score', 'compare', 'report', 'leaderboard', 'history', 'mine-negatives', 'audit-leakage', 'paper', 'models', 'data']) expect(readme, verb).toContain(verb);
    expect(commands.map((c) => c.text)).toContain('skillret-eval run configs/quickstart.yaml');
  });

  it('skips only what is listed, each with its reason, and lists nothing the docs no longer show', () => {
    for (const [text, why] of Object.entries(SKIPPED)) {
      expect(commands.map((c) => c.text), `SKIPPED "${text}" is in no document`).toContain(text);
      expect(why.length).toBeGreaterThan(10);
    }
    for (const text of Object.keys(EXIT_CODES)) expect(commands.map((c) => c.text), `EXIT_CODES "${text}"`).toContain(text);
  });

  it('every relative link resolves: the file, and the #anchor to a heading of it (GitHub slugs)', () => {
    const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replaceAll(' ', '-');
    const headings = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1]!)));
    for (const f of DOCS) {
      const text = readFileSync(join(root, f), 'utf8').replace(/^```[\s\S]*?^```$/gm, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [path, anchor] = link.split('#') as [string, string | undefined];
        const target = path === '' ? join(root, f) : join(root, dirname(f), path);
        expect(existsSync(target), `${f}: ${link}`).toBe(true);
        if (anchor !== undefined && target.endsWith('.md')) expect(headings(target), `${f}: ${link}`).toContain(anchor);
      }
    }
  });

  it('every yaml block validates as a config', () => {
    const base = myModelYaml();
    for (const f of DOCS) {
      for (const b of yamlBlocks(f)) {
        const text = b.text.startsWith('  - ') ? base.replace(/^rerankers:/m, `${b.text}rerankers:`) : b.text;
        expect(() => parseConfig(text, join(work, 'docs-block.yaml')), b.where).not.toThrow();
      }
    }
  });

  for (const c of commands) {
    const why = SKIPPED[c.text];
    it(`${c.where}: ${c.text}${why ? ` (not run: ${why})` : ''}`, async () => {
      const options = await helpOptions(commandPath(c.args));
      for (const a of c.args.filter((x) => /^-/.test(x))) expect(options, `${c.text}: ${a}`).toContain(a.split('=')[0]);
      if (why) return;
      const r = await runCli(c.args);
      const shown = `${c.where}: ${c.text}\n${r.err}`;
      expect(r.out + r.err, shown).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n/);
      expect(r.code, shown).toBe(EXIT_CODES[c.text] ?? 0);
    });
  }
});
