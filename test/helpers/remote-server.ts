/**
 * A fake inference server on 127.0.0.1 for the remote tests (node:http), speaking the wire
 * formats of src/remote/: OpenAI POST /v1/embeddings, TEI GET /info + POST /embed + POST
 * /rerank, Cohere-style POST /v1/rerank. Vectors are deterministic hashed bags of words
 * (signed feature hashing of lower-case ASCII words), so retrieval over them is meaningful;
 * rerank scores are cosines of those bags. Every request is recorded; scripted answers
 * (status, headers, body, delay) are served first, one per request, to test failures.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
  /** ms since the server started. */
  at: number;
}

export interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

export interface FakeServerOptions {
  /** When set, every request must carry `Authorization: Bearer <key>` (else 401 echoing the token sent). */
  key?: string;
  dim?: number;
  /** TEI /info model_id and the OpenAI answer's `model` (default: the request's model). */
  modelId?: string;
  revision?: string;
  maxClientBatchSize?: number;
  /** OpenAI answers: vectors scaled by this factor (not unit length) to make client-side normalisation visible. */
  openaiScale?: number;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Signed feature-hashed bag of words, L2-normalised unless `normalize` is false. */
export function bagOfWords(text: string, dim: number, normalize = true): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const h = fnv1a(w);
    const k = h % dim;
    v[k] = (v[k] ?? 0) + ((h >>> 31) & 1 ? 1 : -1);
  }
  if (!normalize) return v;
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return n > 0 ? v.map((x) => x / n) : v;
}

export function cosine(a: string, b: string, dim: number): number {
  const x = bagOfWords(a, dim);
  const y = bagOfWords(b, dim);
  return x.reduce((s, v, i) => s + v * y[i]!, 0);
}

export class FakeServer {
  readonly requests: Recorded[] = [];
  readonly script: Scripted[] = [];
  /** Delay of every unscripted answer (ms). */
  delayMs = 0;
  /** When set, the n-th request (1-based, counted over the server's life) and every later one get HTTP 400. */
  failFrom: number | null = null;
  revision: string;
  url = '';
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private readonly t0 = Date.now();
  private readonly dim: number;

  constructor(readonly o: FakeServerOptions = {}) {
    this.dim = o.dim ?? 64;
    this.revision = o.revision ?? 'rev-1';
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** Requests to a path (all when omitted). */
  to(path?: string): Recorded[] {
    return path === undefined ? this.requests : this.requests.filter((r) => r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    let body: unknown = undefined;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    this.requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body, at: Date.now() - this.t0 });
    const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload);
    };
    const scripted = this.script.shift();
    if (scripted) {
      if (scripted.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
      send(scripted.status, scripted.body ?? '', scripted.headers);
      return;
    }
    if (this.failFrom !== null && this.requests.length >= this.failFrom) {
      send(400, JSON.stringify({ error: 'scripted failure' }));
      return;
    }
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.o.key !== undefined && req.headers.authorization !== `Bearer ${this.o.key}`) {
      const sent = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      send(401, JSON.stringify({ error: `invalid api key: ${sent}` }));
      return;
    }
    const b = (body ?? {}) as Record<string, unknown>;
    const dim = this.dim;
    if (req.method === 'GET' && path === '/info') {
      send(200, JSON.stringify({ model_id: this.o.modelId ?? 'fake/tei-model', model_sha: this.revision, model_dtype: 'float32', model_pooling: 'cls', max_input_length: 512, max_client_batch_size: this.o.maxClientBatchSize ?? 32 }));
    } else if (req.method === 'POST' && path === '/embed') {
      const inputs = b.inputs as string[];
      send(200, JSON.stringify(inputs.map((t) => bagOfWords(t, dim, b.normalize !== false))));
    } else if (req.method === 'POST' && path === '/v1/embeddings') {
      const input = b.input as string[];
      const scale = this.o.openaiScale ?? 1;
      // Answer in reverse order: clients must sort by `index`.
      const data = input.map((t, index) => ({ object: 'embedding', index, embedding: bagOfWords(t, dim).map((x) => x * scale) })).reverse();
      send(200, JSON.stringify({ object: 'list', data, model: this.o.modelId ?? b.model, usage: { prompt_tokens: input.length * 3, total_tokens: input.length * 3 } }));
    } else if (req.method === 'POST' && path === '/rerank') {
      const texts = b.texts as string[];
      const scored = texts.map((t, index) => ({ index, score: cosine(b.query as string, t, dim) }));
      send(200, JSON.stringify(scored.sort((x, y) => y.score - x.score || x.index - y.index)));
    } else if (req.method === 'POST' && path === '/v1/rerank') {
      const docs = b.documents as string[];
      const results = docs.map((t, index) => ({ index, relevance_score: cosine(b.query as string, t, dim) }));
      send(200, JSON.stringify({ model: b.model, results: results.sort((x, y) => y.relevance_score - x.relevance_score || x.index - y.index) }));
    } else {
      send(404, JSON.stringify({ error: `no route ${req.method} ${path}` }));
    }
  }
}

export async function startFakeServer(o: FakeServerOptions = {}): Promise<FakeServer> {
  return new FakeServer(o).start();
}
