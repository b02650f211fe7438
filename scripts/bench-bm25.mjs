#!/usr/bin/env node
/**
 * BM25 benchmark on a synthetic corpus shaped like the SkillRet v1.1 test split:
 * 6,006 documents of ~14.6 KB ("name | description | body") and 4,392 queries of ~170 words.
 * Text is resampled from the real sample skills and queries (paragraphs shuffled across
 * skills, query words reshuffled) when the shared sample exists, else generated from a
 * Zipf-distributed vocabulary. Deterministic for a given --seed.
 *
 * Prints wall time per phase (tokenize, index, query, serialize, deserialize) and peak RSS.
 * Imports the compiled code: run `npm run build` first.
 *
 *   node scripts/bench-bm25.mjs [--docs 6006] [--doc-chars 14600] [--queries 4392]
 *     [--query-words 170] [--k 20] [--seed 1] [--sample DIR] [--write-corpus FILE] [--write-run FILE]
 *     [--corpus FILE] [--duplicates 0.02] [--generate-only]
 *
 * --duplicates: share of documents that are exact copies of an earlier document (as forks of
 * one skill are in real data), so that exact score ties occur.
 * --write-corpus writes {"docs":[{id,text}],"queries":[{id,text}],"k"} so a reference
 * implementation (bm25s) can run the identical input; --write-run writes our hits in the
 * same shape as that reference's output ({query id: [[doc id, score], ...]}).
 * --generate-only stops after writing the corpus (the bench's dataset generator uses it).
 * --corpus reads such a file instead of generating one (a fresh process then measures peak
 * RSS as a pipeline would see it: loaded texts plus BM25).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildBm25IndexFromTexts, queryBm25Index, serializeBm25Index, deserializeBm25Index } from '../dist/retrieval/bm25/index.js';

function parseArgs(argv) {
  const opts = {
    docs: 6006,
    docChars: 14600,
    queries: 4392,
    queryWords: 170,
    k: 20,
    seed: 1,
    sample: process.env.SKILLRET_SAMPLE ?? new URL('../../shared/data/skillret-sample', import.meta.url).pathname,
    writeCorpus: undefined,
    writeRun: undefined,
    corpus: undefined,
    duplicates: 0.02,
    generateOnly: false,
  };
  const names = { '--docs': 'docs', '--doc-chars': 'docChars', '--queries': 'queries', '--query-words': 'queryWords', '--k': 'k', '--seed': 'seed' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a in names) {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${a} needs a non-negative integer, got ${v}`);
      opts[names[a]] = n;
      i++;
    } else if (a === '--sample') (opts.sample = v), i++;
    else if (a === '--write-corpus') (opts.writeCorpus = v), i++;
    else if (a === '--write-run') (opts.writeRun = v), i++;
    else if (a === '--corpus') (opts.corpus = v), i++;
    else if (a === '--generate-only') opts.generateOnly = true;
    else if (a === '--duplicates') {
      opts.duplicates = Number(v);
      if (!(opts.duplicates >= 0 && opts.duplicates < 1)) throw new Error(`--duplicates needs a number in [0, 1), got ${v}`);
      i++;
    }
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

/** mulberry32: small deterministic PRNG. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function readJsonl(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

function sourceText(opts, rnd) {
  const skillsPath = join(opts.sample, 'skills', 'test.jsonl');
  const queriesPath = join(opts.sample, 'queries', 'test.jsonl');
  if (existsSync(skillsPath) && existsSync(queriesPath)) {
    const skills = readJsonl(skillsPath);
    const paragraphs = [];
    for (const s of skills) for (const p of String(s.skill_md ?? s.body ?? '').split(/\n{2,}/)) if (p.trim()) paragraphs.push(p);
    const heads = skills.map((s) => ({ name: String(s.name ?? '').trim(), description: String(s.description ?? '').trim() }));
    const queryWords = readJsonl(queriesPath).flatMap((q) => String(q.query).split(/\s+/).filter(Boolean));
    const docWords = paragraphs.join(' ').split(/\s+/).filter(Boolean);
    return { kind: `resampled from ${opts.sample}`, paragraphs, heads, queryWords, docWords };
  }
  // Generated: Zipf over 40,000 pseudo-words.
  const vocab = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < 40000; i++) {
    let w = '';
    const len = 2 + Math.floor(rnd() * 9);
    for (let j = 0; j < len; j++) w += letters[Math.floor(rnd() * 26)];
    vocab.push(w);
  }
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rnd() * Math.log(vocab.length)) - 1))];
  const sentence = (n) => Array.from({ length: n }, zipf).join(' ') + '.';
  const paragraphs = Array.from({ length: 20000 }, () => Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => sentence(5 + Math.floor(rnd() * 20))).join(' '));
  const heads = Array.from({ length: 2000 }, () => ({ name: sentence(3), description: sentence(25) }));
  const words = Array.from({ length: 200000 }, zipf);
  return { kind: 'generated (Zipf, 40k words)', paragraphs, heads, queryWords: words, docWords: words };
}

function buildCorpus(opts) {
  const rnd = prng(opts.seed);
  const src = sourceText(opts, rnd);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const docs = [];
  for (let i = 0; i < opts.docs; i++) {
    if (i > 0 && rnd() < opts.duplicates) {
      docs.push({ id: `doc-${String(i).padStart(5, '0')}`, text: pick(docs).text });
      continue;
    }
    const head = pick(src.heads);
    const target = opts.docChars * (0.3 + 1.4 * rnd());
    const parts = [];
    let len = 0;
    while (len < target) {
      const p = pick(src.paragraphs);
      parts.push(p);
      len += p.length + 2;
    }
    docs.push({ id: `doc-${String(i).padStart(5, '0')}`, text: `${head.name} | ${head.description} | ${parts.join('\n\n')}` });
  }
  const queries = [];
  for (let i = 0; i < opts.queries; i++) {
    const n = Math.max(1, Math.round(opts.queryWords * (0.6 + 0.8 * rnd())));
    const words = [];
    for (let j = 0; j < n; j++) words.push(rnd() < 0.8 ? pick(src.queryWords) : pick(src.docWords));
    queries.push({ id: `q-${String(i).padStart(5, '0')}`, text: words.join(' ') });
  }
  return { kind: src.kind, docs, queries };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const { kind, docs, queries } = opts.corpus
    ? { kind: `read from ${opts.corpus}`, ...JSON.parse(readFileSync(opts.corpus, 'utf8')) }
    : buildCorpus(opts);
  const genMs = performance.now() - t0;
  const chars = docs.reduce((s, d) => s + d.text.length, 0);
  const bytes = docs.reduce((s, d) => s + Buffer.byteLength(d.text, 'utf8'), 0);
  console.log(`corpus: ${kind}; ${docs.length} docs, ${mb(bytes)} UTF-8 (${chars} chars), ${queries.length} queries; ready in ${secs(genMs)}`);
  if (opts.writeCorpus) writeFileSync(opts.writeCorpus, JSON.stringify({ docs, queries, k: opts.k }));
  if (opts.generateOnly) return;
  const rssBefore = process.memoryUsage().rss;

  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  const built = buildBm25IndexFromTexts(docs.map((d) => d.text));
  const { run, stats } = queryBm25Index(
    built.index,
    docs.map((d) => d.id),
    queries,
    opts.k,
  );
  const wallMs = performance.now() - wall0;
  const cpuUsed = process.cpuUsage(cpu0);
  const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;

  const s0 = performance.now();
  const blob = serializeBm25Index(built.index);
  const s1 = performance.now();
  deserializeBm25Index(blob);
  const s2 = performance.now();

  const hits = [...run.values()].reduce((s, l) => s + l.length, 0);
  console.log(`index: vocab ${built.index.vocab.size}, ${built.totalTokens} tokens, avgdl ${built.index.avgdl.toFixed(2)}, ${built.index.postingDoc.length} postings`);
  console.log(`tokenize    ${secs(built.tokenizeMs)}`);
  console.log(`index       ${secs(built.indexMs)}`);
  console.log(`query       ${secs(stats.queryMs)}  (${queries.length} queries, ${(stats.queryMs / Math.max(1, queries.length)).toFixed(2)} ms each, ${hits} hits, ${stats.noneQueries} NONE, ${stats.emptyQueries} empty)`);
  console.log(`BM25 total  ${secs(wallMs)} wall, ${secs(cpuMs)} CPU (user+system)`);
  console.log(`serialize   ${secs(s1 - s0)} (${mb(blob.length)}), deserialize ${secs(s2 - s1)}`);
  console.log(`RSS before BM25 ${mb(rssBefore)}; peak RSS of the process ${mb(process.resourceUsage().maxRSS * 1024)}; process wall so far ${secs(performance.now())}`);
  if (opts.writeRun) {
    const out = {};
    for (const [q, list] of run) out[q] = list.map((h) => [h.docId, h.score]);
    writeFileSync(opts.writeRun, JSON.stringify(out));
  }
}

main();
