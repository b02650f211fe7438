/** `type: run`: a saved first-stage run (TREC or the official JSON shape), read instead of computed. */
import { statSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import { defineFirstStage } from '../../core/stages.js';
import type { Run, ScoredDoc } from '../../core/types.js';
import { readRunFile } from '../../formats/run-file.js';
import { fsErrorText } from '../../util/dirs.js';
import { idSchema, posInt } from '../kind-config/config-parts.js';

export const runFileRetriever = defineFirstStage({
  type: 'run',
  schema: z.strictObject({
    id: idSchema,
    type: z.literal('run'),
    path: z.string().min(1),
    top_k: posInt.default(20),
  }),
  resolve: (r, abs) => ({ ...r, path: abs(r.path) }),
  describe: (r) => `saved run ${r.path} (top_k=${r.top_k})`,
  // Equal scores keep the file's order through the top_k cut and the rerank pool, as the official
  // reranking keeps a first stage's order (docs/protocol.md §5).
  ownOrder: true,
  resources(r, _rc, issue) {
    let st;
    try {
      st = statSync(r.path, { throwIfNoEntry: false });
    } catch (e) {
      return issue(['path'], `${r.path}: ${fsErrorText(e)}`);
    }
    if (!st) issue(['path'], `${r.path}: no such file (a saved run: TREC or the official JSON)`);
    else if (!st.isFile()) issue(['path'], `${r.path} is not a file`);
  },
  async run(_ctx, r, { docs, queries }) {
    const saved = await readRunFile(r.path);
    const known = new Set(docs.ids);
    const wanted = new Set(queries.map((q) => q.id));
    let missingQueries = 0;
    let unknownDocs = 0;
    let extraQueries = 0;
    for (const qid of saved.keys()) if (!wanted.has(qid)) extraQueries++;
    const run: Run = new Map();
    for (const q of queries) {
      const list: ScoredDoc[] | undefined = saved.get(q.id);
      if (!list) missingQueries++;
      for (const d of list ?? []) if (!known.has(d.docId)) unknownDocs++;
      run.set(q.id, list ?? []);
    }
    if (saved.size > 0 && missingQueries === queries.length)
      throw new UserError(`${r.path}: no query id of the run matches the dataset's queries (first run query: "${[...saved.keys()][0]}")`);
    return {
      run,
      info: { type: 'run', path: r.path, top_k: r.top_k, queries_missing_from_run: missingQueries, run_queries_not_in_dataset: extraQueries, docs_not_in_corpus: unknownDocs },
    };
  },
});
