/**
 * Embedding servers: the two wire formats and a client for one endpoint.
 *
 *   openai  POST <url>/embeddings  {model, input: string[]}
 *           → {data: [{index, embedding: number[]}], model, usage?}  (data reordered by `index`)
 *   tei     POST <url>/embed       {inputs: string[], truncate: true, normalize?}
 *           → number[][] in input order;  GET <url>/info → {model_id, model_sha, max_client_batch_size, …}
 *
 * `identify()` asks the server which model it serves (tei: /info; openai: the `model` field of
 * the answer to a one-text request), for the embedding cache key. Parsers are pure and check
 * the shape (count, indices, equal finite dimensions) so a wrong server fails with one line.
 */
import { UserError } from '../core/errors.js';
import { apiUrl, type EmbeddingApi, type Endpoint } from './endpoint.js';
import { httpTarget, newHttpStats, requestJson, type HttpStats, type HttpTarget } from './http.js';

/** What the server says it serves (null where it does not say). */
export interface ServerIdentity {
  /** openai: the answer's `model`; tei: /info model_id. */
  model: string | null;
  /** tei: /info model_sha. */
  revision: string | null;
  /** tei: /info max_input_length (tokens; longer inputs are truncated by the server). */
  maxInputLength: number | null;
  /** tei: /info max_client_batch_size (inputs per request the server accepts). */
  maxBatchSize: number | null;
}

export interface EmbedAnswer {
  vectors: Float32Array[];
  /** openai: the answer's `model`. */
  model: string | null;
  /** openai: usage.prompt_tokens. */
  promptTokens: number | null;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function toVector(v: unknown, what: string): Float32Array {
  if (!Array.isArray(v) || v.length === 0) throw new Error(`${what} is not a non-empty list of numbers`);
  const out = new Float32Array(v.length);
  for (let j = 0; j < v.length; j++) {
    const x = v[j];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`${what}[${j}] is not a finite number`);
    out[j] = x;
  }
  return out;
}

function sameDims(vectors: Float32Array[]): void {
  const d = vectors[0]?.length;
  const k = vectors.findIndex((v) => v.length !== d);
  if (k >= 0) throw new Error(`vectors have different dimensions (${d} and ${vectors[k]!.length})`);
}

/** Parses an OpenAI embeddings answer for `n` inputs (throws Error saying what is wrong). */
export function parseOpenAiEmbeddings(json: unknown, n: number): EmbedAnswer {
  if (!isObj(json) || !Array.isArray(json.data)) throw new Error('expected {"data": [...]}');
  if (json.data.length !== n) throw new Error(`${json.data.length} embeddings for ${n} inputs`);
  const out: (Float32Array | undefined)[] = new Array(n);
  json.data.forEach((d: unknown, i: number) => {
    if (!isObj(d)) throw new Error(`data[${i}] is not an object`);
    const idx = d.index ?? i;
    if (typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0 || idx >= n) throw new Error(`data[${i}].index ${JSON.stringify(idx)} is not in 0..${n - 1}`);
    if (out[idx]) throw new Error(`index ${idx} appears twice`);
    if (typeof d.embedding === 'string') throw new Error('embeddings are base64 strings; the server must answer floats (encoding_format "float")');
    out[idx] = toVector(d.embedding, `data[${i}].embedding`);
  });
  const vectors = out as Float32Array[];
  sameDims(vectors);
  const usage = isObj(json.usage) ? json.usage.prompt_tokens : undefined;
  return { vectors, model: typeof json.model === 'string' ? json.model : null, promptTokens: typeof usage === 'number' ? usage : null };
}

/** Parses a TEI /embed answer for `n` inputs. */
export function parseTeiEmbeddings(json: unknown, n: number): EmbedAnswer {
  if (!Array.isArray(json)) throw new Error('expected a list of vectors');
  if (json.length !== n) throw new Error(`${json.length} embeddings for ${n} inputs`);
  const vectors = json.map((v, i) => toVector(v, `[${i}]`));
  sameDims(vectors);
  return { vectors, model: null, promptTokens: null };
}

/** Parses a TEI /info answer. */
export function parseTeiInfo(json: unknown): ServerIdentity {
  if (!isObj(json) || typeof json.model_id !== 'string') throw new Error('expected {"model_id": …}');
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);
  return {
    model: json.model_id,
    revision: typeof json.model_sha === 'string' ? json.model_sha : null,
    maxInputLength: int(json.max_input_length),
    maxBatchSize: int(json.max_client_batch_size),
  };
}

/** A text used only to ask an OpenAI-compatible server which model answers. */
export const PROBE_TEXT = 'skillret-eval probe';

export class RemoteEmbeddingClient {
  readonly stats: HttpStats = newHttpStats();
  private readonly target: HttpTarget;

  constructor(
    readonly endpoint: Endpoint<EmbeddingApi>,
    /** Sent as `model` (openai); a label for tei. */
    readonly model: string,
    /** Config key path of the endpoint, for messages (e.g. `retrievers.e5.endpoint`). */
    label: string,
  ) {
    this.target = httpTarget(
      endpoint,
      label,
      endpoint.api === 'openai'
        ? 'for api openai, url is the base the path /embeddings is appended to, e.g. http://host:8000/v1'
        : 'for api tei, url is the server root, e.g. http://host:8080',
    );
  }

  private url(path: string): string {
    return apiUrl(this.endpoint.url, path);
  }

  private bad(method: string, path: string, e: unknown): UserError {
    return new UserError(`${this.target.label}: ${method} ${this.url(path)}: unexpected answer: ${(e as Error).message}`);
  }

  /** The model the server serves (one request). */
  async identify(): Promise<ServerIdentity> {
    if (this.endpoint.api === 'tei') {
      const json = await requestJson(this.target, 'GET', this.url('/info'), undefined, this.stats);
      try {
        return parseTeiInfo(json);
      } catch (e) {
        throw this.bad('GET', '/info', e);
      }
    }
    const a = await this.embed([PROBE_TEXT]);
    return { model: a.model, revision: null, maxInputLength: null, maxBatchSize: null };
  }

  /** One request: vectors of `texts` in input order (the server truncates over-long texts). */
  async embed(texts: readonly string[], normalize?: boolean): Promise<EmbedAnswer> {
    if (this.endpoint.api === 'tei') {
      const body = { inputs: texts, truncate: true, ...(normalize !== undefined ? { normalize } : {}) };
      const json = await requestJson(this.target, 'POST', this.url('/embed'), body, this.stats);
      try {
        return parseTeiEmbeddings(json, texts.length);
      } catch (e) {
        throw this.bad('POST', '/embed', e);
      }
    }
    const json = await requestJson(this.target, 'POST', this.url('/embeddings'), { model: this.model, input: texts }, this.stats);
    try {
      return parseOpenAiEmbeddings(json, texts.length);
    } catch (e) {
      throw this.bad('POST', '/embeddings', e);
    }
  }
}
