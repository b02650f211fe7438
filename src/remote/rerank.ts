/**
 * Reranking servers: the two wire formats and a client for one endpoint. One request scores
 * one query against a list of documents.
 *
 *   tei     POST <url>/rerank  {query, texts, truncate: true, raw_scores: true}
 *           → [{index, score}]            (raw scores: the model's logit, as the protocol scores cross-encoders)
 *   cohere  POST <url>/rerank  {model, query, documents}
 *           → {results: [{index, relevance_score}]}   (Cohere, Jina, vLLM, Infinity; url ends in /v1 for most)
 *
 * Answers may come in any order (usually by score); they are put back in input order and every
 * index must appear exactly once.
 */
import { UserError } from '../core/errors.js';
import { apiUrl, type Endpoint, type RerankApi } from './endpoint.js';
import { httpTarget, newHttpStats, requestJson, type HttpStats, type HttpTarget } from './http.js';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function collect(items: unknown[], n: number, scoreField: 'score' | 'relevance_score', where: string): number[] {
  if (items.length !== n) throw new Error(`${items.length} scores for ${n} documents`);
  const out = new Array<number>(n).fill(NaN);
  const seen = new Set<number>();
  items.forEach((it, i) => {
    if (!isObj(it)) throw new Error(`${where}[${i}] is not an object`);
    const idx = it.index;
    if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= n) throw new Error(`${where}[${i}].index ${JSON.stringify(idx)} is not in 0..${n - 1}`);
    if (seen.has(idx)) throw new Error(`index ${idx} appears twice`);
    seen.add(idx);
    const s = it[scoreField];
    if (typeof s !== 'number' || !Number.isFinite(s)) throw new Error(`${where}[${i}].${scoreField} is not a finite number`);
    out[idx] = s;
  });
  return out;
}

/** Parses a TEI /rerank answer for `n` texts: scores in input order. */
export function parseTeiRerank(json: unknown, n: number): number[] {
  if (!Array.isArray(json)) throw new Error('expected a list of {index, score}');
  return collect(json, n, 'score', '');
}

/** Parses a Cohere-style rerank answer for `n` documents: scores in input order. */
export function parseCohereRerank(json: unknown, n: number): number[] {
  if (!isObj(json) || !Array.isArray(json.results)) throw new Error('expected {"results": [{index, relevance_score}]}');
  return collect(json.results, n, 'relevance_score', 'results');
}

export class RemoteRerankClient {
  readonly stats: HttpStats = newHttpStats();
  private readonly target: HttpTarget;

  constructor(
    readonly endpoint: Endpoint<RerankApi>,
    /** Sent as `model` (cohere); a label for tei. */
    readonly model: string,
    /** Config key path of the endpoint, for messages (e.g. `rerankers.bge.endpoint`). */
    label: string,
  ) {
    this.target = httpTarget(
      endpoint,
      label,
      endpoint.api === 'cohere'
        ? 'for api cohere, url is the base the path /rerank is appended to, e.g. http://host:8000/v1'
        : 'for api tei, url is the server root, e.g. http://host:8080',
    );
  }

  /** One request: a score per document, in input order; higher = more relevant. */
  async score(query: string, documents: readonly string[]): Promise<number[]> {
    const url = apiUrl(this.endpoint.url, '/rerank');
    const body =
      this.endpoint.api === 'tei'
        ? { query, texts: documents, truncate: true, raw_scores: true }
        : { model: this.model, query, documents };
    const json = await requestJson(this.target, 'POST', url, body, this.stats);
    try {
      return this.endpoint.api === 'tei' ? parseTeiRerank(json, documents.length) : parseCohereRerank(json, documents.length);
    } catch (e) {
      throw new UserError(`${this.target.label}: POST ${url}: unexpected answer: ${(e as Error).message}`);
    }
  }
}
