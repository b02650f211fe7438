/**
 * The remote clients' parsers on answers shaped as the servers document them (test/fixtures/remote,
 * see its README): TEI /embed, /info and /rerank, OpenAI and vLLM /v1/embeddings, Cohere v2 and vLLM
 * rerank. Extra fields are ignored, results given by relevance are put back in input order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOpenAiEmbeddings, parseTeiEmbeddings, parseTeiInfo } from '../src/remote/embeddings.js';
import { parseCohereRerank, parseTeiRerank } from '../src/remote/rerank.js';

const load = (f: string): unknown => JSON.parse(readFileSync(join(__dirname, 'fixtures', 'remote', f), 'utf8'));
const f32 = (xs: number[]) => Array.from(Float32Array.from(xs));

describe('embeddings', () => {
  it('TEI /embed: vectors in input order', () => {
    const a = parseTeiEmbeddings(load('tei-embed.json'), 3);
    expect(a.vectors.map((v) => Array.from(v))).toEqual([f32([0.0123, -0.0456, 0.0789, 0.1011]), f32([-0.0213, 0.0354, -0.0465, 0.0576]), f32([0.5, 0.5, 0.5, 0.5])]);
    expect(() => parseTeiEmbeddings(load('tei-embed.json'), 2)).toThrow('3 embeddings for 2 inputs');
  });
  it('TEI /info: model id, revision and limits among the other fields', () => {
    expect(parseTeiInfo(load('tei-info.json'))).toEqual({ model: 'BAAI/bge-small-en-v1.5', revision: '5c38ec7c405ec4b44b94cc5a9bb96e735b38267a', maxInputLength: 512, maxBatchSize: 32 });
  });
  it('OpenAI /v1/embeddings: vectors, model, prompt tokens', () => {
    const a = parseOpenAiEmbeddings(load('openai-embeddings.json'), 2);
    expect(a.model).toBe('text-embedding-3-small');
    expect(a.promptTokens).toBe(9);
    expect(Array.from(a.vectors[1]!)).toEqual(f32([-0.0051, 0.0204, 0.0033, 0.0119]));
  });
  it('vLLM /v1/embeddings: data out of order is put back by index; id/created ignored', () => {
    const a = parseOpenAiEmbeddings(load('vllm-embeddings.json'), 2);
    expect(Array.from(a.vectors[0]!)).toEqual(f32([0.125, 0.375, -0.5, 0.75]));
    expect(Array.from(a.vectors[1]!)).toEqual(f32([0.25, -0.25, 0.5, 0]));
    expect(a).toMatchObject({ model: 'intfloat/e5-small-v2', promptTokens: 12 });
  });
});

describe('rerank', () => {
  it('TEI /rerank: scores sorted by score come back in input order', () => {
    expect(parseTeiRerank(load('tei-rerank.json'), 3)).toEqual([1.40625, -6.25, 7.8125]);
  });
  it('Cohere v2 /rerank: results by relevance back in input order; meta ignored', () => {
    expect(parseCohereRerank(load('cohere-rerank-v2.json'), 5)).toEqual([0.32713068, 0.1, 0.0000121, 0.999071, 0.7867867]);
    expect(() => parseCohereRerank(load('cohere-rerank-v2.json'), 6)).toThrow('5 scores for 6 documents');
  });
  it('vLLM /v1/rerank: documents echoed inside results are ignored', () => {
    expect(parseCohereRerank(load('vllm-rerank.json'), 2)).toEqual([0.0005860328674316406, 0.99853515625]);
  });
});
