#!/usr/bin/env python3
"""bm25s 0.3.3 run exactly as the official SkillRet script runs BM25 (skillret/eval.py eval_bm25),
on a dataset folder (skills/<split>.jsonl, queries/<split>.jsonl): the reference side of
`npm run bench`. bm25s is NOT part of this repository: run this with a Python that can import it
(e.g. PYTHONPATH=<bm25s checkout>). Writes {query_id: [[skill_id, score], ...]} as JSON.

    python3 scripts/bm25s-reference.py DATASET_DIR OUT.json [--split test] [--k 20]
"""
import argparse
import json
import sys

import bm25s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dataset")
    ap.add_argument("out")
    ap.add_argument("--split", default="test")
    ap.add_argument("--k", type=int, default=20)
    a = ap.parse_args()
    skills = [json.loads(l) for l in open(f"{a.dataset}/skills/{a.split}.jsonl", encoding="utf-8") if l.strip()]
    queries = [json.loads(l) for l in open(f"{a.dataset}/queries/{a.split}.jsonl", encoding="utf-8") if l.strip()]
    ids = [s["id"] for s in skills]
    texts = []
    for s in skills:
        md = s.get("skill_md") or ""
        if not md.strip():
            md = s.get("description") or ""
        texts.append(f"{(s.get('name') or '').strip()} | {(s.get('description') or '').strip()} | {md.strip()}")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    del texts
    k = min(a.k, len(ids))
    out = {}
    for q in queries:
        tok = bm25s.tokenize(q["query"], stopwords="en", show_progress=False)
        if len(tok.vocab) == 0:
            tok = bm25s.tokenize("NONE", stopwords=[], show_progress=False)
        docs, scores = retriever.retrieve(tok, k=k, show_progress=False)
        out[q["id"]] = [[ids[int(d)], float(s)] for d, s in zip(docs[0], scores[0]) if s > 0]
    json.dump(out, open(a.out, "w"))
    print(f"bm25s {getattr(bm25s, '__version__', '?')}: {len(ids)} docs, {len(queries)} queries", file=sys.stderr)


if __name__ == "__main__":
    main()
